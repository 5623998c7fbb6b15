// The claude sign-in plugin against the fake token endpoint: the authorize URL, the JSON
// exchange with state and verifier, the stored shape, account ids (also of hand-written
// credentials and across rotation), rotating refresh, and messages free of secrets.
import { deepStrictEqual, ok, rejects, strictEqual } from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { afterEach, beforeEach, describe, test } from 'node:test'
import { CLAUDE_CLIENT_ID } from '../../../src/providers/claude/constants.ts'
import {
  CLAUDE_DEFAULTS,
  claudeSignIn,
  claudeTokenUrl,
  identityOf,
} from '../../../src/providers/claude/signin.ts'
import { type BrowserPlugin, SignInError } from '../../../src/providers/shared/sign-in-plugin.ts'
import { s256 } from '../../fakes/chatgpt-backend.ts'
import { type FakeClaudeAccount, FakeClaudeAuth } from '../../fakes/claude-auth.ts'

const NOW = 1_900_000_000_000
const REDIRECT = 'http://localhost:53692/callback'
const ALICE: FakeClaudeAccount = { uuid: 'acc-alice', email: 'alice@example.com' }

let fake: FakeClaudeAuth
let plugin: BrowserPlugin

beforeEach(async () => {
  fake = await FakeClaudeAuth.start()
  plugin = claudeSignIn({ ...CLAUDE_DEFAULTS, tokenUrl: fake.tokenUrl, now: () => NOW })
})
afterEach(() => fake.close())

function pkce() {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: s256(verifier), state: randomBytes(32).toString('base64url') }
}

async function signIn(account = ALICE, progress: string[] = []) {
  const { verifier, challenge, state } = pkce()
  const code = fake.authorize(account, challenge, REDIRECT, state)
  const credential = await plugin.exchange({
    code,
    redirectUri: REDIRECT,
    verifier,
    state,
    progress: (t) => progress.push(t),
    signal: AbortSignal.timeout(5000),
  })
  return { credential, code, verifier }
}

async function refused(p: Promise<unknown>, code: string, secrets: string[]): Promise<SignInError> {
  let caught: unknown
  await rejects(p, (err) => {
    caught = err
    return true
  })
  ok(caught instanceof SignInError, String(caught))
  strictEqual(caught.code, code, caught.message)
  for (const s of secrets) ok(!caught.message.includes(s), `${caught.message} leaks a secret`)
  return caught
}

describe('plugin facts', () => {
  test('extension, store key, fixed loopback callback, policy in the chooser detail', () => {
    const p = claudeSignIn(CLAUDE_DEFAULTS)
    strictEqual(p.extension, 'claude')
    strictEqual(p.accountsKey, 'claude')
    strictEqual(p.protocol, 'oauth2_pkce')
    deepStrictEqual(p.callback, { redirectHost: 'localhost', port: 53692, path: '/callback', fixed: true })
    ok(p.detail.includes('Claude Code and Claude.ai'), p.detail)
    ok(/Bedrock/.test(p.detail) && /API key/.test(p.detail), p.detail)
  })

  test('the token endpoint: HEARTH_CLAUDE_TOKEN_URL, else platform.claude.com', () => {
    strictEqual(claudeTokenUrl({}), 'https://platform.claude.com/v1/oauth/token')
    strictEqual(claudeTokenUrl({ HEARTH_CLAUDE_TOKEN_URL: 'http://127.0.0.1:9/t' }), 'http://127.0.0.1:9/t')
  })
})

describe('authorize', () => {
  test('claude.ai with every parameter; the verifier never in the URL', () => {
    const url = new URL(
      plugin.authorize({ redirectUri: REDIRECT, state: 'st-1', verifier: 'v-secret', challenge: 'ch-1' }),
    )
    strictEqual(`${url.origin}${url.pathname}`, 'https://claude.ai/oauth/authorize')
    deepStrictEqual(
      [...url.searchParams],
      [
        ['code', 'true'],
        ['client_id', CLAUDE_CLIENT_ID],
        ['response_type', 'code'],
        ['redirect_uri', REDIRECT],
        [
          'scope',
          'org:create_api_key user:profile user:inference user:sessions:claude_code user:mcp_servers user:file_upload',
        ],
        ['code_challenge', 'ch-1'],
        ['code_challenge_method', 'S256'],
        ['state', 'st-1'],
      ],
    )
    ok(!url.href.includes('v-secret'))
  })
})

