import { deepStrictEqual, ok, rejects, strictEqual } from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { afterEach, beforeEach, describe, test } from 'node:test'
import { CHATGPT_DEFAULTS, chatgptAccountId, chatgptSignIn } from '../../../src/providers/chatgpt/signin.ts'
import {
  type BrowserPlugin,
  SignInError,
  type StoredCredential,
} from '../../../src/providers/shared/sign-in-plugin.ts'
import { FakeChatgptBackend, type FakeSeat, fakeJwt, s256 } from '../../fakes/chatgpt-backend.ts'

const NOW = 1_900_000_000_000
const REDIRECT = 'http://localhost:1455/auth/callback'
const ALICE: FakeSeat = {
  accountId: 'ws-acme',
  userId: 'user-alice',
  email: 'alice@example.com',
  plan: 'plus',
}
const BOB: FakeSeat = { accountId: 'ws-acme', userId: 'user-bob', email: 'bob@example.com', plan: 'business' }
const ALICE_HOME: FakeSeat = {
  accountId: 'ws-alice',
  userId: 'user-alice',
  email: 'alice@example.com',
  plan: 'pro',
}

let fake: FakeChatgptBackend
let plugin: BrowserPlugin

beforeEach(async () => {
  fake = await FakeChatgptBackend.start()
  plugin = chatgptSignIn({ ...CHATGPT_DEFAULTS, issuer: fake.url, now: () => NOW })
})
afterEach(async () => {
  await fake.close()
})

function pkce() {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: s256(verifier) }
}

/** The browser step at the fake, then the plugin's exchange. */
async function signIn(seat: FakeSeat, progress: string[] = []) {
  const { verifier, challenge } = pkce()
  const code = fake.authorize(seat, challenge, REDIRECT)
  const credential = await plugin.exchange({
    code,
    redirectUri: REDIRECT,
    state: 'state-1',
    verifier,
    progress: (t) => progress.push(t),
    signal: new AbortController().signal,
  })
  return { credential, code, verifier }
}

/** Asserts a SignInError with `code` whose message holds none of `secrets`. */
async function refused(promise: Promise<unknown>, code: string, secrets: string[]): Promise<SignInError> {
  let caught: unknown
  await rejects(
    promise.catch((err) => {
      caught = err
      throw err
    }),
  )
  ok(caught instanceof SignInError, `expected SignInError, got ${String(caught)}`)
  strictEqual(caught.code, code, caught.message)
  for (const secret of secrets)
    ok(!caught.message.includes(secret), `message leaks a secret: ${caught.message}`)
  ok(!/eyJ[\w-]+\.[\w-]+/.test(caught.message), `message holds a JWT: ${caught.message}`)
  return caught
}

describe('plugin facts', () => {
  test('extension, store key, labels and the fixed loopback callback', () => {
    const p = chatgptSignIn(CHATGPT_DEFAULTS)
    strictEqual(p.extension, 'chatgpt')
    strictEqual(p.accountsKey, 'chatgpt')
    strictEqual(p.label, 'ChatGPT')
    strictEqual(p.detail, 'Plus, Pro or Business subscription')
    strictEqual(p.protocol, 'oauth2_pkce')
    deepStrictEqual(p.callback, {
      redirectHost: 'localhost',
      port: 1455,
      path: '/auth/callback',
      fixed: true,
    })
    deepStrictEqual(
      { ...CHATGPT_DEFAULTS },
      { issuer: 'https://auth.openai.com', clientId: 'app_EMoamEEZ73f0CkXaXp7hrann', port: 1455 },
    )
  })
})

describe('authorize', () => {
  test('the issuer URL with every Codex parameter, originator hearth by default', () => {
    const p = chatgptSignIn(CHATGPT_DEFAULTS)
    const url = new URL(
      p.authorize({
        redirectUri: REDIRECT,
        state: 'state-123',
        verifier: 'v-never-sent',
        challenge: 'ch-abc',
      }),
    )
    strictEqual(`${url.origin}${url.pathname}`, 'https://auth.openai.com/oauth/authorize')
    deepStrictEqual(
      [...url.searchParams],
      [
        ['response_type', 'code'],
        ['client_id', 'app_EMoamEEZ73f0CkXaXp7hrann'],
        ['redirect_uri', REDIRECT],
        ['scope', 'openid profile email offline_access'],
        ['code_challenge', 'ch-abc'],
        ['code_challenge_method', 'S256'],
        ['state', 'state-123'],
        ['id_token_add_organizations', 'true'],
        ['codex_cli_simplified_flow', 'true'],
        ['originator', 'hearth'],
      ],
    )
    ok(!url.href.includes('v-never-sent'), 'the verifier never leaves the daemon')
    ok(url.search.includes('scope=openid%20profile%20email%20offline_access'), url.search)
  })

  test('a chosen originator and an issuer with a trailing slash', () => {
    const p = chatgptSignIn({
      issuer: 'https://issuer.test/',
      clientId: 'app_x',
      port: 1,
      originator: 'hearth_dev',
    })
    const url = new URL(
      p.authorize({
        redirectUri: 'http://localhost:1/auth/callback',
        state: 's',
        verifier: 'v',
        challenge: 'c',
      }),
    )
    strictEqual(`${url.origin}${url.pathname}`, 'https://issuer.test/oauth/authorize')
    strictEqual(url.searchParams.get('originator'), 'hearth_dev')
    strictEqual(url.searchParams.get('client_id'), 'app_x')
  })
})

