// The claude provider end to end through the daemon, with the vendor URLs replaced by the
// test hooks (HEARTH_CLAUDE_TOKEN_URL → the fake token endpoint, HEARTH_CLAUDE_BASE_URL →
// the fake upstream's Messages route): GET /auth advertises it with the policy note; the
// sign-in engine finishes by the loopback callback, by a pasted callback URL and by a pasted
// `code#state`, and fails at once when the fixed port is busy; turns use the account's
// token, refresh it under the lock (rotating, once for two sessions), a 401 marks it expired
// and ends in `run /login`, and an account without a refresh token is used until it expires.
import assert from 'node:assert/strict'
import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { v7 as uuidv7 } from 'uuid'
import { type FakeClaudeAccount, FakeClaudeAuth } from '../fakes/claude-auth.ts'
import { FakeOpenAIUpstream } from '../fakes/openai-upstream.ts'
import { startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { idle, message, putInput, waitSession } from '../inputs/helpers.ts'
import { fileJson } from '../settings/helpers.ts'
import { createSession } from '../streams/sse-client.ts'
import { freePort } from './oidc-peer.ts'

const ANN: FakeClaudeAccount = { uuid: 'acc-ann', email: 'ann@example.test' }
const BEN: FakeClaudeAccount = { uuid: 'acc-ben', email: 'ben@example.test' }
const MODEL = 'claude-sonnet-4-5-20250929'

describe('claude through the daemon', () => {
  let auth: FakeClaudeAuth
  let upstream: FakeOpenAIUpstream
  let d: TestDaemon
  let port: number

  before(async () => {
    auth = await FakeClaudeAuth.start()
    upstream = await FakeOpenAIUpstream.start()
    port = await freePort()
    const home = tempHome()
    mkdirSync(home, { recursive: true })
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        providers: {
          default_profile: 'sub',
          profiles: { sub: { extension: 'claude', protocol: 'chat_completions', model: MODEL } },
          sign_in: { claude: { callback_port: port } },
        },
      }),
    )
    d = await startDaemon({
      home,
      env: { HEARTH_CLAUDE_TOKEN_URL: auth.tokenUrl, HEARTH_CLAUDE_BASE_URL: upstream.url },
    })
  })
  after(async () => {
    await d.stop()
    await upstream.close()
    await auth.close()
  })

  const startLogin = async (flow: 'browser' | 'manual') => {
    const id = uuidv7()
    const r = await d.request({
      method: 'PUT',
      path: `/auth/logins/${id}`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'claude', flow, values: {} }),
    })
    assert.equal(r.status, 201, r.text())
    return { id, login: r.json(), etag: String(r.headers.etag), url: new URL(r.json().url) }
  }
  /** The browser step at the fake: the person signs in as `who`; the code the redirect carries. */
  const authorizeAt = (url: URL, who: FakeClaudeAccount) =>
    auth.authorize(
      who,
      url.searchParams.get('code_challenge') as string,
      url.searchParams.get('redirect_uri') as string,
      url.searchParams.get('state') as string,
    )
  const paste = (id: string, etag: string, response: string) =>
    d.request({
      method: 'PATCH',
      path: `/auth/logins/${id}`,
      headers: { 'content-type': 'application/merge-patch+json', 'if-match': etag },
      body: JSON.stringify({ response }),
    })
  const stored = () => {
    const c = fileJson(d.home, 'creds.json').accounts?.claude
    return c === undefined ? [] : Array.isArray(c) ? c : [c]
  }
  const writeAccounts = (accounts: unknown) => {
    const creds = fileJson(d.home, 'creds.json')
    creds.accounts = { ...creds.accounts, claude: accounts }
    const tmp = join(d.home, 'creds.json.hand')
    writeFileSync(tmp, JSON.stringify(creds), { mode: 0o600 })
    renameSync(tmp, join(d.home, 'creds.json'))
  }
  const turn = async (text = 'hello') => {
    const sid = await createSession(d)
    await putInput(d, sid, message(text))
    return waitSession(d, sid, idle)
  }
  const lastError = (s: any) => s.history.items.findLast((e: any) => e.kind === 'error')

  it('GET /auth offers claude with its forms and the policy before any sign-in', async () => {
    const r = await d.request({ method: 'GET', path: '/auth' })
    const claude = r.json().providers.find((p: any) => p.extension === 'claude')
    assert.equal(claude.label, 'Claude')
    assert.deepEqual(claude.flows, ['browser', 'manual'])
    assert.equal(claude.status, 'signed out')
    assert.match(claude.detail, /only in Claude Code and Claude\.ai/)
    assert.match(claude.detail, /Amazon Bedrock/)
    assert.match(claude.detail, /API key/)
  })

  it('a signed-out claude profile fails the turn ending in run /login', async () => {
    const s = await turn()
    assert.equal(lastError(s).content.problem.code, 'signed_out')
    assert.match(lastError(s).content.problem.detail, /run \/login$/)
  })

  it('browser flow: the redirect to localhost:<port>/callback finishes the sign-in', async () => {
    const { id, url } = await startLogin('browser')
    assert.equal(url.origin + url.pathname, 'https://claude.ai/oauth/authorize')
    assert.equal(url.searchParams.get('redirect_uri'), `http://localhost:${port}/callback`)
    const code = authorizeAt(url, ANN)
    const page = await fetch(
      `http://127.0.0.1:${port}/callback?code=${code}&state=${url.searchParams.get('state')}`,
    )
    assert.equal(page.status, 200)
    assert.match(await page.text(), /Signed in to Claude/)
    const done = (await d.request({ method: 'GET', path: `/auth/logins/${id}` })).json()
    assert.equal(done.state, 'complete')
    assert.equal(done.accounts[0].email, ANN.email)
    assert.equal(auth.tokenRequests.at(-1)?.body.state, url.searchParams.get('state'))
    const [c] = stored()
    assert.deepEqual(Object.keys(c).sort(), ['access', 'account_uuid', 'email', 'expires', 'refresh', 'type'])
    assert.equal(c.type, 'oauth')
    assert.ok(c.expires > Date.now())
  })

  it('a pasted callback URL and a pasted code#state both finish a sign-in', async () => {
    const first = await startLogin('manual')
    const code = authorizeAt(first.url, BEN)
    const redirect = `http://localhost:${port}/callback?code=${code}&state=${first.url.searchParams.get('state')}`
    const r1 = await paste(first.id, first.etag, redirect)
    assert.equal(r1.json().state, 'complete', r1.text())
    assert.equal(stored().length, 2, 'another account is appended')

    const second = await startLogin('manual')
    const code2 = authorizeAt(second.url, BEN)
    const r2 = await paste(second.id, second.etag, `${code2}#${second.url.searchParams.get('state')}`)
    assert.equal(r2.json().state, 'complete', r2.text())
    assert.equal(stored().length, 2, 'the same account is replaced, not added')
    assert.ok(!JSON.stringify(r2.json()).includes(code2))
  })

  it('a busy fixed callback port fails the browser sign-in at once', async () => {
    const blocker = createServer()
    await new Promise<void>((r) => blocker.listen(port, '127.0.0.1', r))
    try {
      const { login } = await startLogin('browser')
      assert.equal(login.state, 'failed')
      assert.equal(login.failure, 'callback_port_busy')
      assert.match(login.instructions, new RegExp(`Port ${port} is in use`))
    } finally {
      await new Promise<void>((r) => blocker.close(() => r()))
    }
  })

  it("a turn carries the pool's token for the session", async () => {
    writeAccounts(stored().filter((c) => c.email === ANN.email))
    const s = await turn()
    assert.equal(s.latest_answer.outcome, 'completed', JSON.stringify(lastError(s)))
    const sent = upstream.requests.at(-1)!
    assert.equal(sent.path, '/v1/messages')
    assert.equal(sent.headers.authorization, `Bearer ${stored()[0].access}`)
    assert.equal(sent.body.model, MODEL)
  })

  it('two sessions with a token inside the refresh lead: one rotation, both turns use it', async () => {
    auth.expiresIn = 3600
    const tokens = auth.issue(ANN)
    writeAccounts({
      type: 'oauth',
      access: tokens.access_token,
      refresh: tokens.refresh_token,
      expires: Date.now() + 30_000,
      email: ANN.email,
    })
    const before = auth.tokenRequests.length
    const [a, b] = await Promise.all([turn('one'), turn('two')])
    assert.equal(a.latest_answer.outcome, 'completed', JSON.stringify(lastError(a)))
    assert.equal(b.latest_answer.outcome, 'completed', JSON.stringify(lastError(b)))
    const refreshes = auth.tokenRequests.slice(before).filter((t) => t.body.grant_type === 'refresh_token')
    assert.equal(refreshes.length, 1)
    const [c] = stored()
    assert.notEqual(c.refresh, tokens.refresh_token)
    assert.ok(auth.live(c.access))
    for (const r of upstream.requests.slice(-2)) assert.equal(r.headers.authorization, `Bearer ${c.access}`)
  })

  it('a 401 marks the token expired and ends in run /login; the next turn refreshes and works', async () => {
    const before = stored()[0]
    upstream.enqueue({ status: 401, errorMessage: 'OAuth token has expired' })
    const s = await turn()
    const problem = lastError(s).content.problem
    assert.equal(problem.code, 'upstream_unauthorized')
    assert.match(problem.detail, /run \/login$/)
    await waitFor(() => stored()[0].expires === 0)
    assert.equal(stored()[0].refresh, before.refresh, 'the account is kept')
    const again = await turn()
    assert.equal(again.latest_answer.outcome, 'completed', JSON.stringify(lastError(again)))
    assert.ok(stored()[0].expires > Date.now())
    assert.notEqual(stored()[0].refresh, before.refresh)
  })

  it('a hand-written account without a refresh token is used until it expires, then skipped', async () => {
    writeAccounts({ type: 'oauth', access: 'sk-ant-oat01-hand', expires: Date.now() + 3_600_000 })
    const ok = await turn()
    assert.equal(ok.latest_answer.outcome, 'completed', JSON.stringify(lastError(ok)))
    assert.equal(upstream.requests.at(-1)!.headers.authorization, 'Bearer sk-ant-oat01-hand')
    const accounts = (await d.request({ method: 'GET', path: '/auth' })).json().accounts
    assert.equal(accounts[0].refreshable, false)
    assert.match(accounts[0].id, /^claude-[0-9a-f]{16}$/)

    const before = auth.tokenRequests.length
    writeAccounts({ type: 'oauth', access: 'sk-ant-oat01-hand', expires: Date.now() - 1000 })
    const s = await turn()
    assert.equal(lastError(s).content.problem.code, 'no_usable_account')
    assert.match(lastError(s).content.problem.detail, /run \/login$/)
    assert.equal(auth.tokenRequests.length, before, 'never refreshed')
  })
})

async function waitFor(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 20))
  }
}
