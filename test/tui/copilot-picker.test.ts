// The model picker for a copilot profile in a real terminal: tmux runs `hearth` against a
// real daemon whose copilot account's API (the fake upstream) lists its models; the picker
// shows them with their context windows, and the chosen model's turn goes to the wire
// Copilot serves it on.
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { FakeOpenAIUpstream } from '../fakes/openai-upstream.ts'
import { BIN, startDaemon, type TestDaemon } from '../helpers/daemon.ts'
import { Tmux } from '../helpers/tmux.ts'
import { idle, waitSession } from '../inputs/helpers.ts'
import { COPILOT_MODELS, copilotHome } from '../models/copilot-helpers.ts'

const ready = (screen: string) => /idle · /.test(screen) && screen.includes('──────')

describe('the model picker for a copilot profile in tmux', () => {
  let api: FakeOpenAIUpstream
  let d: TestDaemon
  let t: Tmux | undefined

  before(async () => {
    api = await FakeOpenAIUpstream.start()
    api.models = COPILOT_MODELS
    const home = copilotHome()
    // The session starts on an openai-compatible profile; the picker moves it to copilot.
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        providers: {
          default_profile: 'fake',
          profiles: {
            fake: { endpoint: `${api.url}/v1`, protocol: 'chat_completions', model: 'fake-model' },
            cp: { extension: 'copilot', model: 'gpt-4.1' },
          },
        },
      }),
    )
    d = await startDaemon({ home, env: { HEARTH_COPILOT_API_URL: `${api.url}/v1` } })
  })
  after(async () => {
    t?.kill()
    await d.stop()
    await api.close()
  })

  it('lists the account’s models for the copilot profile, and the chosen one runs on its wire', async () => {
    t = Tmux.start([process.execPath, BIN, '--home', d.home], { columns: 120, rows: 30, cwd: d.home })
    await t.waitFor(ready, 'the prompt')
    t.type('/model')
    t.keys('Enter')
    let screen = await t.waitFor((x) => /^Profile/m.test(x) && x.includes('cp'), 'the profiles')
    assert.match(screen, /cp {2}copilot {2}signed in/)
    t.type('cp')
    await t.waitFor((x) => /› cp/.test(x), 'the profile filtered')
    t.keys('Enter')
    screen = await t.waitFor(
      (x) => /^Model for cp/m.test(x) && x.includes('gpt-5.2-codex') && !x.includes('loading'),
      'the copilot models',
    )
    assert.match(screen, /gpt-4\.1 {2}128k context/)
    assert.match(screen, /gpt-5\.2-codex {2}400k context/)
    assert.doesNotMatch(screen, /claude-opus-4\.5/, 'a Messages-only model is not offered')
    t.type('codex')
    await t.waitFor((x) => /› gpt-5\.2-codex/.test(x), 'the codex model chosen')
    t.keys('Enter')
    await t.waitFor((x) => /^Effort for gpt-5\.2-codex/m.test(x), 'the efforts')
    t.type('high')
    await t.waitFor((x) => /› high/.test(x), 'high chosen')
    t.keys('Enter')
    await t.waitFor((x) => /cp · gpt-5\.2-codex · high/.test(x) && ready(x), 'the status line')

    const { body } = await d.client.call('sessions.list', { query: { scope: 'all', limit: 200 } })
    const session = body.items.find((x) => x.model === 'gpt-5.2-codex')
    assert.ok(session)
    const before = api.requests.length
    t.type('which wire')
    t.keys('Enter')
    await waitSession(d, session.id, (x) => idle(x) && x.input_order === 1)
    const step = api.requests.slice(before).find((r) => r.method === 'POST')
    assert.equal(step?.path, '/v1/responses')
    assert.equal(step?.body.model, 'gpt-5.2-codex')
    assert.equal(step?.body.reasoning?.effort, 'high')
  })
})
