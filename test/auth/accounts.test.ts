// The account store over creds.json `accounts.<key>`: shapes, replace/append, removal,
// marks, descriptors, and every other section left as it is.
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import {
  AccountError,
  describeAccount,
  describeAccounts,
  listAccounts,
  markLimited,
  removeAccount,
  saveAccount,
  setSelected,
} from '../../src/auth/accounts.ts'
import { type CredentialFiles, lockedFiles } from '../../src/auth/accounts-store.ts'
import type { SignInPlugin, StoredCredential } from '../../src/providers/shared/sign-in-plugin.ts'
import { CredentialLock } from '../../src/settings/lock.ts'

const plugin: SignInPlugin = {
  extension: 'chatgpt',
  label: 'ChatGPT',
  detail: 'Plus or Pro subscription',
  protocol: 'oauth2_pkce',
  accountsKey: 'chatgpt',
  callback: { redirectHost: 'localhost', port: 1455, path: '/auth/callback', fixed: true },
  authorize: () => 'https://auth.example/authorize',
  exchange: async () => ({}),
  account: (c) => ({
    id: `chatgpt-${String(c.sub)}`,
    label: typeof c.email === 'string' ? c.email : null,
    email: typeof c.email === 'string' ? c.email : null,
    plan: typeof c.plan === 'string' ? c.plan : null,
  }),
  expiresAt: (c) => (typeof c.expires === 'number' ? c.expires : null),
  refresh: async (c) => c,
}

const cred = (sub: string, extra: StoredCredential = {}): StoredCredential => ({
  sub,
  access: `at-SECRET-${sub}`,
  refresh: `rt-SECRET-${sub}`,
  expires: 1_800_000_000_000,
  email: `${sub}@example.com`,
  ...extra,
})

const OTHER = {
  providers: { p: { apiKey: 'sk-keep' } },
  mcp: { srv: { bearerToken: 'bt-keep', headers: { 'X-K': 'h' }, env: { A: 'b' } } },
}
const CLAUDE = [{ access: 'c1', refresh: 'r1' }, { access: 'c2' }]
const CONFIG =
  '{\n  "providers": {\n    "profiles": {\n      "bound": { "extension": "chatgpt", "account_id": "chatgpt-bound" }\n    }\n  }\n}\n'
const EXTENSIONS = '{"extensions":{"chatgpt":{"enabled":true}}}'

let home: string
let store: CredentialFiles
const creds = () => JSON.parse(readFileSync(join(home, 'creds.json'), 'utf8'))

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'hearth-accounts-'))
  store = lockedFiles(home, new CredentialLock())
  writeFileSync(
    join(home, 'creds.json'),
    JSON.stringify({ accounts: { claude: CLAUDE, 'provider-d': { key: 'pd' } }, ...OTHER }),
  )
  writeFileSync(join(home, 'config.json'), CONFIG)
  writeFileSync(join(home, 'extensions.json'), EXTENSIONS)
})
afterEach(() => rmSync(home, { recursive: true, force: true }))

/** Everything outside accounts.chatgpt is as it was, content for content and file for file. */
function assertOthersUntouched() {
  const c = creds()
  assert.deepEqual(c.providers, OTHER.providers)
  assert.deepEqual(c.mcp, OTHER.mcp)
  assert.deepEqual(c.accounts.claude, CLAUDE)
  assert.deepEqual(c.accounts['provider-d'], { key: 'pd' })
  assert.equal(readFileSync(join(home, 'config.json'), 'utf8'), CONFIG)
  assert.equal(readFileSync(join(home, 'extensions.json'), 'utf8'), EXTENSIONS)
}

describe('listAccounts', () => {
  it('reads one object, an array, nothing, and skips what is not an object', () => {
    const files = (accounts: unknown) => ({
      'config.json': {},
      'creds.json': { accounts } as Record<string, unknown>,
      'extensions.json': {},
    })
    assert.deepEqual(listAccounts(files({ chatgpt: { sub: 'a' } }), 'chatgpt'), [{ sub: 'a' }])
    assert.deepEqual(listAccounts(files({ chatgpt: [{ sub: 'a' }, 7, null, { sub: 'b' }] }), 'chatgpt'), [
      { sub: 'a' },
      { sub: 'b' },
    ])
    assert.deepEqual(listAccounts(files({}), 'chatgpt'), [])
    assert.deepEqual(listAccounts(files('garbage'), 'chatgpt'), [])
    assert.deepEqual(listAccounts(files({ chatgpt: 'x' }), 'chatgpt'), [])
  })
})

describe('saveAccount', () => {
  it('stores one account as an object, two or more as an array', async () => {
    assert.deepEqual(await saveAccount(store, plugin, cred('a')), { id: 'chatgpt-a', replaced: false })
    assert.deepEqual(creds().accounts.chatgpt, cred('a'))
    assert.deepEqual(await saveAccount(store, plugin, cred('b')), { id: 'chatgpt-b', replaced: false })
    assert.deepEqual(creds().accounts.chatgpt, [cred('a'), cred('b')])
    assertOthersUntouched()
  })

  it('replaces the same account in place, keeping its bookkeeping, and appends a different one', async () => {
    await saveAccount(store, plugin, cred('a'))
    await saveAccount(store, plugin, cred('b'))
    await saveAccount(store, plugin, cred('c'))
    await setSelected(store, plugin, 'chatgpt-b', true)
    await markLimited(store, plugin, 'chatgpt-b', 1_900_000_000_000)
    const again = cred('b', { access: 'at-new', refresh: 'rt-new', plan: 'pro' })
    assert.deepEqual(await saveAccount(store, plugin, again), { id: 'chatgpt-b', replaced: true })
    const list = creds().accounts.chatgpt
    assert.deepEqual(
      list.map((c: StoredCredential) => c.sub),
      ['a', 'b', 'c'],
    )
    assert.deepEqual(list[1], { ...again, selected: true, limitedUntil: 1_900_000_000_000 })
    assertOthersUntouched()
  })

  it('loses no account when many saves race (each re-reads under the lock)', async () => {
    await Promise.all(Array.from({ length: 25 }, (_, i) => saveAccount(store, plugin, cred(`n${i}`))))
    const subs = creds()
      .accounts.chatgpt.map((c: StoredCredential) => c.sub)
      .sort()
    assert.deepEqual(subs, Array.from({ length: 25 }, (_, i) => `n${i}`).sort())
    assertOthersUntouched()
  })

  it('creates the accounts section (and the file) when there is none', async () => {
    rmSync(join(home, 'creds.json'))
    await saveAccount(store, plugin, cred('a'))
    assert.deepEqual(creds(), { accounts: { chatgpt: cred('a') }, providers: {}, mcp: {} })
  })
})

