import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict'
import { afterEach, beforeEach, describe, test } from 'node:test'
import {
  antigravityConfig,
  antigravitySignIn,
  identityOf,
} from '../../../src/providers/antigravity/signin.ts'
import {
  FakeAntigravityBackend,
  type FakeGoogleUser,
  s256,
  VERIFY_URL,
} from '../../fakes/antigravity-backend.ts'
import { refusal } from './helpers.ts'

const NOW = 1_767_225_600_000
const REDIRECT = 'http://127.0.0.1:51121/oauth-callback'
const VERIFIER = 'v'.repeat(43)
let fake: FakeAntigravityBackend

beforeEach(async () => {
  fake = await FakeAntigravityBackend.start()
})
afterEach(() => fake.close())

function plugin(extra: { onboardTries?: number } = {}) {
  return antigravitySignIn({
    ...antigravityConfig({
      HEARTH_ANTIGRAVITY_TOKEN_URL: fake.tokenUrl,
      HEARTH_ANTIGRAVITY_BASE_URL: fake.url,
    }),
    userAgent: async () => 'antigravity/hub/9.9.9',
    now: () => NOW,
    onboardDelayMs: 1,
    ...extra,
  })
}

async function signIn(user: FakeGoogleUser, extra: { onboardTries?: number } = {}) {
  const progress: string[] = []
  const code = fake.authorize(user, s256(VERIFIER), REDIRECT)
  const credential = await plugin(extra).exchange({
    code,
    redirectUri: REDIRECT,
    state: 'state-1',
    verifier: VERIFIER,
    progress: (t) => progress.push(t),
    signal: new AbortController().signal,
  })
  return { credential, progress }
}

describe('authorize', () => {
  test('Google authorize URL: client, loopback redirect, scopes, PKCE S256, offline consent', () => {
    const url = new URL(
      plugin().authorize({ redirectUri: REDIRECT, state: 'st', verifier: VERIFIER, challenge: 'ch' }),
    )
    strictEqual(url.origin + url.pathname, 'https://accounts.google.com/o/oauth2/v2/auth')
    const q = Object.fromEntries(url.searchParams)
    deepStrictEqual(q, {
      client_id: '1071006060591-tmhssin2h21lcre235vtolojh4g403ep.apps.googleusercontent.com',
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope:
        'https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/userinfo.email https://www.googleapis.com/auth/userinfo.profile https://www.googleapis.com/auth/cclog https://www.googleapis.com/auth/experimentsandconfigs',
      code_challenge: 'ch',
      code_challenge_method: 'S256',
      state: 'st',
      access_type: 'offline',
      prompt: 'consent',
    })
    ok(!url.toString().includes('+'), 'spaces are %20')
    ok(!url.toString().includes(VERIFIER))
  })

  test('the callback is 127.0.0.1:51121/oauth-callback and may move to another port', () => {
    deepStrictEqual(plugin().callback, {
      redirectHost: '127.0.0.1',
      port: 51121,
      path: '/oauth-callback',
      fixed: false,
    })
  })

  test('the chooser detail states the policy and points to Vertex', () => {
    const detail = plugin().detail
    ok(/terms forbid/.test(detail) && /suspended/.test(detail) && /vertex/i.test(detail), detail)
  })
})