describe('exchange', () => {
  test('stores tokens, expiry and identity from the claims', async () => {
    const progress: string[] = []
    const { credential, code, verifier } = await signIn(ALICE, progress)
    deepStrictEqual(Object.keys(credential).sort(), [
      'access',
      'account_id',
      'email',
      'expires',
      'id_token',
      'plan',
      'refresh',
      'type',
      'user_id',
    ])
    strictEqual(credential.type, 'oauth')
    ok(typeof credential.access === 'string' && credential.access.split('.').length === 3)
    ok(typeof credential.refresh === 'string' && credential.refresh.startsWith('rt_'))
    ok(typeof credential.id_token === 'string')
    strictEqual(credential.expires, NOW + 3600 * 1000)
    strictEqual(credential.account_id, 'ws-acme')
    strictEqual(credential.user_id, 'user-alice')
    strictEqual(credential.email, 'alice@example.com')
    strictEqual(credential.plan, 'plus')
    strictEqual(plugin.expiresAt(credential), NOW + 3600 * 1000)
    strictEqual(progress[0], 'exchanging the code')
    // The wire: one form-encoded authorization_code grant.
    strictEqual(fake.tokenRequests.length, 1)
    const [sent] = fake.tokenRequests
    strictEqual(sent.contentType, 'application/x-www-form-urlencoded')
    deepStrictEqual(sent.body, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: CHATGPT_DEFAULTS.clientId,
      code_verifier: verifier,
    })
  })

  test('without expires_in the access token exp is the expiry', async () => {
    fake.expiresIn = null
    const { credential } = await signIn(ALICE)
    const exp = JSON.parse(Buffer.from(String(credential.access).split('.')[1], 'base64url').toString()).exp
    strictEqual(credential.expires, exp * 1000)
  })

  test('the account id hashes workspace and seat: same seat same id, other seat other id', async () => {
    const first = plugin.account((await signIn(ALICE)).credential)
    const again = plugin.account((await signIn(ALICE)).credential)
    const bob = plugin.account((await signIn(BOB)).credential)
    const home = plugin.account((await signIn(ALICE_HOME)).credential)
    const expected = createHash('sha256').update('ws-acme:user-alice').digest('hex').slice(0, 16)
    deepStrictEqual(first, {
      id: `chatgpt-${expected}`,
      label: 'alice@example.com',
      email: 'alice@example.com',
      plan: 'plus',
    })
    strictEqual(again.id, first.id)
    ok(bob.id !== first.id, 'another seat of the workspace is another account')
    ok(home.id !== first.id, 'the same user in another workspace is another account')
    for (const a of [first, bob, home]) ok(/^chatgpt-[0-9a-f]{16}$/.test(a.id), a.id)
    deepStrictEqual(bob, { id: bob.id, label: 'bob@example.com', email: 'bob@example.com', plan: 'business' })
  })

  test('a wrong verifier is refused without echoing code or verifier', async () => {
    const { challenge } = pkce()
    const code = fake.authorize(ALICE, challenge, REDIRECT)
    const wrong = randomBytes(32).toString('base64url')
    await refused(
      plugin.exchange({
        code,
        redirectUri: REDIRECT,
        state: 'state-1',
        verifier: wrong,
        progress: () => {},
        signal: AbortSignal.timeout(5000),
      }),
      'invalid_grant',
      [code, wrong],
    )
  })

  test('a used code is refused; the message hides the code the issuer echoed', async () => {
    const { verifier, challenge } = pkce()
    const code = fake.authorize(ALICE, challenge, REDIRECT)
    const input = {
      code,
      redirectUri: REDIRECT,
      state: 'state-1',
      verifier,
      progress: () => {},
      signal: AbortSignal.timeout(5000),
    }
    await plugin.exchange(input)
    const err = await refused(plugin.exchange(input), 'invalid_grant', [code, verifier])
    ok(err.message.includes('[redacted]'), err.message)
    ok(err.message.includes('HTTP 400'), err.message)
  })

  test('an unreachable issuer is a SignInError; an aborted one rejects with the abort', async () => {
    const down = chatgptSignIn({ ...CHATGPT_DEFAULTS, issuer: 'http://127.0.0.1:9' })
    const input = {
      code: 'code-1234',
      redirectUri: REDIRECT,
      state: 'state-1',
      verifier: 'verifier-1234',
      progress: () => {},
    }
    await refused(down.exchange({ ...input, signal: AbortSignal.timeout(5000) }), 'unreachable', [
      'code-1234',
      'verifier-1234',
    ])
    const ctrl = new AbortController()
    ctrl.abort()
    await rejects(
      plugin.exchange({ ...input, signal: ctrl.signal }),
      (err: Error) => !(err instanceof SignInError),
    )
  })
})

