// Settings for copilot: the device sign-in's client and GitHub host with their defaults and
// overrides, and a copilot profile saved without an endpoint.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { assertProblem } from '../api/hostile.ts'
import { startDaemon, type TestDaemon } from '../helpers/daemon.ts'
import { change, fileJson, patchGroup, readGroup } from './helpers.ts'

describe('copilot settings', () => {
  let d: TestDaemon
  before(async () => {
    d = await startDaemon()
  })
  after(() => d.stop())

  it('sign_in.copilot reads with its defaults; a patch names an enterprise host, null goes back', async () => {
    const { settings } = await readGroup(d, 'providers')
    assert.deepEqual(settings.sign_in.copilot, { client_id: 'Iv1.b507a08c87ecfe98', host: 'github.com' })
    const changed = await change(d, 'providers', { sign_in: { copilot: { host: 'octocorp.ghe.com' } } })
    assert.equal(changed.settings.sign_in.copilot.host, 'octocorp.ghe.com')
    assert.equal(fileJson(d.home, 'config.json').providers.sign_in.copilot.host, 'octocorp.ghe.com')
    const back = await change(d, 'providers', { sign_in: { copilot: null } })
    assert.equal(back.settings.sign_in.copilot.host, 'github.com')
  })

  it('a host that is not a host name, and a field it does not have, are refused', async () => {
    for (const [patch, code] of [
      [{ host: 'https://github.com' }, 'invalid_request'],
      [{ host: 'github.com/login' }, 'invalid_request'],
      [{ callback_port: 5000 }, 'unknown_field'],
    ] as const) {
      const { etag } = await readGroup(d, 'providers')
      const r = await patchGroup(d, 'providers', { sign_in: { copilot: patch } }, etag)
      assert.equal(r.status, 400, JSON.stringify(patch))
      assert.equal(r.json().code, code, JSON.stringify(r.json()))
    }
    assert.equal(fileJson(d.home, 'config.json').providers?.sign_in?.copilot, undefined)
  })

  it('a copilot profile is saved without an endpoint or a model', async () => {
    await change(d, 'providers', { profiles: { cp: { extension: 'copilot' } } })
    assert.equal(fileJson(d.home, 'config.json').providers.profiles.cp.extension, 'copilot')
    const { etag } = await readGroup(d, 'providers')
    const r = await patchGroup(d, 'providers', { profiles: { cp: { extension: 'nope' } } }, etag)
    assertProblem(r, 400, 'invalid_request')
  })
})
