// Signed-in remote MCP servers in sessions, through the real daemon and a real MCP server
// (the SDK's, over streamable HTTP) that takes only the bearer tokens the test says. The
// kernel asks the daemon for a server's access token (never in the load); a server that
// refuses hearth and has no usable token is quarantined with `sign_in: required` and a
// reason that says what to do; a new sign-in (a new generation) starts it at the next run;
// tokens appear in no read, event, history or log line.
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, beforeEach, describe, it } from 'node:test'
import { answer, callTools, toolResultsOf } from '../fakes/tool-script.ts'
import { logText, runCli } from '../helpers/daemon.ts'
import { change, readGroup } from '../settings/helpers.ts'
import { openSse } from '../streams/sse-client.ts'
import {
  type AgentSetup,
  getSession,
  historyOf,
  newSession,
  runMessage,
  startAgent,
} from '../tools/agent-helpers.ts'
import { SignedInMcpServer } from './signed-in-server.ts'
import { TokenServer } from './token-server.ts'

const RUN_MS = 40_000
const FIRST_TOKEN = 'mcp-access-3f9b1c7e5a2d'
const SECOND_TOKEN = 'mcp-access-8d4e2a6c0b1f'
const REFRESHED_TOKEN = 'mcp-access-5c2e8a0d4f6b'
const EARLY_TOKEN = 'mcp-access-1b7d3f9e5c0a'
const REFRESH_TOKEN = 'mcp-refresh-6a1c9e3b7d5f'
const TOKENS = [FIRST_TOKEN, SECOND_TOKEN, REFRESHED_TOKEN, EARLY_TOKEN, REFRESH_TOKEN]

const credsOf = (home: string): any => JSON.parse(readFileSync(join(home, 'creds.json'), 'utf8'))

/**
 * A sign-in as the daemon stores it (creds.json `mcp.<server>.oauth`: tokens, client and what
 * discovery found), written beside the rest of the file.
 */
function storeSignIn(
  home: string,
  server: string,
  at: { mcp: SignedInMcpServer; as: TokenServer },
  tokens: { access: string; signedInAt: string; expiresInMs?: number },
): void {
  const file = join(home, 'creds.json')
  let creds: any = {}
  try {
    creds = credsOf(home)
  } catch {
    // no creds.json yet
  }
  creds.mcp ??= {}
  creds.mcp[server] ??= {}
  creds.mcp[server].oauth = {
    tokens: {
      access_token: tokens.access,
      token_type: 'Bearer',
      refresh_token: REFRESH_TOKEN,
      scope: 'mcp',
      expires_at: Date.now() + (tokens.expiresInMs ?? 3_600_000),
      signed_in_at: tokens.signedInAt,
    },
    client: {
      client_id: 'hearth-test-client',
      registration: 'dynamic',
      redirect_uri: 'http://127.0.0.1:1/callback',
      issuer: at.as.url,
    },
    resource: at.mcp.url,
    authorization_server: at.as.url,
    metadata: at.as.metadata,
  }
  writeFileSync(file, JSON.stringify(creds), { mode: 0o600 })
}

function assertNoToken(text: string, where: string): void {
  for (const t of TOKENS) assert.ok(!text.includes(t), `${where} holds a token`)
}

