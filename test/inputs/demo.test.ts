// `hearth daemon --demo`: a new user gets a streamed answer with no account and no config.
import assert from 'node:assert/strict'
import { it } from 'node:test'
import { startDaemon } from '../helpers/daemon.ts'
import { createSession } from '../streams/sse-client.ts'
import { idle, message, putInput, waitSession } from './helpers.ts'

it('answers through the built-in demo profile', async () => {
  const d = await startDaemon({ args: ['--demo'] })
  try {
    const sid = await createSession(d)
    const created = (await d.request({ path: `/sessions/${sid}` })).json()
    assert.equal(created.provider_profile, 'demo')
    assert.equal(created.model, 'hearth-demo')
    assert.equal((await putInput(d, sid, message('hello demo'))).status, 202)
    const done = await waitSession(d, sid, idle, 20_000)
    assert.equal(done.latest_answer.outcome, 'completed')
    assert.match(done.latest_answer.text, /hello demo/)
    const answers = done.history.items.filter((e: any) => e.kind === 'assistant')
    assert.equal(answers.length, 1)
    assert.match(answers[0].content.text, /demo profile/)
  } finally {
    await d.stop()
  }
})
