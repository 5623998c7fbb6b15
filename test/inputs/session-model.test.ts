// The session's resolved model is what goes upstream: a model named at creation wins over
// the profile's, and moving a session to another profile re-resolves its model from that
// profile unless the same change names one.
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, beforeEach, describe, it } from 'node:test'
import { FakeOpenAIUpstream } from '../fakes/openai-upstream.ts'
import { startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { configure, createSession } from '../streams/sse-client.ts'
import { idle, message, putInput, waitSession } from './helpers.ts'

describe('the session model', () => {
  let d: TestDaemon
  let upstream: FakeOpenAIUpstream

  /** Runs one turn and returns the model the upstream was asked for. */
  async function modelSent(sid: string): Promise<string> {
    const before = upstream.requests.length
    await putInput(d, sid, message('which model?'))
    const done = await waitSession(d, sid, (s) => idle(s) && s.latest_answer !== null)
    assert.equal(done.latest_answer.outcome, 'completed', JSON.stringify(done.history.items.at(-1)))
    assert.equal(upstream.requests.length, before + 1)
    return upstream.requests.at(-1)?.body.model
  }

  const configuration = async (sid: string) => {
    const r = await d.request({ path: `/sessions/${sid}?view=configuration` })
    assert.equal(r.status, 200, r.text())
    return r.json().value
  }

  before(async () => {
    upstream = await FakeOpenAIUpstream.start()
    const home = tempHome()
    mkdirSync(home, { recursive: true })
    const at = (model: string, protocol: string) => ({ endpoint: `${upstream.url}/v1`, protocol, model })
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        providers: {
          default_profile: 'main',
          profiles: { main: at('profile-model', 'responses'), other: at('other-model', 'chat_completions') },
        },
      }),
    )
    d = await startDaemon({ home })
  })
  after(async () => {
    await d.stop()
    await upstream.close()
  })
  beforeEach(() => {
    upstream.reset()
  })

  it('a model named at creation is the one sent, not the profile model', async () => {
    const sid = await createSession(d, { kind: 'new', workspace: d.home, model: 'session-model' })
    assert.equal((await configuration(sid)).model, 'session-model')
    assert.equal(await modelSent(sid), 'session-model')
  })

  it('a session without a model sends its profile model', async () => {
    const sid = await createSession(d)
    assert.equal(await modelSent(sid), 'profile-model')
  })

  it('a profile change re-resolves the model from the new profile', async () => {
    const sid = await createSession(d, { kind: 'new', workspace: d.home, model: 'session-model' })
    await configure(d, sid, { provider_profile: 'other' })
    const changed = await configuration(sid)
    assert.equal(changed.provider_profile, 'other')
    assert.equal(changed.model, 'other-model')
    assert.equal(await modelSent(sid), 'other-model')
    assert.match(upstream.requests.at(-1)?.path ?? '', /chat\/completions$/)
  })

  it('a fork or child naming another profile takes that profile model; the same profile keeps the model', async () => {
    const source = await createSession(d, { kind: 'new', workspace: d.home, model: 'session-model' })
    const fork = await createSession(d, { kind: 'forked', source_id: source, provider_profile: 'other' })
    assert.equal((await configuration(fork)).model, 'other-model')
    assert.equal(await modelSent(fork), 'other-model')
    const child = await createSession(d, { kind: 'child', parent_id: source })
    assert.equal((await configuration(child)).model, 'session-model')
    const named = await createSession(d, { kind: 'child', parent_id: source, provider_profile: 'main' })
    assert.equal((await configuration(named)).model, 'session-model', 'the same profile keeps the model')
  })

  it('a profile change that names a model keeps that model', async () => {
    const sid = await createSession(d)
    await configure(d, sid, { provider_profile: 'other', model: 'chosen-model' })
    assert.equal((await configuration(sid)).model, 'chosen-model')
    assert.equal(await modelSent(sid), 'chosen-model')
  })
})
