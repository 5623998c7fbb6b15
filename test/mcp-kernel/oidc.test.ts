// A signed-in server in sessions, end to end with real peers: an authorization server
// (oidc-provider, short-lived JWT access tokens for the MCP server's resource, refresh
// tokens) and an MCP server (the SDK's) that takes only its valid JWTs. Signed in through
// the daemon's sign-in engine, a session's kernel gets the token from the daemon; a token
// about to expire is refreshed (with the resource indicator) and the connection kept; a
// sign-out (revocation) leaves the server needing a sign-in at the next run.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { answer, callTools, toolResultsOf } from '../fakes/tool-script.ts'
import {
  assertNoSecretsOutsideCreds,
  ended,
  finishInBrowser,
  oauthIn,
  putLogin,
} from '../mcp-oauth/helpers.ts'
import { type AuthServer, type ProtectedMcp, startAuthServer, startProtectedMcp } from '../mcp-oauth/peers.ts'
import { change } from '../settings/helpers.ts'
import { type AgentSetup, getSession, newSession, runMessage, startAgent } from '../tools/agent-helpers.ts'

const RUN_MS = 40_000
/** Just over the minute before expiry at which a token is refreshed: it soon needs one. */
const ACCESS_TOKEN_TTL_S = 61

describe('a signed-in server with real peers: refresh and sign-out through a session', () => {
  let s: AgentSetup
  let mcp: ProtectedMcp
  let as: AuthServer
  before(async () => {
    mcp = await startProtectedMcp()
    as = await startAuthServer({ resource: mcp.url, accessTokenTtl: ACCESS_TOKEN_TTL_S })
    mcp.issuer = as.issuer
    s = await startAgent({ tools: { approval_policy: 'auto' }, env: { HEARTH_KERNEL_IDLE_MS: '600000' } })
    await change(s.d, 'mcp', { servers: { prot: { url: mcp.url } } })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
    await mcp.close()
    await as.close()
  })

  it('signed in: calls go through; a token near expiry is refreshed and the connection kept; signed out: a sign-in is needed', async () => {
    const created = await putLogin(s.d, 'mcp:prot', 'browser')
    assert.equal(created.status, 201, created.text())
    const login = created.json()
    assert.equal((await finishInBrowser(login.url)).status, 200)
    assert.equal((await ended(s.d, login.id)).state, 'complete')
    const signedInAt = oauthIn(s.home, 'prot').tokens.signed_in_at
    const tokens = (): string[] => {
      const t = oauthIn(s.home, 'prot').tokens
      return [t.access_token, t.refresh_token]
    }
    const secrets = tokens()

    const sid = await newSession(s)
    s.upstream.enqueue(callTools({ name: 'mcp__prot__echo', arguments: { text: 'first' } }), answer('ok'))
    await runMessage(s, sid, 'first', RUN_MS)
    assert.equal(toolResultsOf(s.upstream.requests[1].body).at(-1)?.output, 'echo: first')
    const since = (await getSession(s.d, sid)).composition.availability['mcp:prot'].since

    // Once the token is within a minute of its expiry, the next request's is a refreshed one.
    const { expires_at } = oauthIn(s.home, 'prot').tokens
    while (expires_at - Date.now() > 60_000)
      await new Promise((r) => setTimeout(r, expires_at - Date.now() - 59_990))
    s.upstream.enqueue(callTools({ name: 'mcp__prot__echo', arguments: { text: 'second' } }), answer('ok'))
    await runMessage(s, sid, 'second', RUN_MS)
    assert.equal(toolResultsOf(s.upstream.requests[3].body).at(-1)?.output, 'echo: second')
    const refreshes = as.seen.token.filter((t) => t.grant_type === 'refresh_token')
    assert.ok(refreshes.length >= 1, 'the token was refreshed')
    assert.ok(
      refreshes.every((t) => t.resource === mcp.url),
      'each refresh names the resource',
    )
    assert.equal(oauthIn(s.home, 'prot').tokens.signed_in_at, signedInAt, 'a refresh keeps the generation')
    secrets.push(...tokens())
    assert.notEqual(secrets[2], secrets[0], 'another access token')
    let read = await getSession(s.d, sid)
    assert.equal(read.composition.availability['mcp:prot'].since, since, 'the connection was kept')
    assert.equal(read.composition.needs_reload, false)

    // Signed out (revoked): the next run connects without a token and is refused.
    const out = await s.d.request({
      method: 'DELETE',
      path: `/auth/accounts/${encodeURIComponent('mcp:prot')}`,
    })
    assert.equal(out.status, 204, out.text())
    s.upstream.enqueue(answer('without it'))
    await runMessage(s, sid, 'third', RUN_MS)
    read = await getSession(s.d, sid)
    const [q] = read.composition.quarantine
    assert.deepEqual({ name: q?.name, sign_in: q?.sign_in }, { name: 'prot', sign_in: 'required' })
    assert.match(q.reason, /hearth mcp login prot/)
    // No token in the log, the store or any other file of the home.
    assertNoSecretsOutsideCreds(s.home, secrets)
  })
})