describe('exchange', () => {
  test('JSON with state and verifier; the stored shape; progress', async () => {
    const progress: string[] = []
    const { credential, code, verifier } = await signIn(ALICE, progress)
    const sent = fake.tokenRequests[0]
    strictEqual(sent.contentType, 'application/json')
    deepStrictEqual(Object.keys(sent.body), [
      'grant_type',
      'client_id',
      'code',
      'state',
      'redirect_uri',
      'code_verifier',
    ])
    strictEqual(sent.body.code, code)
    strictEqual(sent.body.code_verifier, verifier)
    ok(String(credential.access).startsWith('sk-ant-oat01-'))
    deepStrictEqual(credential, {
      type: 'oauth',
      access: credential.access,
      refresh: credential.refresh,
      expires: NOW + 3600_000,
      account_uuid: 'acc-alice',
      email: 'alice@example.com',
    })
    deepStrictEqual(progress, ['exchanging the code'])
    const who = plugin.account(credential)
    ok(/^claude-[0-9a-f]{16}$/.test(who.id), who.id)
    deepStrictEqual(who, { id: who.id, label: 'alice@example.com', email: 'alice@example.com', plan: null })
    strictEqual(plugin.expiresAt(credential), NOW + 3600_000)
  })

  test('a wrong state or verifier is refused; nothing secret in the message', async () => {
    const { verifier, challenge, state } = pkce()
    const code = fake.authorize(ALICE, challenge, REDIRECT, state)
    const input = {
      code,
      redirectUri: REDIRECT,
      verifier,
      progress: () => {},
      signal: AbortSignal.timeout(5000),
    }
    await refused(plugin.exchange({ ...input, state: 'another' }), 'invalid_grant', [code, verifier])
    const code2 = fake.authorize(ALICE, challenge, REDIRECT, state)
    const wrong = randomBytes(32).toString('base64url')
    const err = await refused(
      plugin.exchange({ ...input, code: code2, state, verifier: wrong }),
      'invalid_grant',
      [code2, wrong],
    )
    ok(err.message.includes('[redacted]') && err.message.includes('HTTP 400'), err.message)
  })

  test('an answer without a refresh token is invalid_response', async () => {
    const failing = claudeSignIn({
      ...CLAUDE_DEFAULTS,
      tokenUrl: fake.tokenUrl,
      fetch: async () => new Response(JSON.stringify({ access_token: 'sk-ant-oat01-x' }), { status: 200 }),
    })
    await refused(
      failing.exchange({
        code: 'c',
        redirectUri: REDIRECT,
        verifier: 'v',
        state: 's',
        progress: () => {},
        signal: AbortSignal.timeout(5000),
      }),
      'invalid_response',
      [],
    )
  })
})

describe('account ids', () => {
  test('by account uuid, else email, else the refresh token; a pinned id wins', () => {
    const byUuid = identityOf({ access: 'a', refresh: 'r', account_uuid: 'u1', email: 'x@y' }).id
    strictEqual(identityOf({ access: 'b', refresh: 'r2', account_uuid: 'u1' }).id, byUuid)
    const byEmail = identityOf({ access: 'a', refresh: 'r', email: 'Ann@Example.com' })
    strictEqual(identityOf({ access: 'z', refresh: 'q', email: 'ann@example.com' }).id, byEmail.id)
    strictEqual(byEmail.label, 'Ann@Example.com')
    const byToken = identityOf({ type: 'oauth', access: 'a', refresh: 'r', expires: 1 })
    ok(/^claude-[0-9a-f]{16}$/.test(byToken.id))
    strictEqual(byToken.label, byToken.id)
    strictEqual(identityOf({ access: 'a', refresh: 'other', account_id: byToken.id }).id, byToken.id)
  })
})

describe('refresh', () => {
  test('rotates; the old refresh token is then invalid_grant', async () => {
    const { credential } = await signIn()
    const next = await plugin.refresh({ ...credential, selected: true }, AbortSignal.timeout(5000))
    strictEqual(fake.tokenRequests[1].contentType, 'application/json')
    deepStrictEqual(fake.tokenRequests[1].body, {
      grant_type: 'refresh_token',
      client_id: CLAUDE_CLIENT_ID,
      refresh_token: credential.refresh,
    })
    ok(next.access !== credential.access && next.refresh !== credential.refresh)
    strictEqual(next.selected, true, 'other fields are kept')
    strictEqual(plugin.account(next).id, plugin.account(credential).id)
    const err = await refused(plugin.refresh(credential, AbortSignal.timeout(5000)), 'invalid_grant', [
      String(credential.refresh),
      String(credential.access),
    ])
    ok(err.message.endsWith('sign in again'), err.message)
  })

  test('a hand-written credential keeps its id across rotation', async () => {
    fake.withAccount = false
    const tokens = fake.issue(ALICE)
    const hand = { type: 'oauth', access: tokens.access_token, refresh: tokens.refresh_token, expires: 5 }
    const id = plugin.account(hand).id
    const next = await plugin.refresh(hand, AbortSignal.timeout(5000))
    strictEqual(next.account_id, id)
    strictEqual(plugin.account(next).id, id)
    const again = await plugin.refresh(next, AbortSignal.timeout(5000))
    strictEqual(plugin.account(again).id, id)
  })

  test('no refresh token stored: invalid_grant without a request', async () => {
    await refused(
      plugin.refresh({ type: 'oauth', access: 'a' }, AbortSignal.timeout(5000)),
      'invalid_grant',
      [],
    )
    strictEqual(fake.tokenRequests.length, 0)
  })
})

test('a refresh whose answer first names the account uuid keeps the id', async () => {
  fake.withAccount = false
  const { credential } = await signIn()
  fake.withAccount = true
  const hand = { ...credential, email: ALICE.email }
  const next = await plugin.refresh(hand, AbortSignal.timeout(5000))
  strictEqual(next.account_uuid, ALICE.uuid)
  strictEqual(plugin.account(next).id, plugin.account(hand).id)
})
