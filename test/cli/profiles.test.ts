// The demo profile in settings (listed read-only, usable as the default) and
// `hearth profile list|remove|use` and `hearth session set`, against a daemon started with
// --demo, each command run through bin/hearth.mjs.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { runCli, startDaemon, type TestDaemon } from '../helpers/daemon.ts'
import { getSession } from '../inputs/helpers.ts'
import { fileJson, patchGroup, readGroup } from '../settings/helpers.ts'
import { createSession } from '../streams/sse-client.ts'

const noHome = { HEARTH_HOME: '' }

describe('profiles with --demo', () => {
  let d: TestDaemon
  before(async () => {
    d = await startDaemon({ args: ['--demo'] })
  })
  after(async () => {
    await d.stop()
  })
  const cli = (args: string[], stdin?: string) => runCli([...args, '--home', d.home], noHome, { stdin })

  it('GET /settings lists the demo profile read-only; a PATCH cannot change it', async () => {
    const { settings } = await readGroup(d, 'providers')
    assert.equal(settings.profiles.demo.read_only, true)
    assert.equal(settings.profiles.demo.model, 'hearth-demo')
    assert.equal(settings.profiles.demo.api_key, null)
    const whole = (await d.request({ path: '/settings' })).json()
    assert.equal(whole.settings.providers.profiles.demo.read_only, true)
    const { etag } = await readGroup(d, 'providers')
    const r = await patchGroup(d, 'providers', { profiles: { demo: { model: 'other' } } }, etag)
    assert.equal(r.status, 400, r.text())
    assert.equal(r.json().code, 'invalid_settings')
    assert.match(r.json().detail, /demo is built into this daemon/)
  })

  it('profile use demo makes it the default: new sessions take it', async () => {
    const r = await cli(['profile', 'use', 'demo'])
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout, 'new sessions use profile demo\n')
    assert.equal(fileJson(d.home, 'config.json').providers.default_profile, 'demo')
    const sid = await createSession(d)
    const s = await getSession(d, sid)
    assert.equal(s.provider_profile, 'demo')
    assert.equal(s.model, 'hearth-demo')
    const list = await cli(['profile', 'list'])
    assert.equal(list.code, 0, list.stderr)
    assert.match(list.stdout, /^\* demo +openai-compatible +hearth-demo +default, built in, read-only$/m)
    const unknown = await cli(['profile', 'use', 'nope'])
    assert.equal(unknown.code, 1)
    assert.equal(unknown.stderr, 'hearth: no profile named nope; see hearth profile list\n')
  })

  it('profile remove removes a saved profile (and the default with it), never the demo one', async () => {
    const added = await cli([
      'profile',
      'add',
      'work',
      '--endpoint',
      'https://api.example.com/v1',
      '--model',
      'm1',
    ])
    assert.equal(added.code, 0, added.stderr)
    assert.equal((await cli(['profile', 'use', 'work'])).code, 0)
    const list = await cli(['profile', 'list'])
    assert.match(list.stdout, /^\* work +openai-compatible +m1 +default$/m)
    assert.match(list.stdout, /^ {2}demo +openai-compatible +hearth-demo +built in, read-only$/m)
    const removed = await cli(['profile', 'remove', 'work'])
    assert.equal(removed.code, 0, removed.stderr)
    assert.equal(removed.stdout, 'removed profile work; there is no default profile now\n')
    const { settings } = await readGroup(d, 'providers')
    assert.equal(settings.profiles.work, undefined)
    assert.equal(settings.default_profile, null)
    const demo = await cli(['profile', 'remove', 'demo'])
    assert.equal(demo.code, 1)
    assert.match(
      demo.stderr,
      /profile demo is built into the running daemon \(--demo\) and cannot be removed/,
    )
  })

  it('session set --profile P --model M changes the session; an unknown profile is refused', async () => {
    const added = await cli([
      'profile',
      'add',
      'other',
      '--endpoint',
      'https://api.example.com/v1',
      '--model',
      'o1',
    ])
    assert.equal(added.code, 0, added.stderr)
    const sid = await createSession(d, { kind: 'new', workspace: d.home, provider_profile: 'demo' })
    const both = await cli(['session', 'set', sid, '--profile', 'other', '--model', 'o2'])
    assert.equal(both.code, 0, both.stderr)
    assert.equal(both.stdout, `session ${sid}: profile other, model o2\n`)
    let s = await getSession(d, sid)
    assert.equal(s.provider_profile, 'other')
    assert.equal(s.model, 'o2')
    // A profile alone brings its own model.
    const back = await cli(['session', 'set', sid, '--profile', 'demo'])
    assert.equal(back.code, 0, back.stderr)
    s = await getSession(d, sid)
    assert.equal(s.provider_profile, 'demo')
    assert.equal(s.model, 'hearth-demo')
    const bad = await cli(['session', 'set', sid, '--profile', 'nope'])
    assert.equal(bad.code, 1)
    assert.match(
      bad.stderr,
      /^hearth: no profile named nope \(profiles: .*demo.*\); see hearth profile list\n$/,
    )
    const none = await cli(['session', 'set', sid])
    assert.equal(none.code, 2)
    assert.match(none.stderr, /needs --profile, --model or --effort/)
  })
})
