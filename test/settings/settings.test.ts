// GET and PATCH /settings: groups, ETags and If-Match, merge patches, write-only secrets,
// validation of the whole candidate, extension dependencies, and the files they land in.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { assertProblem } from '../api/hostile.ts'
import { startDaemon, type TestDaemon } from '../helpers/daemon.ts'
import { change, fileJson, modeOf, patchGroup, readGroup } from './helpers.ts'

const GROUPS = [
  'providers',
  'mcp',
  'extensions',
  'capabilities',
  'models',
  'ui',
  'tools',
  'compaction',
  'instructions',
]

describe('settings', () => {
  let d: TestDaemon
  before(async () => {
    d = await startDaemon()
  })
  after(async () => {
    await d.stop()
  })

  it('reads all seven groups with their validators and ETags, or one group with its own ETag', async () => {
    const all = await d.request({ path: '/settings' })
    assert.equal(all.status, 200)
    const body = all.json()
    assert.deepEqual(Object.keys(body.settings), GROUPS)
    assert.deepEqual(Object.keys(body.validators), GROUPS)
    assert.equal(body.validators.providers.type, 'object')
    for (const g of GROUPS) {
      const one = await readGroup(d, g)
      assert.equal(one.etag, body.etags[g], g)
      assert.deepEqual(one.settings, body.settings[g], g)
    }
    assert.deepEqual(body.settings.ui, { dismissed_notices: [], theme: null, show_reasoning: true })
    assert.deepEqual(body.settings.tools, {
      approval_policy: 'ask',
      max_steps: 100,
      allowed_roots: [],
      network: false,
      hidden_paths: [],
      visible_paths: [],
      snapshots: { enabled: true, max_file_bytes: 10485760, keep_runs: 100, max_total_bytes: 2147483648 },
    })
    assert.equal(body.settings.extensions.extensions.chatgpt.enabled, true)
    assert.deepEqual(body.settings.extensions.extensions.chatgpt.requires, ['openai-compatible'])
  })

  it('saves a profile: public part in config.json, key in creds.json (0600), read shows only saved', async () => {
    const res = await change(d, 'providers', {
      default_profile: 'work',
      profiles: {
        work: {
          endpoint: 'https://api.example.com/v1',
          protocol: 'responses',
          model: 'm1',
          api_key: 'sk-SECRET-1',
        },
      },
    })
    assert.deepEqual(res.changed, ['default_profile', 'profiles'])
    const work = res.settings.profiles.work
    assert.equal(work.extension, 'openai-compatible', 'newly saved profiles carry their extension')
    assert.deepEqual(work.api_key, { saved: true })
    assert.equal(JSON.stringify(res).includes('sk-SECRET-1'), false)
    const config = fileJson(d.home, 'config.json')
    assert.equal(config.providers.profiles.work.extension, 'openai-compatible')
    assert.equal(JSON.stringify(config).includes('sk-SECRET-1'), false)
    assert.deepEqual(fileJson(d.home, 'creds.json').providers.work, { apiKey: 'sk-SECRET-1' })
    assert.equal(modeOf(d.home, 'creds.json'), 0o600)
    // null removes a field (merge patch); api_key null removes the key.
    const next = await change(d, 'providers', { profiles: { work: { api_key: null, model: 'm2' } } })
    assert.equal(next.settings.profiles.work.api_key, null)
    assert.equal(next.settings.profiles.work.model, 'm2')
    assert.deepEqual(fileJson(d.home, 'creds.json').providers, {})
  })

  it('needs If-Match (428), refuses a stale one (412); two PATCHes with one ETag: one wins', async () => {
    const { etag } = await readGroup(d, 'ui')
    assertProblem(await patchGroup(d, 'ui', { theme: 'x' }, undefined), 428, 'precondition_required')
    const [a, b] = await Promise.all([
      patchGroup(d, 'ui', { theme: 'dark' }, etag),
      patchGroup(d, 'ui', { theme: 'light' }, etag),
    ])
    assert.deepEqual([a.status, b.status].sort(), [200, 412])
    const loser = a.status === 412 ? a : b
    assertProblem(loser, 412, 'precondition_failed')
    const winner = a.status === 200 ? a : b
    assert.equal((await readGroup(d, 'ui')).etag, winner.headers.etag)
    // A key rotation changes the ETag although the representation does not.
    await change(d, 'providers', {
      profiles: { k: { endpoint: 'https://k.example/v1', model: 'm', api_key: 'sk-one' } },
    })
    const before = await readGroup(d, 'providers')
    await change(d, 'providers', { profiles: { k: { api_key: 'sk-two' } } })
    const afterRotation = await readGroup(d, 'providers')
    assert.deepEqual(afterRotation.settings, before.settings)
    assert.notEqual(afterRotation.etag, before.etag)
    await change(d, 'providers', { profiles: { k: null } })
  })

  it('validates the patch and the whole candidate; nothing is written on failure', async () => {
    const configBefore = readFileSync(join(d.home, 'config.json'), 'utf8')
    const { etag } = await readGroup(d, 'providers')
    const cases: [unknown, number, string][] = [
      [{ profiles: { p: { bogus: 1 } } }, 400, 'unknown_field'],
      [{ profiles: { p: { endpoint: 5 } } }, 400, 'invalid_request'],
      [{ profiles: { 'bad name!': { model: 'x' } } }, 400, 'invalid_request'],
      [{ default_profile: 'nobody' }, 400, 'invalid_settings'],
      [{ profiles: { p: { model: 'only a model' } } }, 400, 'invalid_settings'],
      ['{"default_profile": null, "default_profile": null}', 400, 'duplicate_key'],
      ['{not json', 400, 'malformed_json'],
    ]
    for (const [body, status, code] of cases) {
      assertProblem(await patchGroup(d, 'providers', body, etag), status, code, JSON.stringify(body))
    }
    assertProblem(
      await d.request({ method: 'PATCH', path: '/settings', headers: { 'if-match': etag }, body: '{}' }),
      400,
      'invalid_parameter',
    )
    assertProblem(await d.request({ path: '/settings?group=nope' }), 400, 'invalid_parameter')
    assertProblem(await d.request({ path: '/settings?group=ui&x=1' }), 400, 'unknown_parameter')
    assert.equal(readFileSync(join(d.home, 'config.json'), 'utf8'), configBefore)
    assert.equal(readdirSync(d.home).filter((n) => n.endsWith('.next') || n.endsWith('.journal')).length, 0)
  })

  it('mcp secrets are write-only and land in creds.json; local and remote fields do not mix', async () => {
    const res = await change(d, 'mcp', {
      servers: {
        gh: {
          url: 'https://mcp.example.com/mcp',
          headers: { 'X-Api-Key': 'hdr-SECRET' },
          bearerToken: 'tok-SECRET',
        },
        fs: { command: 'mcp-fs', args: ['--root', '/tmp'], env: { FS_TOKEN: 'env-SECRET' } },
      },
    })
    assert.deepEqual(res.settings.servers.gh.headers, { 'X-Api-Key': { saved: true } })
    assert.deepEqual(res.settings.servers.gh.bearerToken, { saved: true })
    assert.deepEqual(res.settings.servers.fs.env, { FS_TOKEN: { saved: true } })
    assert.equal(/SECRET/.test(JSON.stringify(res)), false)
    assert.equal(/SECRET/.test(readFileSync(join(d.home, 'config.json'), 'utf8')), false)
    const creds = fileJson(d.home, 'creds.json')
    assert.deepEqual(creds.mcp.gh, { headers: { 'X-Api-Key': 'hdr-SECRET' }, bearerToken: 'tok-SECRET' })
    assert.deepEqual(creds.mcp.fs, { env: { FS_TOKEN: 'env-SECRET' } })
    const { etag } = await readGroup(d, 'mcp')
    assertProblem(
      await patchGroup(d, 'mcp', { servers: { fs: { bearerToken: 'x' } } }, etag),
      400,
      'invalid_settings',
    )
    assertProblem(
      await patchGroup(d, 'mcp', { servers: { both: { command: 'a', url: 'https://b.example' } } }, etag),
      400,
      'invalid_settings',
    )
    const removed = await change(d, 'mcp', { servers: { gh: null, fs: { env: { FS_TOKEN: null } } } })
    assert.deepEqual(Object.keys(removed.settings.servers), ['fs'])
    assert.deepEqual(removed.settings.servers.fs.env, {})
    assert.deepEqual(fileJson(d.home, 'creds.json').mcp, {})
  })

  it('extensions: a change that breaks a dependency or strands a profile is 409', async () => {
    const { etag } = await readGroup(d, 'extensions')
    assertProblem(
      await patchGroup(d, 'extensions', { extensions: { 'openai-compatible': { enabled: false } } }, etag),
      409,
      'extension_dependency',
    )
    const off = await change(d, 'extensions', {
      extensions: { chatgpt: { enabled: false } },
      quota: { pollSeconds: 300 },
    })
    assert.equal(off.settings.extensions.chatgpt.enabled, false)
    assert.equal(off.settings.quota.pollSeconds, 300)
    assert.deepEqual(fileJson(d.home, 'extensions.json'), {
      extensions: { chatgpt: { enabled: false } },
      quota: { pollSeconds: 300 },
    })
    const p = await readGroup(d, 'providers')
    assertProblem(
      await patchGroup(d, 'providers', { profiles: { sub: { extension: 'chatgpt' } } }, p.etag),
      400,
      'invalid_settings',
    )
    const e = await readGroup(d, 'extensions')
    assertProblem(
      await patchGroup(
        d,
        'extensions',
        { extensions: { chatgpt: { enabled: true }, 'openai-compatible': { enabled: false } } },
        e.etag,
      ),
      409,
      'extension_dependency',
    )
    assertProblem(
      await patchGroup(
        d,
        'extensions',
        {
          extensions: {
            chatgpt: { enabled: false },
            'openai-compatible': { enabled: false },
            models: { enabled: true },
          },
        },
        e.etag,
      ),
      409,
      'extension_in_use',
    )
    await change(d, 'extensions', { extensions: { chatgpt: null } })
  })

  it('capabilities can turn storage_report and zstd_requests off', async () => {
    await change(d, 'capabilities', { storage_report: false })
    const server = (await d.request({ path: '/server' })).json()
    assert.equal(server.capabilities.storage_report, undefined)
    assert.equal(server.capabilities.zstd_requests, 1)
    assertProblem(await d.request({ path: '/storage' }), 404, 'not_found')
    await change(d, 'capabilities', { storage_report: null })
    assert.equal((await d.request({ path: '/storage' })).status, 200)
  })

  it('an unreadable config.json is 503 settings_unreadable, and the detail never quotes it', async () => {
    const path = join(d.home, 'config.json')
    const saved = readFileSync(path, 'utf8')
    writeFileSync(path, '{"providers": {"profiles": {"x": {"apiKey": "sk-HAND-SECRET"')
    try {
      const r = await d.request({ path: '/settings' })
      const p = assertProblem(r, 503, 'settings_unreadable')
      assert.equal(String(p.detail).includes('sk-HAND'), false)
      assert.equal(r.text().includes('sk-HAND'), false)
    } finally {
      writeFileSync(path, saved)
    }
  })
})
