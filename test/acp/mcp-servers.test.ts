// The editor's MCP servers through `hearth acp`: the `mcpServers` of session/new (a stdio
// server with a secret environment variable, a streamable HTTP one with secret headers, an
// SSE one hearth does not speak) become that session's own servers in the daemon. The model
// is offered their tools in that session and in no other, a call reaches them with their
// secrets, and no secret is in a read, an update to the editor, the settings or the log.
// A second editor loading the session without servers leaves them; session/close clears them.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { methods } from '@agentclientprotocol/sdk'
import { FakeMcpHttpServer } from '../fakes/mcp/http-server.ts'
import { sha256 } from '../fakes/mcp/tools.ts'
import { answer, callTools, toolResultsOf } from '../fakes/tool-script.ts'
import { logText, ROOT, startDaemon } from '../helpers/daemon.ts'
import { type AgentSetup, runMessage } from '../tools/agent-helpers.ts'
import { rpcError, startEditor } from './editor.ts'
import { agentAcpFixture } from './fixture.ts'

const STDIO_SERVER = join(ROOT, 'test/fakes/mcp/stdio-server.ts')
const ENV_SECRET = 'editor-env-secret-93b1d7'
const BEARER = 'editor-bearer-secret-2c6e0f'
const HEADER_SECRET = 'editor-header-secret-a85d41'
const SECRETS = [ENV_SECRET, BEARER, HEADER_SECRET]
const RUN_MS = 60_000

const offeredNames = (body: any): string[] => (body.tools ?? []).map((t: any) => t.name ?? t.function?.name)

function assertNoSecret(text: string, where: string): void {
  for (const secret of SECRETS) assert.ok(!text.includes(secret), `${where} holds a secret`)
}

async function ownServers(s: AgentSetup, sid: string): Promise<any> {
  const r = await s.d.request({ path: `/sessions/${sid}/mcp-servers` })
  assert.equal(r.status, 200, r.text())
  return r.json()
}