describe('signed-in MCP servers', () => {
  let s: AgentSetup
  let server: SignedInMcpServer
  let as: TokenServer
  before(async () => {
    server = await SignedInMcpServer.start()
    as = await TokenServer.start()
    as.onIssued = (token) => server.accepted.add(token)
    s = await startAgent({ tools: { approval_policy: 'auto' } })
    await change(s.d, 'mcp', {
      servers: { remote: { url: server.url }, bare: { url: server.url, enabled: false } },
    })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
    await server.close()
    await as.close()
  })
  beforeEach(() => {
    s.upstream.reset()
  })

  it('a stored sign-in: the server gets its token, a refused token quarantines it, a new sign-in starts it again', async () => {
    server.accepted.add(FIRST_TOKEN)
    storeSignIn(
      s.home,
      'remote',
      { mcp: server, as },
      { access: FIRST_TOKEN, signedInAt: '2026-11-29T01:00:00.000Z' },
    )
    const sid = await newSession(s)
    s.upstream.enqueue(
      callTools({ name: 'mcp__remote__echo', arguments: { text: 'signed in' } }),
      answer('ok'),
    )
    await runMessage(s, sid, 'use the remote echo', RUN_MS)
    assert.equal(toolResultsOf(s.upstream.requests[1].body)[0].output, 'echo: signed in')
    assert.ok(server.authorizations.includes(`Bearer ${FIRST_TOKEN}`), 'the server got the stored token')
    let read = await getSession(s.d, sid)
    assert.equal(read.composition.availability['mcp:remote'].state, 'ready')
    assert.equal(read.composition.availability['mcp:remote'].sign_in, null)

    // The token is revoked and so is the refresh token: refused, the refresh refused
    // (invalid_grant, the tokens are dropped) → a sign-in is needed.
    server.accepted.clear()
    as.refreshToken = null
    const refusedBefore = server.refused
    s.upstream.enqueue(callTools({ name: 'mcp__remote__echo', arguments: { text: 'again' } }), answer('ok'))
    await runMessage(s, sid, 'once more', RUN_MS)
    assert.match(toolResultsOf(s.upstream.requests[3].body).at(-1)?.output ?? '', /hearth mcp login remote/)
    assert.ok(server.refused > refusedBefore)
    read = await getSession(s.d, sid)
    const [q] = read.composition.quarantine
    assert.deepEqual(
      { name: q.name, state: q.state, sign_in: q.sign_in },
      { name: 'remote', state: 'failed', sign_in: 'required' },
    )
    assert.equal(q.reason, 'it needs a sign-in: run `hearth mcp login remote` (or set its bearerToken)')
    assert.equal(read.composition.availability['mcp:remote'].sign_in, 'required')
    assert.equal(credsOf(s.home).mcp.remote.oauth.tokens, undefined, 'the refused tokens are dropped')

    // A new sign-in is a new generation: the next run connects with the new token.
    server.accepted.add(SECOND_TOKEN)
    storeSignIn(
      s.home,
      'remote',
      { mcp: server, as },
      { access: SECOND_TOKEN, signedInAt: '2026-11-29T02:00:00.000Z' },
    )
    s.upstream.enqueue(callTools({ name: 'mcp__remote__echo', arguments: { text: 'back' } }), answer('ok'))
    await runMessage(s, sid, 'and now', RUN_MS)
    assert.equal(toolResultsOf(s.upstream.requests[5].body).at(-1)?.output, 'echo: back')
    assert.equal(server.authorizations.at(-1), `Bearer ${SECOND_TOKEN}`)
    read = await getSession(s.d, sid)
    assert.deepEqual(read.composition.quarantine, [])

    // The tokens are nowhere but creds.json: not in reads, history, the settings or the log.
    assertNoToken(JSON.stringify(read), 'the session read')
    assertNoToken(JSON.stringify(await historyOf(s.d, sid)), 'the history')
    const stream = openSse(s.d, `/sessions/${sid}?after_generation=1&after_seq=0`)
    let ended = 0
    const frames = await stream.collect((f) => f.event === 'run.ended' && ++ended === 3, RUN_MS)
    stream.destroy()
    assert.ok(frames.some((f) => f.event === 'composition.changed'))
    assertNoToken(frames.map((f) => f.data).join('\n'), 'the events')
    assertNoToken(JSON.stringify(await readGroup(s.d, 'mcp')), 'the settings read')
    assertNoToken(logText(s.home), 'the log')
  })

  it('a token the server refuses is refreshed through the daemon and the request sent again; nothing restarts', async () => {
    server.accepted.clear()
    server.accepted.add(FIRST_TOKEN)
    const signedInAt = '2026-11-29T03:00:00.000Z'
    storeSignIn(s.home, 'remote', { mcp: server, as }, { access: FIRST_TOKEN, signedInAt })
    await change(s.d, 'mcp', { servers: { remote: { enabled: true }, bare: { enabled: false } } })
    const sid = await newSession(s)
    s.upstream.enqueue(callTools({ name: 'mcp__remote__echo', arguments: { text: 'one' } }), answer('ok'))
    await runMessage(s, sid, 'first', RUN_MS)
    assert.equal(toolResultsOf(s.upstream.requests[1].body).at(-1)?.output, 'echo: one')
    const since = (await getSession(s.d, sid)).composition.availability['mcp:remote'].since

    // The server revokes the token: the kernel asks again naming it, the daemon refreshes.
    server.accepted.clear()
    as.refreshToken = REFRESH_TOKEN
    as.next.push(REFRESHED_TOKEN)
    const refreshes = as.requests.length
    s.upstream.enqueue(callTools({ name: 'mcp__remote__echo', arguments: { text: 'two' } }), answer('ok'))
    await runMessage(s, sid, 'second', RUN_MS)
    assert.equal(toolResultsOf(s.upstream.requests[3].body).at(-1)?.output, 'echo: two')
    assert.equal(as.requests.length, refreshes + 1, 'one refresh')
    const form = as.requests.at(-1) ?? {}
    assert.deepEqual(
      { grant: form.grant_type, refresh: form.refresh_token, resource: form.resource },
      { grant: 'refresh_token', refresh: REFRESH_TOKEN, resource: server.url },
    )
    assert.equal(server.authorizations.at(-1), `Bearer ${REFRESHED_TOKEN}`)
    const stored = credsOf(s.home).mcp.remote.oauth.tokens
    assert.equal(stored.access_token, REFRESHED_TOKEN)
    assert.equal(stored.signed_in_at, signedInAt, 'a refresh keeps the generation')
    const read = await getSession(s.d, sid)
    assert.equal(read.composition.availability['mcp:remote'].since, since, 'the connection was kept')
    assert.equal(read.composition.needs_reload, false, 'a refresh marks no session for reload')
    assertNoToken(JSON.stringify(read), 'the session read')
    assertNoToken(logText(s.home), 'the log')
  })

  it('a stored token that expires within a minute is refreshed before the first request', async () => {
    server.accepted.clear()
    as.refreshToken = REFRESH_TOKEN
    as.next.push(EARLY_TOKEN)
    storeSignIn(
      s.home,
      'remote',
      { mcp: server, as },
      { access: FIRST_TOKEN, signedInAt: '2026-11-29T04:00:00.000Z', expiresInMs: 30_000 },
    )
    const seen = server.authorizations.length
    const sid = await newSession(s)
    s.upstream.enqueue(callTools({ name: 'mcp__remote__echo', arguments: { text: 'fresh' } }), answer('ok'))
    await runMessage(s, sid, 'go', RUN_MS)
    assert.equal(toolResultsOf(s.upstream.requests[1].body).at(-1)?.output, 'echo: fresh')
    const sent = server.authorizations.slice(seen)
    assert.ok(sent.length > 0)
    assert.ok(
      sent.every((a) => a === `Bearer ${EARLY_TOKEN}`),
      'the nearly expired token was never sent',
    )
  })

  it('a server that refuses hearth and has no sign-in: quarantined with what to do; session show says so', async () => {
    await change(s.d, 'mcp', { servers: { remote: { enabled: false }, bare: { enabled: true } } })
    const sid = await newSession(s)
    s.upstream.enqueue(answer('alone'))
    await runMessage(s, sid, 'hello', RUN_MS)
    const read = await getSession(s.d, sid)
    const [q] = read.composition.quarantine
    assert.equal(q.name, 'bare')
    assert.equal(q.sign_in, 'required')
    assert.match(q.reason, /^it needs a sign-in: run `hearth mcp login bare` \(or set its bearerToken\)$/)
    const offered = (s.upstream.requests[0].body.tools ?? []).map((t: any) => t.name)
    assert.ok(!offered.some((n: string) => n.startsWith('mcp__bare__')), 'none of its tools is offered')
    const shown = await runCli(['session', 'show', sid, '--home', s.home], { HEARTH_HOME: '' })
    assert.equal(shown.code, 0, shown.stderr)
    assert.match(
      shown.stdout,
      /^mcp\s+bare: needs a sign-in \(run `hearth mcp login bare`, or set its bearerToken\)$/m,
    )
  })
})