describe('removeAccount', () => {
  it('goes from array to object to no key, and says whether it removed anything', async () => {
    await saveAccount(store, plugin, cred('a'))
    await saveAccount(store, plugin, cred('b'))
    assert.equal(await removeAccount(store, plugin, 'chatgpt-a'), true)
    assert.deepEqual(creds().accounts.chatgpt, cred('b'))
    assert.equal(await removeAccount(store, plugin, 'chatgpt-a'), false)
    assert.equal(await removeAccount(store, plugin, 'chatgpt-b'), true)
    assert.equal('chatgpt' in creds().accounts, false)
    assertOthersUntouched()
  })

  it('leaves an accounts section emptied as {}, keeping the other sections', async () => {
    writeFileSync(join(home, 'creds.json'), JSON.stringify({ accounts: { chatgpt: cred('a') }, ...OTHER }))
    assert.equal(await removeAccount(store, plugin, 'chatgpt-a'), true)
    assert.deepEqual(creds(), { accounts: {}, ...OTHER })
  })

  it('refuses an account a saved profile is bound to (account_in_use) and changes nothing', async () => {
    await saveAccount(store, plugin, cred('bound'))
    const before = readFileSync(join(home, 'creds.json'), 'utf8')
    await assert.rejects(
      removeAccount(store, plugin, 'chatgpt-bound'),
      (err: unknown) =>
        err instanceof AccountError && err.code === 'account_in_use' && err.message.includes('bound'),
    )
    assert.equal(readFileSync(join(home, 'creds.json'), 'utf8'), before)
  })
})

describe('marks', () => {
  it('markLimited stores limitedUntil (or a meter mark) on that account only', async () => {
    await saveAccount(store, plugin, cred('a'))
    await saveAccount(store, plugin, cred('b'))
    assert.equal(await markLimited(store, plugin, 'chatgpt-b', 1_750_000_000_000), true)
    assert.equal(await markLimited(store, plugin, 'chatgpt-a', 1_760_000_000_000, 'gemini'), true)
    assert.equal(await markLimited(store, plugin, 'chatgpt-a', 1_770_000_000_000, 'claude'), true)
    assert.equal(await markLimited(store, plugin, 'chatgpt-zz', 1), false)
    const [a, b] = creds().accounts.chatgpt
    assert.equal(b.limitedUntil, 1_750_000_000_000)
    assert.equal(a.limitedUntil, undefined)
    assert.deepEqual(a.limitedMeters, { gemini: 1_760_000_000_000, claude: 1_770_000_000_000 })
    assertOthersUntouched()
  })

  it('setSelected sets and clears selected', async () => {
    await saveAccount(store, plugin, cred('a'))
    await setSelected(store, plugin, 'chatgpt-a', true)
    assert.equal(creds().accounts.chatgpt.selected, true)
    await setSelected(store, plugin, 'chatgpt-a', false)
    assert.equal('selected' in creds().accounts.chatgpt, false)
    assert.equal(await setSelected(store, plugin, 'chatgpt-zz', true), false)
  })
})

describe('describeAccount', () => {
  const now = 1_700_000_000_000
  it('names the account, its marks and expiry, and holds no token', () => {
    const c = cred('a', { plan: 'plus', selected: true, limitedUntil: now + 5000 })
    const d = describeAccount(plugin, c, now)
    assert.deepEqual(d, {
      id: 'chatgpt-a',
      provider: 'chatgpt',
      label: 'a@example.com',
      email: 'a@example.com',
      plan: 'plus',
      selected: true,
      limited_until: new Date(now + 5000).toISOString(),
      expires_at: new Date(1_800_000_000_000).toISOString(),
      refreshable: true,
    })
    assert.doesNotMatch(JSON.stringify(d), /SECRET/)
  })

  it('a limit in the past, an unknown expiry and no refresh token', () => {
    const c = { sub: 'b', access: 'at-SECRET', limitedUntil: now - 1 }
    assert.deepEqual(describeAccount(plugin, c, now), {
      id: 'chatgpt-b',
      provider: 'chatgpt',
      label: null,
      email: null,
      plan: null,
      selected: false,
      limited_until: null,
      expires_at: null,
      refreshable: false,
    })
  })

  it('describeAccounts lists the store key, leaving out entries the plugin cannot name', async () => {
    const picky: SignInPlugin = {
      ...plugin,
      account: (c) => {
        if (typeof c.sub !== 'string') throw new Error('no identity')
        return plugin.account(c)
      },
    }
    writeFileSync(
      join(home, 'creds.json'),
      JSON.stringify({ accounts: { chatgpt: [cred('a'), { junk: 1 }] } }),
    )
    const list = describeAccounts(store.files(), picky, now)
    assert.deepEqual(
      list.map((d) => d.id),
      ['chatgpt-a'],
    )
  })
})
