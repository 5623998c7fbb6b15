// Start-time migration of secrets into creds.json, from every state a crash can leave:
// creds.json first, then each legacy file into backups/ with its mode cleared. Notices are
// listed by GET /server, kept after reading, and dismissed through ui.dismissed_notices.
import assert from 'node:assert/strict'
import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { startDaemon, tempHome } from '../helpers/daemon.ts'
import { change, fileJson, modeOf } from './helpers.ts'

const ACCOUNT = { type: 'oauth', access: 'acc-SECRET', refresh: 'ref-SECRET', expires: 1, accountId: 'a1' }
const MCP = { gh: { bearerToken: 'mcp-SECRET', headers: { 'X-Key': 'hdr-SECRET' } } }

/** A home holding secrets in all three old places. */
function legacyHome(): string {
  const home = tempHome()
  mkdirSync(home, { recursive: true, mode: 0o700 })
  writeFileSync(join(home, 'auth.json'), JSON.stringify({ chatgpt: ACCOUNT }), { mode: 0o600 })
  writeFileSync(join(home, 'mcp-auth.json'), JSON.stringify(MCP), { mode: 0o600 })
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({
      providers: { profiles: { p: { endpoint: 'https://x.example/v1', model: 'm', apiKey: 'sk-HAND' } } },
      mcp: { servers: { gh: { url: 'https://mcp.example/mcp' } } },
    }),
  )
  return home
}

/** What a finished migration leaves, whatever happened before. */
function assertMigrated(home: string) {
  const creds = fileJson(home, 'creds.json')
  assert.deepEqual(creds.accounts, { chatgpt: ACCOUNT })
  assert.deepEqual(creds.mcp, MCP)
  assert.deepEqual(creds.providers, { p: { apiKey: 'sk-HAND' } })
  assert.equal(modeOf(home, 'creds.json'), 0o600)
  assert.equal(existsSync(join(home, 'auth.json')), false)
  assert.equal(existsSync(join(home, 'mcp-auth.json')), false)
  assert.equal(JSON.stringify(fileJson(home, 'config.json')).includes('sk-HAND'), false)
  const backups = readdirSync(join(home, 'backups'))
  assert.equal(backups.filter((n) => n.startsWith('auth.json-before-creds-')).length, 1)
  assert.equal(backups.filter((n) => n.startsWith('mcp-auth.json-before-creds-')).length, 1)
  for (const b of backups) assert.equal(statSync(join(home, 'backups', b)).mode & 0o7777, 0, b)
  assert.deepEqual(
    readdirSync(home).filter((n) => n.endsWith('.next') || n.endsWith('.journal')),
    [],
  )
}

describe('secrets migration at start', () => {
  it('moves every secret, lists notices, keeps them after reading, dismisses them', async () => {
    const home = legacyHome()
    const d = await startDaemon({ home })
    try {
      assertMigrated(home)
      const first = (await d.request({ path: '/server' })).json().notices
      assert.deepEqual(first.map((n: any) => n.source).sort(), ['auth.json', 'config.json', 'mcp-auth.json'])
      const config = first.find((n: any) => n.source === 'config.json')
      assert.equal(config.backup, null)
      assert.deepEqual(config.profiles, ['p'])
      assert.match(
        first.find((n: any) => n.source === 'auth.json').backup,
        /^backups\/auth\.json-before-creds-\d+$/,
      )
      assert.deepEqual(
        (await d.request({ path: '/server' })).json().notices,
        first,
        'reading consumes nothing',
      )
      // The migrated key is the profile's key now, and reads show only that it is saved.
      const providers = (await d.request({ path: '/settings?group=providers' })).json()
      assert.deepEqual(providers.settings.profiles.p.api_key, { saved: true })
      await change(d, 'ui', { dismissed_notices: [first[0].id] })
      const left = (await d.request({ path: '/server' })).json().notices
      assert.deepEqual(
        left.map((n: any) => n.id),
        first.slice(1).map((n: any) => n.id),
      )
    } finally {
      await d.stop()
    }
    // A later start has nothing to migrate and lists no notices.
    const again = await startDaemon({ home })
    try {
      assert.deepEqual((await again.request({ path: '/server' })).json().notices, [])
      assertMigrated(home)
    } finally {
      await again.stop()
    }
  })

  // The states a kill at each step leaves; the next start must finish from each.
  const interrupted: [string, (home: string) => void][] = [
    [
      'a next version written, no journal (the commit never happened)',
      (home) => writeFileSync(join(home, 'creds.json.next'), '{"accounts": {"other": {}}}', { mode: 0o600 }),
    ],
    [
      'the journal written, files not yet renamed',
      (home) => {
        writeFileSync(join(home, 'creds.json.next'), JSON.stringify({ accounts: { chatgpt: ACCOUNT } }), {
          mode: 0o600,
        })
        writeFileSync(join(home, 'settings.journal'), '{"files": ["creds.json"]}', { mode: 0o600 })
      },
    ],
    [
      'creds.json committed, no legacy file moved yet',
      (home) =>
        writeFileSync(
          join(home, 'creds.json'),
          JSON.stringify({ accounts: { chatgpt: ACCOUNT }, mcp: MCP }),
          {
            mode: 0o600,
          },
        ),
    ],
    [
      'auth.json moved, its mode not yet cleared, mcp-auth.json not moved',
      (home) => {
        writeFileSync(
          join(home, 'creds.json'),
          JSON.stringify({ accounts: { chatgpt: ACCOUNT }, mcp: MCP }),
          {
            mode: 0o600,
          },
        )
        mkdirSync(join(home, 'backups'), { mode: 0o700 })
        renameSync(join(home, 'auth.json'), join(home, 'backups', 'auth.json-before-creds-1'))
      },
    ],
    ['a legacy file left with every mode bit cleared', (home) => chmodSync(join(home, 'mcp-auth.json'), 0)],
  ]
  for (const [state, make] of interrupted) {
    it(`finishes after a crash: ${state}`, async () => {
      const home = legacyHome()
      make(home)
      const d = await startDaemon({ home })
      try {
        assertMigrated(home)
        assert.equal((await d.request({ path: '/server' })).status, 200)
      } finally {
        await d.stop()
      }
    })
  }

  it('an apiKey written by hand wins over the saved one until the next start moves it', async () => {
    const home = tempHome()
    mkdirSync(home, { recursive: true, mode: 0o700 })
    const d = await startDaemon({ home })
    try {
      await change(d, 'providers', {
        profiles: { p: { endpoint: 'https://x.example/v1', model: 'm', api_key: 'sk-SAVED' } },
      })
      const config = fileJson(home, 'config.json')
      config.providers.profiles.p.apiKey = 'sk-HAND-NEW'
      writeFileSync(join(home, 'config.json'), JSON.stringify(config))
      // Still one saved key as far as reads go; the hand one is never shown.
      const r = await d.request({ path: '/settings?group=providers' })
      assert.equal(r.text().includes('sk-HAND-NEW'), false)
      assert.deepEqual(r.json().settings.profiles.p.api_key, { saved: true })
    } finally {
      await d.stop()
    }
    const again = await startDaemon({ home })
    try {
      assert.deepEqual(fileJson(home, 'creds.json').providers.p, { apiKey: 'sk-HAND-NEW' })
      assert.equal(fileJson(home, 'config.json').providers.profiles.p.apiKey, undefined)
    } finally {
      await again.stop()
    }
  })
})
