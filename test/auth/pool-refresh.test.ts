// Refresh under the credential lock, against a real token endpoint on 127.0.0.1 that
// rotates refresh tokens and refuses a used one with 400 invalid_grant.
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { AccountError, listAccounts, saveAccount } from '../../src/auth/accounts.ts'
import { type CredentialFiles, lockedFiles } from '../../src/auth/accounts-store.ts'
import { AccountPool, orderPool } from '../../src/auth/pool.ts'
import {
  SignInError,
  type SignInPlugin,
  type StoredCredential,
} from '../../src/providers/shared/sign-in-plugin.ts'
import { CredentialLock } from '../../src/settings/lock.ts'
import { Settings } from '../../src/settings/service.ts'

/** The provider's token endpoint: one valid refresh token per account, rotated on every use. */
class TokenServer {
  readonly server: Server
  url = ''
  delayMs = 15
  /** account → its one valid refresh token */
  readonly valid = new Map<string, string>()
  readonly refreshes = new Map<string, number>()
  readonly rejected: string[] = []
  inFlight = 0
  maxInFlight = 0
  #n = 0

  constructor() {
    this.server = createServer((req, res) => {
      let body = ''
      req.on('data', (c) => {
        body += c
      })
      req.on('end', async () => {
        this.inFlight++
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight)
        try {
          const token = new URLSearchParams(body).get('refresh_token') ?? ''
          const sub = [...this.valid].find(([, t]) => t === token)?.[0]
          // The provider has rotated the token before the answer leaves.
          const issued = sub === undefined ? null : `rt-${sub}-${++this.#n}`
          if (sub !== undefined && issued) {
            this.valid.set(sub, issued)
            this.refreshes.set(sub, (this.refreshes.get(sub) ?? 0) + 1)
          }
          await new Promise((r) => setTimeout(r, this.delayMs))
          if (sub === undefined || issued === null) {
            this.rejected.push(token)
            res.writeHead(400, { 'content-type': 'application/json' })
            res.end(
              JSON.stringify({ error: 'invalid_grant', error_description: 'refresh token already used' }),
            )
            return
          }
          res.writeHead(200, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ access_token: `at-${issued}`, refresh_token: issued, expires_in: 3600 }))
        } finally {
          this.inFlight--
        }
      })
    })
  }

  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/oauth/token`
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise((r) => this.server.close(r))
  }
}

function fakePlugin(tokenUrl: () => string): SignInPlugin {
  return {
    extension: 'chatgpt',
    label: 'ChatGPT',
    detail: 'Plus or Pro subscription',
    protocol: 'oauth2_pkce',
    accountsKey: 'chatgpt',
    callback: { redirectHost: 'localhost', port: 1455, path: '/auth/callback', fixed: true },
    authorize: () => 'https://auth.example/authorize',
    exchange: async () => ({}),
    account: (c) => ({ id: `chatgpt-${String(c.sub)}`, label: null, email: null, plan: null }),
    expiresAt: (c) => (typeof c.expires === 'number' ? c.expires : null),
    async refresh(c, signal) {
      const r = await fetch(tokenUrl(), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: String(c.refresh),
        }).toString(),
        signal,
      })
      const body = (await r.json()) as Record<string, unknown>
      if (!r.ok) throw new SignInError(String(body.error), 'The provider refused the refresh')
      return {
        sub: c.sub,
        access: body.access_token,
        refresh: body.refresh_token,
        expires: Date.now() + Number(body.expires_in) * 1000,
      }
    },
  }
}

const OTHER = {
  providers: { p: { apiKey: 'sk-keep' } },
  mcp: { srv: { bearerToken: 'bt-keep', headers: { 'X-K': 'h' }, env: { A: 'b' } } },
}
const CLAUDE = [{ access: 'c1', refresh: 'r1' }, { access: 'c2' }]
const CONFIG = '{"providers":{"profiles":{}}}\n'
const EXTENSIONS = '{"extensions":{}}\n'

let home: string
let tokens: TokenServer
let lock: CredentialLock
let store: CredentialFiles
const plugin = fakePlugin(() => tokens.url)
const creds = () => JSON.parse(readFileSync(join(home, 'creds.json'), 'utf8'))
const stored = () => listAccounts(store.files(), 'chatgpt')
const storedOf = (sub: string) => stored().find((c) => c.sub === sub)!

/** Writes the pool (each account's refresh token registered as valid unless `dead`). */
function seed(accounts: StoredCredential[], dead: string[] = []) {
  for (const c of accounts) {
    if (typeof c.refresh === 'string' && !dead.includes(String(c.sub)))
      tokens.valid.set(String(c.sub), c.refresh)
  }
  writeFileSync(
    join(home, 'creds.json'),
    JSON.stringify({
      accounts: { claude: CLAUDE, chatgpt: accounts, 'provider-d': { key: 'pd' } },
      ...OTHER,
    }),
  )
}
const expired = (sub: string, extra: StoredCredential = {}): StoredCredential => ({
  sub,
  access: `at-${sub}-0`,
  refresh: `rt-${sub}-0`,
  expires: Date.now() - 1000,
  ...extra,
})

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'hearth-pool-'))
  writeFileSync(join(home, 'config.json'), CONFIG)
  writeFileSync(join(home, 'extensions.json'), EXTENSIONS)
  tokens = new TokenServer()
  await tokens.start()
  lock = new CredentialLock()
  store = lockedFiles(home, lock)
})
afterEach(async () => {
  await tokens.stop()
  rmSync(home, { recursive: true, force: true })
})

function assertOthersUntouched() {
  const c = creds()
  assert.deepEqual(c.providers, OTHER.providers)
  assert.deepEqual(c.mcp, OTHER.mcp)
  assert.deepEqual(c.accounts.claude, CLAUDE)
  assert.deepEqual(c.accounts['provider-d'], { key: 'pd' })
  assert.equal(readFileSync(join(home, 'config.json'), 'utf8'), CONFIG)
  assert.equal(readFileSync(join(home, 'extensions.json'), 'utf8'), EXTENSIONS)
}

describe('AccountPool refresh under the credential lock', () => {
  it('50 concurrent sessions on expired tokens: one refresh per account, no invalid_grant, no lost token', async () => {
    const subs = ['a', 'b', 'c']
    seed(subs.map((s) => expired(s)))
    const pool = new AccountPool({ settings: store, plugin })
    const sessions = Array.from(
      { length: 50 },
      (_, i) => `0196d1c2-7a4b-7c3d-8e9f-${String(i).padStart(12, '0')}`,
    )
    // Meanwhile other writers change another section; the refreshes must keep their writes.
    const writers = Array.from({ length: 10 }, (_, i) =>
      store.update((files) => {
        const c = files['creds.json']
        const providers = { ...(c.providers as object), [`w${i}`]: { apiKey: `sk-w${i}` } }
        return { 'creds.json': { ...c, providers } }
      }),
    )
    const got = await Promise.all(sessions.map((sessionId) => pool.credentialFor({ sessionId })))
    await Promise.all(writers)

    // Each session got the account its hash picks (the pool order before the refresh).
    const seeded = subs.map((s) => expired(s))
    for (const [i, sessionId] of sessions.entries()) {
      const want = orderPool(seeded, { sessionId, now: Date.now(), idOf: (c) => `chatgpt-${c.sub}` })[0]
      assert.equal(got[i].id, `chatgpt-${want.sub}`)
    }
    assert.deepEqual(new Set(got.map((g) => g.id)), new Set(['chatgpt-a', 'chatgpt-b', 'chatgpt-c']))

    assert.deepEqual(tokens.rejected, [], 'a refresh token was used twice')
    for (const s of subs) assert.equal(tokens.refreshes.get(s), 1, `account ${s} refreshed more than once`)
    assert.equal(tokens.maxInFlight, 1)
    for (const s of subs) {
      const c = storedOf(s)
      assert.equal(c.refresh, tokens.valid.get(s), `account ${s} lost its newest refresh token`)
      assert.ok(Number(c.expires) > Date.now() + 60_000)
      // every session on this account got the one refreshed credential
      for (const g of got.filter((g) => g.id === `chatgpt-${s}`)) assert.equal(g.credential.access, c.access)
    }
    const providers = creds().providers
    for (let i = 0; i < 10; i++) assert.deepEqual(providers[`w${i}`], { apiKey: `sk-w${i}` })
    assert.deepEqual(providers.p, OTHER.providers.p)
    assert.deepEqual(creds().mcp, OTHER.mcp)
    assert.deepEqual(creds().accounts.claude, CLAUDE)
  })

  it('later rounds reuse the fresh token; each expiry refreshes once more, rotating', async () => {
    seed([expired('a')])
    const pool = new AccountPool({ settings: store, plugin })
    for (let round = 1; round <= 3; round++) {
      await Promise.all(Array.from({ length: 10 }, (_, i) => pool.credentialFor({ sessionId: `s${i}` })))
      await Promise.all(Array.from({ length: 10 }, (_, i) => pool.credentialFor({ sessionId: `t${i}` })))
      assert.equal(tokens.refreshes.get('a'), round)
      assert.equal(storedOf('a').refresh, tokens.valid.get('a'))
      // let it run out again (by hand, as time would)
      await store.update((files) => {
        const c = structuredClone(files['creds.json']) as any
        c.accounts.chatgpt.expires = Date.now() + 30_000 // inside the 60 s lead
        return { 'creds.json': c }
      })
    }
    assert.deepEqual(tokens.rejected, [])
    assertOthersUntouched()
  })

  it('a dead refresh token falls through to a sibling and the dead account is kept as it was', async () => {
    const a = expired('a', { selected: true }) // tried first
    seed([a, expired('b')], ['a'])
    const pool = new AccountPool({ settings: store, plugin })
    const got = await pool.credentialFor({ sessionId: 's-1' })
    assert.equal(got.id, 'chatgpt-b')
    assert.deepEqual(tokens.rejected, ['rt-a-0'])
    assert.deepEqual(storedOf('a'), a)
    assert.equal(storedOf('b').refresh, tokens.valid.get('b'))
    assertOthersUntouched()
  })

  it('keeps selected and limit marks through a refresh', async () => {
    seed([expired('a', { selected: true, limitedMeters: { gemini: 1 } })])
    await new AccountPool({ settings: store, plugin }).credentialFor({ sessionId: 'x' })
    const a = storedOf('a')
    assert.equal(a.selected, true)
    assert.deepEqual(a.limitedMeters, { gemini: 1 })
    assert.equal(a.refresh, tokens.valid.get('a'))
  })

  it('every account dead: no_usable_account naming each, ending in run /login', async () => {
    seed([expired('a'), expired('b')], ['a', 'b'])
    const pool = new AccountPool({ settings: store, plugin })
    await assert.rejects(pool.credentialFor({ sessionId: 's' }), (err: unknown) => {
      assert.ok(err instanceof AccountError)
      assert.equal(err.code, 'no_usable_account')
      assert.match(err.message, /chatgpt-a: invalid_grant/)
      assert.match(err.message, /chatgpt-b: invalid_grant/)
      assert.match(err.message, /run \/login$/)
      assert.doesNotMatch(err.message, /rt-/)
      return true
    })
  })

  it('an expired account without a refresh token is skipped; one still valid inside the lead is used', async () => {
    const now = Date.now()
    seed([
      { sub: 'a', access: 'at-a', expires: now - 1, selected: true },
      { sub: 'b', access: 'at-b', expires: now + 30_000 },
    ])
    const pool = new AccountPool({ settings: store, plugin })
    const got = await pool.credentialFor({ sessionId: 's' })
    assert.equal(got.id, 'chatgpt-b')
    assert.equal(got.credential.access, 'at-b')
    assert.equal(tokens.refreshes.size, 0)
  })

  it('a valid token is used without the lock or the network', async () => {
    seed([{ sub: 'a', access: 'at-a', refresh: 'rt-a-0', expires: Date.now() + 3_600_000 }])
    let release!: () => void
    const held = lock.run(() => new Promise<void>((r) => (release = r)))
    const got = await new AccountPool({ settings: store, plugin }).credentialFor({ sessionId: 's' })
    assert.equal(got.credential.access, 'at-a')
    release()
    await held
  })

  it('empty pool: signed_out; bound account: exactly it, or account_not_found', async () => {
    const pool = new AccountPool({ settings: store, plugin })
    await assert.rejects(pool.credentialFor({ sessionId: 's' }), (e: unknown) => {
      return e instanceof AccountError && e.code === 'signed_out' && e.message.endsWith('run /login')
    })
    await assert.rejects(pool.credentialFor({ accountId: 'chatgpt-a' }), { code: 'account_not_found' })
    seed([expired('a', { selected: true }), expired('b')])
    assert.equal((await pool.credentialFor({ sessionId: 's', accountId: 'chatgpt-b' })).id, 'chatgpt-b')
    assert.equal(tokens.refreshes.get('a'), undefined)
    await assert.rejects(pool.credentialFor({ accountId: 'chatgpt-zz' }), { code: 'account_not_found' })
  })

  it('a bound account that cannot refresh does not rotate to a sibling', async () => {
    seed([expired('a'), expired('b')], ['a'])
    const pool = new AccountPool({ settings: store, plugin })
    await assert.rejects(pool.credentialFor({ accountId: 'chatgpt-a' }), (e: unknown) => {
      return (
        e instanceof AccountError &&
        e.code === 'no_usable_account' &&
        /chatgpt-a: invalid_grant/.test(e.message)
      )
    })
    assert.equal(tokens.refreshes.get('b'), undefined)
  })

  /** Starts `pending` while the lock is held, sets accounts.chatgpt as another holder would, then releases. */
  async function whileWaiting(pending: () => Promise<unknown>, chatgpt: StoredCredential) {
    let release!: () => void
    const held = lock.run(() => new Promise<void>((r) => (release = r)))
    const result = pending()
    await new Promise((r) => setTimeout(r, 20))
    writeFileSync(
      join(home, 'creds.json'),
      JSON.stringify({ ...creds(), accounts: { ...creds().accounts, chatgpt } }),
    )
    release()
    await held
    return result
  }

  const pool = () => new AccountPool({ settings: store, plugin })

  it('an account refreshed or signed in again while a caller waited is used as stored', async () => {
    seed([expired('a')])
    const fresh = { sub: 'a', access: 'at-login', refresh: 'rt-login', expires: Date.now() + 3_600_000 }
    const got = (await whileWaiting(() => pool().credentialFor({ sessionId: 's' }), fresh)) as any
    assert.equal(got.credential.access, 'at-login')
    assert.equal(tokens.refreshes.size, 0)
  })

  it('a newer refresh token whose access token is inside the lead but unexpired is used without refreshing', async () => {
    seed([expired('a')])
    const newer = { sub: 'a', access: 'at-other', refresh: 'rt-other', expires: Date.now() + 30_000 }
    const got = (await whileWaiting(() => pool().credentialFor({ sessionId: 's' }), newer)) as any
    assert.equal(got.credential.access, 'at-other')
    assert.equal(tokens.refreshes.size, 0)
  })

  it('a newer credential that is already expired is refreshed with its own (newest) refresh token', async () => {
    seed([expired('a')])
    tokens.valid.set('a', 'rt-login')
    const stale = { sub: 'a', access: 'at-login', refresh: 'rt-login', expires: 1 }
    const got = (await whileWaiting(() => pool().credentialFor({ sessionId: 's' }), stale)) as any
    assert.equal(tokens.refreshes.get('a'), 1)
    assert.deepEqual(tokens.rejected, [])
    assert.equal(got.credential.refresh, tokens.valid.get('a'))
    assert.equal(storedOf('a').refresh, tokens.valid.get('a'))
  })

  it('an account removed while a caller waited is skipped', async () => {
    seed([expired('a')])
    let release!: () => void
    const held = lock.run(() => new Promise<void>((r) => (release = r)))
    const pending = pool().credentialFor({ sessionId: 's' })
    await new Promise((r) => setTimeout(r, 20))
    writeFileSync(join(home, 'creds.json'), JSON.stringify({ ...OTHER }))
    release()
    await held
    await assert.rejects(
      pending,
      (e: unknown) => e instanceof AccountError && /chatgpt-a: removed/.test(e.message),
    )
    assert.equal(tokens.refreshes.size, 0)
  })

  it('a caller that gives up while waiting leaves at once and refreshes nothing', async () => {
    seed([expired('a')])
    let release!: () => void
    const held = lock.run(() => new Promise<void>((r) => (release = r)))
    const ac = new AbortController()
    const pending = new AccountPool({ settings: store, plugin }).credentialFor({
      sessionId: 's',
      signal: ac.signal,
    })
    await new Promise((r) => setTimeout(r, 10))
    ac.abort()
    await assert.rejects(pending, { name: 'AbortError' })
    release()
    await held
    await lock.run(() => undefined) // the abandoned turn has run
    assert.equal(tokens.refreshes.size, 0)
    assert.equal(storedOf('a').refresh, 'rt-a-0')
  })

  it('a caller that gives up mid-refresh does not lose the rotated refresh token', async () => {
    seed([expired('a')])
    tokens.delayMs = 150
    const ac = new AbortController()
    const pool = new AccountPool({ settings: store, plugin })
    const pending = pool.credentialFor({ sessionId: 's', signal: ac.signal })
    await new Promise((r) => setTimeout(r, 50))
    assert.equal(tokens.refreshes.get('a'), 1) // the provider has rotated it
    ac.abort()
    await assert.rejects(pending, { name: 'AbortError' })
    await lock.run(() => undefined) // the refresh finishes and commits under the lock
    assert.equal(storedOf('a').refresh, tokens.valid.get('a'))
    tokens.delayMs = 0
    const next = await pool.credentialFor({ sessionId: 's' })
    assert.equal(next.credential.refresh, tokens.valid.get('a'))
    assert.deepEqual(tokens.rejected, [])
  })

  it('a refresh that outlasts the timeout releases the lock and the sibling is tried', async () => {
    seed([expired('a', { selected: true }), { sub: 'b', access: 'at-b', expires: Date.now() + 3_600_000 }])
    tokens.delayMs = 500
    const pool = new AccountPool({ settings: store, plugin, refreshTimeoutMs: 50 })
    const got = await pool.credentialFor({ sessionId: 's' })
    assert.equal(got.id, 'chatgpt-b')
    assert.equal(storedOf('a').refresh, 'rt-a-0')
  })

  it('works through Settings sharing the one lock with other settings writes', async () => {
    const settings = new Settings({ home, lock, etagKey: Buffer.alloc(32, 1) })
    seed([expired('a'), expired('b')])
    const pool = new AccountPool({ settings, plugin })
    const got = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => pool.credentialFor({ sessionId: `s${i}` })),
      saveAccount(settings, plugin, {
        sub: 'c',
        access: 'at-c',
        refresh: 'rt-c',
        expires: Date.now() + 3_600_000,
      }),
    ])
    assert.equal(got.length, 21)
    assert.deepEqual(tokens.rejected, [])
    for (const s of ['a', 'b']) {
      assert.ok((tokens.refreshes.get(s) ?? 0) <= 1)
      if (tokens.refreshes.get(s)) assert.equal(storedOf(s).refresh, tokens.valid.get(s))
    }
    assert.deepEqual(
      stored().map((c) => c.sub),
      ['a', 'b', 'c'],
    )
    assertOthersUntouched()
  })
})
