// MCP roots through the real daemon: a server (the SDK's, over streamable HTTP) asks for the
// client's roots and gets the session's workspace and the allowed roots as file:// URIs
// named by their folders; when the session's workspace moves, the server is told
// (`notifications/roots/list_changed`), lists them again and gets the new workspace.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { pathToFileURL } from 'node:url'
import { answer, callTools, toolResultsOf } from '../fakes/tool-script.ts'
import { change } from '../settings/helpers.ts'
import { type AgentSetup, getSession, newSession, runMessage, startAgent } from '../tools/agent-helpers.ts'
import { SignedInMcpServer } from './signed-in-server.ts'

const RUN_MS = 40_000
const BEARER = 'roots-bearer-4e1a7c9d'

const rootOf = (path: string) => ({ uri: pathToFileURL(path).href, name: basename(path) })

describe('MCP roots', () => {
  let s: AgentSetup
  let server: SignedInMcpServer
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-roots-')))
  const shared = join(base, 'shared-lib')
  const moved = join(base, 'moved-project')
  before(async () => {
    mkdirSync(shared)
    mkdirSync(moved)
    server = await SignedInMcpServer.start()
    server.accepted.add(BEARER)
    // The session keeps its kernel (and its servers) while the test moves its workspace.
    s = await startAgent({
      tools: { approval_policy: 'auto', allowed_roots: [shared] },
      env: { HEARTH_KERNEL_IDLE_MS: '600000' },
    })
    await change(s.d, 'mcp', { servers: { remote: { url: server.url, bearerToken: BEARER } } })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
    await server.close()
  })

  it('roots/list answers the workspace and allowed roots; a workspace move tells the server, which lists the new ones', async () => {
    const sid = await newSession(s)
    s.upstream.enqueue(callTools({ name: 'mcp__remote__roots', arguments: {} }), answer('listed'))
    await runMessage(s, sid, 'list the roots', RUN_MS)
    const expected = [rootOf(s.workspace), rootOf(shared)]
    assert.deepEqual(server.rootLists, [expected])
    assert.equal(
      toolResultsOf(s.upstream.requests[1].body).at(-1)?.output,
      expected.map((r) => r.uri).join(' '),
    )
    assert.equal(server.rootsChanged, 0)

    const config = await s.d.request({ path: `/sessions/${sid}?view=configuration` })
    const moveRes = await s.d.request({
      method: 'PATCH',
      path: `/sessions/${sid}?view=configuration`,
      headers: {
        'content-type': 'application/merge-patch+json',
        'if-match': config.json().etag,
      },
      body: JSON.stringify({ workspace: moved, family_revision: config.json().value.family_revision }),
    })
    assert.equal(moveRes.status, 200, moveRes.text())
    await server.until(() => server.rootsChanged === 1 && server.rootLists.length === 2)
    assert.deepEqual(server.rootLists[1], [rootOf(moved), rootOf(shared)])
    assert.equal((await getSession(s.d, sid)).composition.availability['mcp:remote'].state, 'ready')
  })
})
