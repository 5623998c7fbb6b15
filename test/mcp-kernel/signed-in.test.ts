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
import { type AgentSetup, getSession, historyOf, newSession, runMessage, startAgent } from '../tools/agent-helpers.ts'
import { SignedInMcpServer } from './signed-in-server.ts'

const RUN_MS = 40_000
const FIRST_TOKEN = 'mcp-access-3f9b1c7e5a2d'
const SECOND_TOKEN = 'mcp-access-8d4e2a6c0b1f'
const REFRESH_TOKEN = 'mcp-refresh-6a1c9e3b7d5f'
const TOKENS = [FIRST_TOKEN, SECOND_TOKEN, REFRESH_TOKEN]

/** A sign-in as the daemon stores it (creds.json `mcp.<server>.oauth`), written beside the rest. */
function storeSignIn(home: string, server: string, accessToken: string, signedInAt: string): void {
  const file = join(home, 'creds.json')
  let creds: any = {}
  try {
    creds = JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    // no creds.json yet
  }
  creds.mcp ??= {}
  creds.mcp[server] ??= {}
  creds.mcp[server].oauth = {
    tokens: {
      access_token: accessToken,
      token_type: 'Bearer',
      refresh_token: REFRESH_TOKEN,
      scope: 'mcp',
      expires_at: Date.now() + 3_600_000,
      signed_in_at: signedInAt,
    },
  }
  writeFileSync(file, JSON.stringify(creds), { mode: 0o600 })
}

function assertNoToken(text: string, where: string): void {
  for (const t of TOKENS) assert.ok(!text.includes(t), `${where} holds a token`)
}

describe('signed-in MCP servers', () => {
  let s: AgentSetup
  let server: SignedInMcpServer
  before(async () => {
    server = await SignedInMcpServer.start()
    s = await startAgent({ tools: { approval_policy: 'auto' } })
    await change(s.d, 'mcp', { servers: { remote: { url: server.url }, bare: { url: server.url, enabled: false } } })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
    await server.close()
  })
  beforeEach(() => {
    s.upstream.reset()
  })

  it('a stored sign-in: the server gets its token, a refused token quarantines it, a new sign-in starts it again', async () => {
    server.accepted.add(FIRST_TOKEN)
    storeSignIn(s.home, 'remote', FIRST_TOKEN, '2026-11-29T01:00:00.000Z')
    const sid = await newSession(s)
    s.upstream.enqueue(callTools({ name: 'mcp__remote__echo', arguments: { text: 'signed in' } }), answer('ok'))
    await runMessage(s, sid, 'use the remote echo', RUN_MS)
    assert.equal(toolResultsOf(s.upstream.requests[1].body)[0].output, 'echo: signed in')
    assert.ok(server.authorizations.includes(`Bearer ${FIRST_TOKEN}`), 'the server got the stored token')
    let read = await getSession(s.d, sid)
    assert.equal(read.composition.availability['mcp:remote'].state, 'ready')
    assert.equal(read.composition.availability['mcp:remote'].sign_in, null)

    // The token is revoked: refused, asked again naming it, refused still → a sign-in is needed.
    server.accepted.clear()
    const refusedBefore = server.refused
    s.upstream.enqueue(callTools({ name: 'mcp__remote__echo', arguments: { text: 'again' } }), answer('ok'))
    await runMessage(s, sid, 'once more', RUN_MS)
    assert.match(toolResultsOf(s.upstream.requests[3].body).at(-1)?.output ?? "", /hearth mcp login remote/)
    assert.ok(server.refused > refusedBefore)
    read = await getSession(s.d, sid)
    const [q] = read.composition.quarantine
    assert.deepEqual(
      { name: q.name, state: q.state, sign_in: q.sign_in },
      { name: 'remote', state: 'failed', sign_in: 'required' },
    )
    assert.equal(q.reason, 'it needs a sign-in: run `hearth mcp login remote` (or set its bearerToken)')
    assert.equal(read.composition.availability['mcp:remote'].sign_in, 'required')

    // A new sign-in is a new generation: the next run connects with the new token.
    server.accepted.add(SECOND_TOKEN)
    storeSignIn(s.home, 'remote', SECOND_TOKEN, '2026-11-29T02:00:00.000Z')
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