describe('exchange and the project step', () => {
  test('an account with a project: the stored shape, the progress steps', async () => {
    const { credential, progress } = await signIn({ email: 'ada@example.com', project: 'proj-ada' })
    const [token] = fake.tokenRequests
    strictEqual(token.body.grant_type, 'authorization_code')
    strictEqual(token.body.code_verifier, VERIFIER)
    strictEqual(token.body.redirect_uri, REDIRECT)
    deepStrictEqual(Object.keys(credential).sort(), [
      'access',
      'email',
      'expires',
      'projectId',
      'refresh',
      'type',
    ])
    strictEqual(credential.type, 'oauth')
    strictEqual(credential.projectId, 'proj-ada')
    strictEqual(credential.email, 'ada@example.com')
    strictEqual(credential.expires, NOW + 3599_000)
    strictEqual(fake.userOf(String(credential.access))?.email, 'ada@example.com')
    deepStrictEqual(progress, ['exchanging the code', 'reading the account', 'looking up the project'])
    const load = fake.requests.find((r) => r.path === '/v1internal:loadCodeAssist')
    deepStrictEqual(load?.body, {
      metadata: { ideType: 'ANTIGRAVITY', platform: 'PLATFORM_UNSPECIFIED', pluginType: 'GEMINI' },
    })
    strictEqual(load?.headers['user-agent'], 'antigravity/hub/9.9.9')
    strictEqual(load?.headers.authorization, `Bearer ${credential.access}`)
  })

  test('an account without a tier is checked, onboarded and polled until done', async () => {
    const user: FakeGoogleUser = {
      email: 'new@example.com',
      project: null,
      onboardPolls: 2,
      onboardProject: 'managed-42',
    }
    const { credential, progress } = await signIn(user)
    strictEqual(credential.projectId, 'managed-42')
    deepStrictEqual(progress, [
      'exchanging the code',
      'reading the account',
      'looking up the project',
      'checking free-tier eligibility',
      'onboarding the account',
      'onboarding the account (check 2 of 10)',
      'onboarding the account (check 3 of 10)',
    ])
    const onboards = fake.requests.filter((r) => r.path === '/v1internal:onboardUser')
    strictEqual(onboards.length, 3)
    deepStrictEqual(onboards[0].body, {
      tierId: 'free-tier',
      metadata: { ideType: 'ANTIGRAVITY', platform: 'PLATFORM_UNSPECIFIED', pluginType: 'GEMINI' },
    })
  })

  test('onboarding that never finishes fails after its checks', async () => {
    const err = await refusal(
      signIn({ email: 'slow@example.com', project: null, onboardPolls: 9 }, { onboardTries: 3 }),
    )
    strictEqual(err.code, 'onboarding_timed_out')
    strictEqual(fake.requests.filter((r) => r.path === '/v1internal:onboardUser').length, 3)
  })

  test('an account with a tier but no project uses the fallback project, without onboarding', async () => {
    const { credential } = await signIn({ email: 'ws@example.com', project: null, tier: 'standard-tier' })
    strictEqual(credential.projectId, 'rising-fact-p41fc')
    strictEqual(fake.requests.filter((r) => r.path === '/v1internal:onboardUser').length, 0)
  })

  test('verification required (ineligible tier): fails with the whole verification URL', async () => {
    const err = await refusal(signIn({ email: 'v@example.com', project: null, verify: 'tier' }))
    strictEqual(err.code, 'verification_required')
    ok(err.instructions?.endsWith(VERIFY_URL), err.instructions ?? '')
    strictEqual(fake.requests.filter((r) => r.path === '/v1internal:onboardUser').length, 0)
  })

  test('verification required (403 ErrorInfo): the URL from the error metadata, not the help link', async () => {
    const err = await refusal(signIn({ email: 'v@example.com', project: null, verify: 'error' }))
    strictEqual(err.code, 'verification_required')
    ok(err.instructions?.endsWith(VERIFY_URL), err.instructions ?? '')
    ok(err.message.includes('Verify your account to continue.'), err.message)
  })

  test('VALIDATION_REQUIRED without a usable URL: the Google Accounts page', async () => {
    const err = await refusal(signIn({ email: 'v@example.com', project: null, verify: 'error-no-url' }))
    strictEqual(err.code, 'verification_required')
    ok(err.instructions?.endsWith(' https://accounts.google.com/'), err.instructions ?? '')
  })

  test('no userinfo: the account is named by its project', async () => {
    const { credential } = await signIn({ email: 'x@example.com', project: 'proj-x', noUserinfo: true })
    strictEqual(credential.email, undefined)
    strictEqual(identityOf(credential).label, 'proj-x')
  })

  test('a refused code: the vendor code, no code or verifier in the message', async () => {
    const err = await refusal(
      plugin().exchange({
        code: '4/0Anever-issued',
        redirectUri: REDIRECT,
        state: 'state-1',
        verifier: VERIFIER,
        progress: () => {},
        signal: new AbortController().signal,
      }),
    )
    strictEqual(err.code, 'invalid_grant')
    ok(!err.message.includes('4/0Anever-issued') && !err.message.includes(VERIFIER), err.message)
  })
})

describe('account and refresh', () => {
  test('the id follows the email: a new sign-in of the same account replaces it', () => {
    const a = identityOf({ email: 'Ada@Example.com', projectId: 'p1', access: 'a' })
    const b = identityOf({ email: 'ada@example.com', projectId: 'p2', access: 'b' })
    strictEqual(a.id, b.id)
    ok(/^antigravity-[0-9a-f]{16}$/.test(a.id))
    strictEqual(a.label, 'Ada@Example.com')
  })

  test('refresh: a new access token and expiry, the refresh token kept, other fields kept', async () => {
    const tokens = fake.issue({ email: 'r@example.com', project: 'p' })
    const stored = {
      type: 'oauth',
      access: tokens.access_token,
      refresh: tokens.refresh_token,
      expires: 1,
      projectId: 'p',
      email: 'r@example.com',
      selected: true,
    }
    const next = await plugin().refresh(stored, new AbortController().signal)
    ok(next.access !== stored.access && fake.userOf(String(next.access)))
    strictEqual(next.refresh, tokens.refresh_token)
    strictEqual(next.expires, NOW + 3599_000)
    strictEqual(next.projectId, 'p')
    strictEqual(next.selected, true)
    deepStrictEqual(fake.tokenRequests.at(-1)?.body, {
      client_id: '1071006060591-tmhssin2h21lcre235vtolojh4g403ep.apps.googleusercontent.com',
      client_secret: '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',
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
    })
  })

  test('a revoked refresh token is invalid_grant and names no token', async () => {
    const tokens = fake.issue({ email: 'r@example.com', project: 'p' })
    fake.revoke(tokens.refresh_token)
    const err = await refusal(
      plugin().refresh(
        {
          type: 'oauth',
          access: tokens.access_token,
          refresh: tokens.refresh_token,
          expires: 1,
          projectId: 'p',
        },
        new AbortController().signal,
      ),
    )
    strictEqual(err.code, 'invalid_grant')
    ok(err.message.endsWith('sign in again'), err.message)
    ok(!err.message.includes(tokens.refresh_token) && !err.message.includes(tokens.access_token))
  })
})
