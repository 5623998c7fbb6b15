// Settings as sessions and runs see them: new sessions take the default profile and its
// model; a run uses the saved key, or a hand-written one, which wins until the next start;
// a change to a session's profile or model facts shows needs_reload until the next run.
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { FakeOpenAIUpstream } from '../fakes/openai-upstream.ts'
import { startDaemon, type TestDaemon } from '../helpers/daemon.ts'
import { idle, message, putInput, waitSession } from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'
import { change } from './helpers.ts'

describe('settings seen by sessions and runs', () => {
  let d: TestDaemon
  let upstream: FakeOpenAIUpstream
  before(async () => {
    upstream = await FakeOpenAIUpstream.start()
    d = await startDaemon()
    await change(d, 'providers', {
      default_profile: 'main',
      profiles: {
        main: {
          endpoint: `${upstream.url}/v1`,
          protocol: 'responses',
          model: 'model-a',
          api_key: 'sk-SAVED',
        },
        other: { endpoint: `${upstream.url}/v1`, protocol: 'chat_completions', model: 'model-b' },
      },
    })
  })
  after(async () => {
    await d.stop()
    await upstream.close()
  })

  const bearer = () => upstream.requests.at(-1)?.headers.authorization

  it('a new session takes the default profile and its model; the run sends the saved key', async () => {
    const sid = await createSession(d)
    const s = (await d.request({ path: `/sessions/${sid}` })).json()
    assert.equal(s.provider_profile, 'main')
    assert.equal(s.model, 'model-a')
    await putInput(d, sid, message('hi'))
    const done = await waitSession(d, sid, idle)
    assert.equal(done.latest_answer.outcome, 'completed')
    assert.equal(bearer(), 'Bearer sk-SAVED')
  })

  it('a hand-written apiKey wins over the saved one while the daemon runs', async () => {
    const path = join(d.home, 'config.json')
    const config = JSON.parse(readFileSync(path, 'utf8'))
    config.providers.profiles.main.apiKey = 'sk-HAND'
    writeFileSync(path, JSON.stringify(config))
    const sid = await createSession(d)
    await putInput(d, sid, message('hi'))
    await waitSession(d, sid, idle)
    assert.equal(bearer(), 'Bearer sk-HAND')
    delete config.providers.profiles.main.apiKey
    writeFileSync(path, JSON.stringify(config))
  })

  it('changing a profile marks the sessions using it (only those) as needing a reload', async () => {
    const onMain = await createSession(d)
    await putInput(d, onMain, message('load it'))
    await waitSession(d, onMain, idle)
    const onOther = await createSession(d, { kind: 'new', workspace: d.home, provider_profile: 'other' })
    await putInput(d, onOther, message('load it'))
    await waitSession(d, onOther, idle)
    const needs = async (sid: string) => {
      const s = (await d.request({ path: `/sessions/${sid}` })).json()
      return s.composition.needs_reload
    }
    assert.equal(await needs(onMain), false)
    const res = await change(d, 'providers', { profiles: { main: { effort: 'high' } } })
    assert.ok(res.reload_sessions >= 1)
    assert.equal(await needs(onMain), true)
    assert.equal(await needs(onOther), false)
    // The next run loads the new composition.
    await putInput(d, onMain, message('again'))
    await waitSession(d, onMain, (x) => idle(x) && x.input_order === 2)
    assert.equal(await needs(onMain), false)
    // Model facts: an override for the model a session uses.
    await change(d, 'models', { overrides: { 'model-b': { context_window: 1000 } } })
    assert.equal(await needs(onOther), true)
  })
})