describe('refresh', () => {
  test('rotates the refresh token; the old one then fails with invalid_grant', async () => {
    const { credential } = await signIn(ALICE)
    const signal = AbortSignal.timeout(5000)
    ALICE.plan = 'pro'
    try {
      const next = await plugin.refresh(credential, signal)
      ok(next !== credential, 'a new object')
      ok(next.refresh !== credential.refresh, 'a new refresh token')
      ok(next.access !== credential.access, 'a new access token')
      ok(next.id_token !== credential.id_token, 'a new id token')
      strictEqual(next.plan, 'pro', 'claims are read again')
      strictEqual(next.account_id, 'ws-acme')
      strictEqual(next.expires, NOW + 3600 * 1000)
      strictEqual(plugin.account(next).id, plugin.account(credential).id)
      // The wire: a JSON refresh_token grant.
      const sent = fake.tokenRequests.at(-1)!
      strictEqual(sent.contentType, 'application/json')
      deepStrictEqual(sent.body, {
        client_id: CHATGPT_DEFAULTS.clientId,
        grant_type: 'refresh_token',
        refresh_token: credential.refresh,
      })
      // Reusing the old one: dead.
      const err = await refused(plugin.refresh(credential, signal), 'invalid_grant', [
        String(credential.refresh),
        String(credential.access),
        String(credential.id_token),
      ])
      ok(err.message.includes('refresh token was already used'), err.message)
      // The new one still works, once.
      const third = await plugin.refresh(next, signal)
      ok(third.refresh !== next.refresh)
      await refused(plugin.refresh(next, signal), 'invalid_grant', [String(next.refresh)])
    } finally {
      ALICE.plan = 'plus'
    }
  })

  test('keeps the refresh token when none comes back, and other stored fields', async () => {
    fake.rotate = false
    const { credential } = await signIn(ALICE)
    const stored: StoredCredential = { ...credential, selected: true }
    const next = await plugin.refresh(stored, AbortSignal.timeout(5000))
    strictEqual(next.refresh, credential.refresh)
    strictEqual(next.selected, true)
    ok(next.access !== credential.access)
  })

  test('without a refresh token, or with an unknown one, the account is dead', async () => {
    const signal = AbortSignal.timeout(5000)
    await refused(plugin.refresh({ type: 'oauth', access: 'a' }, signal), 'invalid_grant', [])
    await refused(
      plugin.refresh({ type: 'oauth', access: 'a', refresh: 'rt_unknown_token' }, signal),
      'invalid_grant',
      ['rt_unknown_token'],
    )
  })
})

describe('reading stored credentials', () => {
  test('identity from the tokens when fields are missing; legacy accountId; expiry from the JWT', () => {
    const access = fakeJwt({
      exp: 1_700_000_000,
      'https://api.openai.com/auth': {
        chatgpt_account_id: 'ws-j',
        chatgpt_user_id: 'u-j',
        chatgpt_plan_type: 'plus',
      },
      'https://api.openai.com/profile': { email: 'j@example.com' },
    })
    const fromTokens = plugin.account({ type: 'oauth', access, refresh: 'r' })
    const fromFields = plugin.account({ type: 'oauth', access: 'opaque', account_id: 'ws-j', user_id: 'u-j' })
    strictEqual(fromTokens.id, fromFields.id)
    deepStrictEqual(fromTokens, {
      id: fromTokens.id,
      label: 'j@example.com',
      email: 'j@example.com',
      plan: 'plus',
    })
    strictEqual(plugin.expiresAt({ access }), 1_700_000_000_000)
    strictEqual(plugin.expiresAt({ access: 'opaque' }), null)
    strictEqual(chatgptAccountId({ accountId: 'ws-legacy', access: 'opaque' }), 'ws-legacy')
    strictEqual(chatgptAccountId({ access }), 'ws-j')
    const legacy = plugin.account({ type: 'oauth', access: 'opaque', accountId: 'ws-legacy' })
    deepStrictEqual(legacy, { id: legacy.id, label: 'ws-legacy', email: null, plan: null })
    ok(/^chatgpt-[0-9a-f]{16}$/.test(plugin.account({}).id))
  })
})
