// Settings for claude: the sign-in client with its defaults and overrides, and the profile
// rules (protocol chat_completions only; an endpoint only over https).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { assertProblem } from '../api/hostile.ts'
import { startDaemon, type TestDaemon } from '../helpers/daemon.ts'
import { change, fileJson, patchGroup, readGroup } from './helpers.ts'

describe('claude settings', () => {
  let d: TestDaemon
  before(async () => {
    d = await startDaemon()
  })
  after(() => d.stop())

  it('sign_in.claude reads with its defaults; a patch changes the port, null goes back', async () => {
    const { settings } = await readGroup(d, 'providers')
    assert.deepEqual(settings.sign_in.claude, {
      client_id: '9d1c250a-e61b-44d9-88ed-5944d1962f5e',
      callback_port: 53692,
    })
    const changed = await change(d, 'providers', { sign_in: { claude: { callback_port: 53000 } } })
    assert.equal(changed.settings.sign_in.claude.callback_port, 53000)
    const back = await change(d, 'providers', { sign_in: { claude: null } })
    assert.equal(back.settings.sign_in.claude.callback_port, 53692)
    const { etag } = await readGroup(d, 'providers')
    const r = await patchGroup(d, 'providers', { sign_in: { claude: { issuer: 'https://x.example' } } }, etag)
    assertProblem(r, 400, 'unknown_field', 'unknown sign-in field')
  })

  it('a claude profile is saved without an endpoint, and with an https one', async () => {
    await change(d, 'providers', {
      profiles: {
        sub: { extension: 'claude', protocol: 'chat_completions', model: 'claude-sonnet-4-5' },
        gw: { extension: 'claude', endpoint: 'https://gw.example', model: 'claude-opus-4-5' },
      },
    })
    assert.equal(fileJson(d.home, 'config.json').providers.profiles.sub.extension, 'claude')
  })

  for (const [what, profile] of [
    ['a plain-http endpoint', { extension: 'claude', endpoint: 'http://127.0.0.1:9', model: 'm' }],
    ['the responses protocol', { extension: 'claude', protocol: 'responses', model: 'm' }],
  ] as const) {
    it(`refuses ${what}`, async () => {
      const { etag } = await readGroup(d, 'providers')
      const r = await patchGroup(d, 'providers', { profiles: { bad: profile } }, etag)
      assertProblem(r, 400, 'invalid_settings', what)
      assert.equal(fileJson(d.home, 'config.json').providers.profiles.bad, undefined)
    })
  }
})
