// A Chat Completions server that streams `content` as typed parts (Mistral's reasoning
// models): the turn records the thinking parts as reasoning and the text parts as the
// answer, through the daemon, from a recorded-shape fixture.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createSession } from '../streams/sse-client.ts'
import { idle, message, putInput, type Setup, startWithUpstream, waitSession } from './helpers.ts'

const FIXTURE = join(import.meta.dirname, '../providers/openai-compatible/fixtures/chat-mistral-thinking.sse')

describe('structured content in Chat Completions deltas', () => {
  let s: Setup
  before(async () => {
    s = await startWithUpstream({ protocol: 'chat_completions' })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  it('records thinking parts as reasoning and text parts as the answer', async () => {
    s.upstream.enqueue({ raw: readFileSync(FIXTURE, 'utf8') })
    const sid = await createSession(s.d)
    await putInput(s.d, sid, message('half of 8?'))
    const done = await waitSession(s.d, sid, (x) => idle(x) && x.latest_answer !== null)
    assert.equal(done.latest_answer.outcome, 'completed')
    assert.equal(done.latest_answer.text, 'The answer is 4.')
    const kinds = done.history.items.map((e: any) => [e.kind, e.content.text])
    assert.deepEqual(kinds, [
      ['user', 'half of 8?'],
      ['reasoning', 'Half of 8 by 2 is 4.'],
      ['assistant', 'The answer is 4.'],
    ])
    assert.equal(done.usage.completion_tokens, 28)
  })
})