describe("the editor's MCP servers", () => {
  const acp = agentAcpFixture({ tools: { approval_policy: 'auto' } })
  let remote: FakeMcpHttpServer
  let sessionId: string
  before(async () => {
    remote = await FakeMcpHttpServer.start({
      bearerToken: BEARER,
      header: { name: 'X-Fake-Key', value: HEADER_SECRET },
    })
    const res = await acp.editorSession([
      {
        name: 'editor tools',
        command: process.execPath,
        args: [STDIO_SERVER],
        env: [{ name: 'FAKE_MCP_TOKEN', value: ENV_SECRET }],
      },
      {
        type: 'http',
        name: 'remote',
        url: remote.url,
        headers: [
          { name: 'Authorization', value: `Bearer ${BEARER}` },
          { name: 'X-Fake-Key', value: HEADER_SECRET },
        ],
      },
      { type: 'sse', name: 'old-sse', url: 'http://127.0.0.1:9/sse', headers: [] },
    ])
    sessionId = res.sessionId
  })
  after(async () => {
    await remote?.close()
  })

  it("the session's model is offered their tools, and calls reach them with their secrets", async () => {
    acp.s.upstream.enqueue(
      callTools(
        { name: 'mcp__editor-tools__env_digest', arguments: { name: 'FAKE_MCP_TOKEN' } },
        { name: 'mcp__remote__echo', arguments: { text: 'over http' } },
      ),
      answer('Both answered.'),
    )
    const done = await acp.prompt(sessionId, 'use the editor tools')
    assert.equal(done.stopReason, 'end_turn')
    const offered = offeredNames(acp.s.upstream.requests[0].body)
    assert.ok(offered.includes('mcp__editor-tools__echo'), offered.join(' '))
    assert.ok(offered.includes('mcp__remote__echo'))
    assert.ok(!offered.some((n) => n.includes('old-sse')), 'an SSE server is left out')
    const [digest, echo] = toolResultsOf(acp.s.upstream.requests[1].body)
    assert.match(digest.output, new RegExp(`sha256 ${sha256(ENV_SECRET)}`), 'the env reached the server')
    assert.equal(echo.output, 'echo: over http')
    assert.ok(remote.requests.length > 0 && remote.refused === 0, 'the headers reached the remote server')
    assert.match(acp.editor.stderr, /old-sse/, 'the left-out server is named on stderr')
    assertNoSecret(JSON.stringify(acp.editor.updates), 'an update to the editor')
  })

  it('a read names the servers and their secrets by name only; settings are untouched', async () => {
    const own = await ownServers(acp.s, sessionId)
    assert.deepEqual(
      own.servers.map((x: any) => [x.name, x.transport]),
      [
        ['editor-tools', 'stdio'],
        ['remote', 'http'],
      ],
    )
    assert.deepEqual(own.servers[0].env, { FAKE_MCP_TOKEN: { saved: true } })
    assert.deepEqual(Object.keys(own.servers[1].headers).sort(), ['Authorization', 'X-Fake-Key'])
    const read = await acp.s.d.request({ path: `/sessions/${sessionId}` })
    assert.equal(read.json().composition.availability['mcp:editor-tools'].state, 'ready')
    const mcpSettings = await acp.s.d.request({ path: '/settings?group=mcp' })
    assert.deepEqual(mcpSettings.json().settings.servers, {}, 'nothing is written to settings')
    for (const name of ['config.json', 'creds.json']) {
      let text = ''
      try {
        text = readFileSync(join(acp.s.home, name), 'utf8')
      } catch {
        // not written at all
      }
      assertNoSecret(text, name)
    }
    assertNoSecret(JSON.stringify(own), 'the servers read')
    assertNoSecret(read.text(), 'the session read')
    const history = await acp.s.d.request({ path: `/sessions/${sessionId}/history?limit=200` })
    assertNoSecret(history.text(), 'the history')
    assertNoSecret(logText(acp.s.home), 'the log')
  })

  it('another session is not offered them', async () => {
    const other = await acp.newSession()
    acp.s.upstream.reset().enqueue(answer('Plain.'))
    await runMessage(acp.s, other, 'hello', RUN_MS)
    const offered = offeredNames(acp.s.upstream.requests[0].body)
    assert.ok(offered.includes('read'))
    assert.ok(!offered.some((n) => n.startsWith('mcp__')), offered.join(' '))
    assert.deepEqual((await ownServers(acp.s, other)).servers, [])
  })

  it('a restarted daemon, which kept no list, gets them again before the next prompt', async () => {
    await acp.s.d.stop()
    acp.s.d = await startDaemon({ home: acp.s.home })
    assert.deepEqual((await ownServers(acp.s, sessionId)).servers, [], 'the list lived in memory only')
    acp.s.upstream
      .reset()
      .enqueue(callTools({ name: 'mcp__editor-tools__echo', arguments: { text: 'again' } }), answer('Back.'))
    const done = await acp.prompt(sessionId, 'once more')
    assert.equal(done.stopReason, 'end_turn')
    assert.equal(toolResultsOf(acp.s.upstream.requests[1].body).at(-1)?.output, 'echo: again')
    assert.equal((await ownServers(acp.s, sessionId)).servers.length, 2)
  })

  it('a second editor without servers leaves them; session/close clears them', async () => {
    const second = await startEditor(acp.s.home)
    try {
      await second.agent.request(methods.agent.session.load, {
        sessionId,
        cwd: acp.workspace,
        mcpServers: [],
      })
      assert.equal((await ownServers(acp.s, sessionId)).servers.length, 2)
    } finally {
      await second.close()
    }
    await acp.editor.agent.request(methods.agent.session.close, { sessionId })
    assert.deepEqual((await ownServers(acp.s, sessionId)).servers, [])
  })
  it('a server the daemon would refuse is invalid params, and no session is made', async () => {
    const before = (await acp.editor.agent.request(methods.agent.session.list, { cwd: acp.workspace }))
      .sessions.length
    for (const bad of [
      { type: 'http' as const, name: 'ftp', url: 'ftp://127.0.0.1/mcp', headers: [] },
      { name: 'bad-env', command: 'true', args: [], env: [{ name: 'NOT A NAME', value: 'x' }] },
    ]) {
      const err = await rpcError(acp.editorSession([bad]))
      assert.equal(err.code, -32602, err.message)
    }
    const after = (await acp.editor.agent.request(methods.agent.session.list, { cwd: acp.workspace }))
      .sessions.length
    assert.equal(after, before)
  })

  it('the route refuses two servers of one name, an unknown field and an unknown session', async () => {
    const put = (sid: string, body: unknown) =>
      acp.s.d.request({
        method: 'PUT',
        path: `/sessions/${sid}/mcp-servers`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    const server = { name: 'twice', command: 'true' }
    const twice = await put(sessionId, { servers: [server, server] })
    assert.equal(twice.status, 400)
    assert.equal(twice.json().code, 'invalid_request')
    const unknownField = await put(sessionId, { servers: [{ ...server, cwd: '/' }] })
    assert.equal(unknownField.status, 400)
    const nobody = await put('01900000-0000-7000-8000-000000000000', { servers: [] })
    assert.equal(nobody.status, 404)
    assert.equal(nobody.json().code, 'session_not_found')
  })
})
