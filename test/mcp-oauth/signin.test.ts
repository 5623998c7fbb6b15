// An MCP server's sign-in through the daemon's login resource, against a real
// authorization server (oidc-provider) in front of an SDK MCP server over streamable HTTP:
// discovery from the 401, dynamic registration, PKCE S256 and the resource indicator on
// every request, the browser and manual flows, the registered client used again, the
// reads that show no token, a second login refused while one is under way, a restart,
// and the logout that revokes.
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { v7 as uuidv7 } from 'uuid'
import type { TestDaemon } from '../helpers/daemon.ts'
import {
  assertNoSecretsOutsideCreds,
  daemonWith,
  echoWith,
  ended,
  finishInBrowser,
  getLogin,
  oauthIn,
  putLogin,
  redirectOf,
} from './helpers.ts'
import { type AuthServer, type ProtectedMcp, SCOPE, startAuthServer, startProtectedMcp } from './peers.ts'

describe('MCP sign-in: dynamic registration, browser and manual flows, logout', () => {
  let mcp: ProtectedMcp
  let as: AuthServer
  let d: TestDaemon
  const secrets: string[] = []

  before(async () => {
    mcp = await startProtectedMcp()
    as = await startAuthServer({ resource: mcp.url })
    mcp.issuer = as.issuer
    d = await daemonWith({ remote: { url: mcp.url }, local: { command: 'true' } })
  })
  after(async () => {
    await d?.stop()
    await as?.close()
    await mcp?.close()
  })

  it('GET /auth offers the remote server as mcp:remote, signed out; a local one is not offered', async () => {
    const auth = (await d.request({ path: '/auth' })).json()
    const offered = auth.providers.filter((p: any) => p.extension.startsWith('mcp:'))
    assert.deepEqual(
      offered.map((p: any) => [p.extension, p.status, p.flows, p.protocol]),
      [['mcp:remote', 'signed out', ['browser', 'manual'], 'oauth2_pkce']],
    )
    assert.equal((await putLogin(d, 'mcp:nowhere', 'browser')).json().code, 'unknown_provider')
    const local = await putLogin(d, 'mcp:local', 'browser')
    assert.equal(local.status, 422)
    assert.equal(local.json().code, 'flow_not_offered')
  })

  it('browser flow: discovery from the 401, dynamic registration, PKCE and the resource, tokens saved', async () => {
    const id = uuidv7()
    const created = await putLogin(d, 'mcp:remote', 'browser', id)
    assert.equal(created.status, 201, created.text())
    const login = created.json()
    assert.equal(login.state, 'waiting')
    const deadline = Date.parse(login.expires_at) - Date.now()
    assert.ok(deadline > 4.5 * 60_000 && deadline <= 5 * 60_000, 'five minutes to finish')
    assert.ok(mcp.refused >= 1, 'the probe met the 401')
    assert.equal(as.seen.registrations, 1)
    const authorize = new URL(login.url)
    assert.equal(authorize.origin, as.issuer)
    assert.equal(authorize.searchParams.get('resource'), mcp.url)
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256')
    assert.equal(authorize.searchParams.get('scope'), SCOPE, 'the scope of the challenge')
    assert.match(redirectOf(login.url), /^http:\/\/127\.0\.0\.1:\d+\/callback$/)
    const page = await finishInBrowser(login.url)
    assert.equal(page.status, 200)
    const done = await ended(d, id)
    assert.equal(done.state, 'complete', JSON.stringify(done))
    assert.deepEqual(
      done.accounts.map((a: any) => [a.id, a.provider, a.refreshable]),
      [['mcp:remote', 'mcp:remote', true]],
    )
    const code = as.seen.token.find((t) => t.grant_type === 'authorization_code')
    assert.deepEqual(code && [code.resource, code.code_verifier], [mcp.url, true])
    const stored = oauthIn(d.home, 'remote')
    assert.equal(stored.client.registration, 'dynamic')
    assert.equal(stored.resource, mcp.url)
    assert.equal(stored.authorization_server, as.issuer)
    assert.equal(typeof stored.tokens.signed_in_at, 'string')
    secrets.push(stored.tokens.access_token, stored.tokens.refresh_token)
    assert.equal(
      await echoWith(mcp.url, stored.tokens.access_token),
      'echo: hi',
      'the token opens the server',
    )
  })

  it('reads show the sign-in, never a token', async () => {
    const auth = await d.request({ path: '/auth' })
    const remote = auth.json().providers.find((p: any) => p.extension === 'mcp:remote')
    assert.equal(remote.status, 'signed in')
    const settings = await d.request({ path: '/settings?group=mcp' })
    const oauth = settings.json().settings.servers.remote.oauth
    assert.equal(oauth.signed_in, true)
    assert.equal(oauth.scope, SCOPE)
    assert.ok(Date.parse(oauth.expires_at) > Date.now())
    assert.equal(settings.json().settings.servers.local.oauth, null)
    for (const body of [auth.text(), settings.text(), (await d.request({ path: '/settings' })).text()])
      for (const s of secrets) assert.ok(!body.includes(s))
  })

  it('manual flow: the pasted address completes it, with the registered client used again', async () => {
    const id = uuidv7()
    const login = (await putLogin(d, 'mcp:remote', 'manual', id)).json()
    assert.equal(login.state, 'waiting')
    const redirect = await (await import('../auth/oidc-peer.ts')).signInAtProvider(
      login.url,
      'bob',
      redirectOf(login.url),
    )
    const read = await d.request({ path: `/auth/logins/${id}` })
    const answered = await d.request({
      method: 'PATCH',
      path: `/auth/logins/${id}`,
      headers: { 'content-type': 'application/merge-patch+json', 'if-match': read.headers.etag as string },
      body: JSON.stringify({ response: redirect }),
    })
    assert.equal(answered.json().state, 'complete', answered.text())
    assert.equal(as.seen.registrations, 1, 'no second registration')
    const stored = oauthIn(d.home, 'remote')
    secrets.push(stored.tokens.access_token, stored.tokens.refresh_token)
    assert.equal(await echoWith(mcp.url, stored.tokens.access_token), 'echo: hi')
  })

  it('the registered port busy: the login listens elsewhere and registers again', async () => {
    const port = Number(new URL(oauthIn(d.home, 'remote').client.redirect_uri).port)
    const blocker = createServer()
    await new Promise<void>((r) => blocker.listen(port, '127.0.0.1', r))
    try {
      const login = (await putLogin(d, 'mcp:remote', 'browser')).json()
      assert.equal(login.state, 'waiting')
      assert.notEqual(new URL(redirectOf(login.url)).port, String(port))
      assert.equal(as.seen.registrations, 2)
      const kept = oauthIn(d.home, 'remote')
      assert.ok(kept.tokens, 'the sign-in stays until a new one completes')
      assert.equal(Number(new URL(kept.client.redirect_uri).port), port, 'with the client that obtained it')
      await d.request({ method: 'DELETE', path: `/auth/logins/${login.id}` })
    } finally {
      blocker.close()
    }
  })

  it('a second login to the same server while one is under way is 409 login_conflict', async () => {
    const [a, b] = await Promise.all([
      putLogin(d, 'mcp:remote', 'browser'),
      putLogin(d, 'mcp:remote', 'browser'),
    ])
    const statuses = [a.status, b.status].sort()
    assert.deepEqual(statuses, [201, 409])
    const loser = a.status === 409 ? a : b
    const winner = a.status === 201 ? a : b
    assert.equal(loser.json().code, 'login_conflict')
    const id = winner.json().id
    await d.request({ method: 'DELETE', path: `/auth/logins/${id}` })
    assert.equal((await getLogin(d, id)).state, 'cancelled')
    const again = await putLogin(d, 'mcp:remote', 'manual')
    assert.equal(again.status, 201, 'free again once cancelled')
    await d.request({ method: 'DELETE', path: `/auth/logins/${again.json().id}` })
  })

  it('logout revokes the tokens at the authorization server and deletes them; the client stays', async () => {
    const before = oauthIn(d.home, 'remote')
    const gone = await d.request({ method: 'DELETE', path: '/auth/accounts/mcp:remote' })
    assert.equal(gone.status, 204, gone.text())
    assert.ok(as.seen.revocations >= 1)
    const after = oauthIn(d.home, 'remote')
    assert.equal(after.tokens, undefined)
    assert.equal(after.client.client_id, before.client.client_id)
    // The revoked refresh token no longer refreshes.
    const refused = await fetch(`${as.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: before.tokens.refresh_token,
        client_id: before.client.client_id,
        resource: mcp.url,
      }),
    })
    assert.equal(refused.status, 400)
    assert.equal(((await refused.json()) as any).error, 'invalid_grant')
    const again = await d.request({ method: 'DELETE', path: '/auth/accounts/mcp:remote' })
    assert.equal(again.status, 404)
    const settings = (await d.request({ path: '/settings?group=mcp' })).json()
    assert.equal(settings.settings.servers.remote.oauth.signed_in, false)
  })

  it('a login waiting when the daemon stops reads daemon_restarted after the restart', async () => {
    const id = uuidv7()
    assert.equal((await putLogin(d, 'mcp:remote', 'browser', id)).status, 201)
    await d.stop()
    const { startDaemon } = await import('../helpers/daemon.ts')
    d = await startDaemon({ home: d.home })
    const login = await getLogin(d, id)
    assert.deepEqual([login.state, login.failure], ['failed', 'daemon_restarted'])
  })

  it('no token reached the log, the store or any other file', () => {
    assert.ok(secrets.length >= 4)
    assertNoSecretsOutsideCreds(d.home, secrets)
  })
})

describe('MCP sign-in: the eight-login limit is shared with the providers', () => {
  let mcp: ProtectedMcp
  let as: AuthServer
  let d: TestDaemon

  before(async () => {
    mcp = await startProtectedMcp()
    as = await startAuthServer({ resource: mcp.url })
    mcp.issuer = as.issuer
    const servers = Object.fromEntries([...Array(9).keys()].map((i) => [`s${i}`, { url: mcp.url }]))
    d = await daemonWith(servers)
  })
  after(async () => {
    await d?.stop()
    await as?.close()
    await mcp?.close()
  })

  it('eight unfinished logins to eight servers; the ninth is 429 too_many_logins', async () => {
    for (let i = 0; i < 8; i++) assert.equal((await putLogin(d, `mcp:s${i}`, 'manual')).status, 201)
    const ninth = await putLogin(d, 'mcp:s8', 'manual')
    assert.equal(ninth.status, 429)
    assert.equal(ninth.json().code, 'too_many_logins')
  })
})
