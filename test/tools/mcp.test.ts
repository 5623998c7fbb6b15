// MCP servers in sessions, through the real daemon: servers configured in settings group
// `mcp` (secrets in creds.json), real MCP servers written with the SDK (test/fakes/mcp/) over
// stdio and streamable HTTP, and the fake model upstream scripting calls of their tools. A
// call reaches the server and its result goes back to the model; calls go through the
// approval policy with the usual tool events; a server that fails to start or exits is in
// the session's composition with its reason and the session goes on; secrets appear in no
// read, event or log line.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, beforeEach, describe, it } from 'node:test'
import { FakeMcpHttpServer } from '../fakes/mcp/http-server.ts'
import { PIXEL_PNG, sha256 } from '../fakes/mcp/tools.ts'
import { answer, callTools, toolResultsOf } from '../fakes/tool-script.ts'
import { ROOT } from '../helpers/daemon.ts'
import { idle, message, putInput, waitSession } from '../inputs/helpers.ts'
import { change, readGroup } from '../settings/helpers.ts'
import { openSse } from '../streams/sse-client.ts'
import {
  type AgentSetup,
  approve,
  getSession,
  historyOf,
  newSession,
  runMessage,
  startAgent,
  waitBlocked,
} from './agent-helpers.ts'

const STDIO_SERVER = join(ROOT, 'test/fakes/mcp/stdio-server.ts')
const ENV_SECRET = 'env-secret-7f3a9c1e'
const BEARER = 'bearer-secret-51d0b2aa'
const HEADER_SECRET = 'header-secret-c4e8f6d2'
const SECRETS = [ENV_SECRET, BEARER, HEADER_SECRET]
const RUN_MS = 40_000

const stdioServer = (extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [STDIO_SERVER],
  env: { FAKE_MCP_TOKEN: ENV_SECRET },
  startup_timeout_ms: 30_000,
  ...extra,
})

/** The tool names a recorded model request offered. */
const offeredNames = (body: any): string[] => (body.tools ?? []).map((t: any) => t.name ?? t.function?.name)

function assertNoSecret(text: string, where: string): void {
  for (const s of SECRETS) assert.ok(!text.includes(s), `${where} holds a secret`)
}

describe('MCP servers', () => {
  let s: AgentSetup
  let remote: FakeMcpHttpServer
  before(async () => {
    remote = await FakeMcpHttpServer.start({
      bearerToken: BEARER,
      header: { name: 'X-Fake-Key', value: HEADER_SECRET },
    })
    s = await startAgent({ tools: { approval_policy: 'auto' } })
    await change(s.d, 'mcp', {
      servers: {
        fake: stdioServer(),
        remote: { url: remote.url, bearerToken: BEARER, headers: { 'X-Fake-Key': HEADER_SECRET } },
      },
    })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
    await remote.close()
  })
  beforeEach(() => {
    s.upstream.reset()
  })

  it('a stdio server: its tools are offered beside the built-in ones, a call reaches it and its result goes back', async () => {
    const sid = await newSession(s)
    const live = openSse(s.d, `/sessions/${sid}?tail=0`)
    await live.next()
    s.upstream.enqueue(callTools({ name: 'mcp__fake__echo', arguments: { text: 'hello there' } }), (req) =>
      answer(`it said ${toolResultsOf(req.body)[0]?.output}`),
    )
    const done = await runMessage(s, sid, 'use the echo tool', RUN_MS)
    assert.equal(done.latest_answer.outcome, 'completed')
    const offered = offeredNames(s.upstream.requests[0].body)
    for (const name of ['read', 'shell', 'mcp__fake__echo', 'mcp__fake__count', 'mcp__remote__echo'])
      assert.ok(offered.includes(name), `${name} is offered`)
    const [result] = toolResultsOf(s.upstream.requests[1].body)
    assert.equal(result.output, 'echo: hello there')
    const history = await historyOf(s.d, sid)
    const call = history.find((e: any) => e.kind === 'tool_call')
    assert.equal(call.content.name, 'mcp__fake__echo')
    assert.equal(call.content.effect, 'read', 'a read-only, closed-world tool is a read')
    assert.match(call.content.summary, /^fake: echo \{"text":"hello there"\}/)
    const entry = history.find((e: any) => e.kind === 'tool_result')
    assert.equal(entry.content.outcome, 'ok')
    assert.deepEqual(entry.content.meta, { server: 'fake', tool: 'echo', is_error: false })
    const frames = await live.collect((f) => f.event === 'run.ended', RUN_MS)
    live.destroy()
    const started = frames.find((f) => f.event === 'tool.started')
    assert.equal(JSON.parse(started?.data ?? '{}').payload.name, 'mcp__fake__echo')
    const ended = JSON.parse(frames.find((f) => f.event === 'tool.ended')?.data ?? '{}').payload
    assert.equal(ended.output, 'echo: hello there')
    const changed = frames.find((f) => f.event === 'composition.changed')
    assert.ok(changed, 'loading the servers is an event')
    const read = await getSession(s.d, sid)
    const fake = read.composition.availability['mcp:fake']
    assert.equal(fake.state, 'ready')
    assert.equal(fake.transport, 'stdio')
    assert.ok(fake.tools.includes('mcp__fake__echo'))
    assert.equal(read.composition.availability['mcp:remote'].state, 'ready')
    assert.deepEqual(read.composition.quarantine, [])
  })

  it('a tool a running server does not have: the result says so and lists what the server has', async () => {
    const sid = await newSession(s)
    s.upstream.enqueue(
      callTools({ name: 'mcp__fake__nope', arguments: {} }, { name: 'mcp__elsewhere__echo', arguments: {} }),
      answer('noted'),
    )
    const done = await runMessage(s, sid, 'call a tool that is not there', RUN_MS)
    assert.equal(done.latest_answer.outcome, 'completed')
    const [missing, noServer] = toolResultsOf(s.upstream.requests[1].body)
    assert.match(
      missing.output,
      /^No tool mcp__fake__nope: the MCP server fake has no such tool\. Its tools: /,
    )
    assert.match(missing.output, /\bmcp__fake__echo\b/)
    assert.doesNotMatch(missing.output, /not running|mcp__remote__/)
    assert.match(noServer.output, /^No tool mcp__elsewhere__echo: no MCP server of this session offers it\./)
    assert.match(noServer.output, /\bmcp__fake__echo\b/)
    assert.match(noServer.output, /\bmcp__remote__echo\b/)
  })

  it("the context summary lists a loaded server's tools with source mcp beside the built-in ones", async () => {
    const sid = await newSession(s)
    const contextTools = async () =>
      (await s.d.request({ path: `/sessions/${sid}/context` })).json().tools as {
        name: string
        source: string
        effect: string
      }[]
    const before = await contextTools()
    assert.ok(!before.some((t) => t.source === 'mcp'), 'no server runs before the first run')
    s.upstream.enqueue(answer('loaded'))
    await runMessage(s, sid, 'load the servers', RUN_MS)
    const tools = await contextTools()
    const sourceOf = new Map(tools.map((t) => [t.name, t.source]))
    for (const name of ['read', 'shell']) assert.equal(sourceOf.get(name), 'builtin', `${name} is built in`)
    for (const name of ['mcp__fake__echo', 'mcp__fake__count', 'mcp__remote__echo'])
      assert.equal(sourceOf.get(name), 'mcp', `${name} is listed with source mcp`)
    const echo = tools.find((t) => t.name === 'mcp__fake__echo')
    assert.equal(echo?.effect, 'read', 'the listing keeps the effect the request offers')
    // What the summary lists is what the request offered.
    const offered = offeredNames(s.upstream.requests[0].body)
    assert.deepEqual(tools.map((t) => t.name).sort(), [...offered].sort())
  })

  it('a server whose tool list changes: the new tools are offered from then on', async () => {
    const sid = await newSession(s)
    s.upstream.enqueue(callTools({ name: 'mcp__fake__grow', arguments: {} }), answer('grown'))
    await runMessage(s, sid, 'grow', RUN_MS)
    assert.ok(!offeredNames(s.upstream.requests[0].body).includes('mcp__fake__extra'))
    await waitSession(s.d, sid, (r) =>
      r.composition.availability['mcp:fake'].tools.includes('mcp__fake__extra'),
    )
    s.upstream.enqueue(callTools({ name: 'mcp__fake__extra', arguments: {} }), answer('ok'))
    await runMessage(s, sid, 'use it', RUN_MS)
    assert.ok(offeredNames(s.upstream.requests[2].body).includes('mcp__fake__extra'))
    assert.equal(toolResultsOf(s.upstream.requests[3].body).at(-1)?.output, 'extra here')
  })

  it('a streamable HTTP server gets its bearer token and headers from creds.json', async () => {
    const sid = await newSession(s)
    const seen = remote.requests.length
    s.upstream.enqueue(
      callTools({ name: 'mcp__remote__echo', arguments: { text: 'over http' } }),
      answer('ok'),
    )
    await runMessage(s, sid, 'echo remotely', RUN_MS)
    assert.equal(toolResultsOf(s.upstream.requests[1].body)[0].output, 'echo: over http')
    const sent = remote.requests.slice(seen)
    assert.ok(sent.length > 0)
    for (const h of sent) {
      assert.equal(h.authorization, `Bearer ${BEARER}`)
      assert.equal(h['x-fake-key'], HEADER_SECRET)
    }
    assert.equal(remote.refused, 0)
  })

  it('progress is tool.progress, an error result is an error, an image goes back as an image', async () => {
    const sid = await newSession(s)
    const live = openSse(s.d, `/sessions/${sid}?tail=0`)
    await live.next()
    s.upstream.enqueue(
      callTools(
        { name: 'mcp__fake__count', arguments: { n: 3 } },
        { name: 'mcp__fake__fail', arguments: {} },
        { name: 'mcp__fake__pixel', arguments: {} },
      ),
      answer('seen'),
    )
    await runMessage(s, sid, 'count, fail and draw', RUN_MS)
    const frames = await live.collect((f) => f.event === 'run.ended', RUN_MS)
    live.destroy()
    const progress = frames
      .filter((f) => f.event === 'tool.progress')
      .map((f) => JSON.parse(f.data).payload.text)
      .join('')
    assert.equal(progress, '[1/3] step 1\n[2/3] step 2\n[3/3] step 3\n')
    const results = toolResultsOf(s.upstream.requests[1].body)
    assert.equal(results[0].output, 'counted to 3')
    assert.equal(results[1].output, 'the thing is broken')
    assert.match(results[2].output, /here is a pixel/)
    assert.deepEqual(results[2].images, [{ media_type: 'image/png', data: PIXEL_PNG }])
    const history = await historyOf(s.d, sid)
    const outcomes = history.filter((e: any) => e.kind === 'tool_result').map((e: any) => e.content.outcome)
    assert.deepEqual(outcomes.sort(), ['error', 'ok', 'ok'])
  })

  it('env secrets reach the server and nothing else: no read, no event, no log line', async () => {
    const sid = await newSession(s)
    const live = openSse(s.d, `/sessions/${sid}?tail=0`)
    await live.next()
    s.upstream.enqueue(
      callTools({ name: 'mcp__fake__env_digest', arguments: { name: 'FAKE_MCP_TOKEN' } }),
      answer('ok'),
    )
    await runMessage(s, sid, 'digest', RUN_MS)
    const frames = await live.collect((f) => f.event === 'run.ended', RUN_MS)
    live.destroy()
    const output = toolResultsOf(s.upstream.requests[1].body)[0].output
    // The server saw the value (its digest matches), and no HEARTH_ variable.
    assert.match(output, new RegExp(`sha256 ${sha256(ENV_SECRET)}`))
    assert.match(output, /value \[redacted\]; hearth variables: 0/)
    const reads = [
      await s.d.request({ path: '/settings' }),
      await s.d.request({ path: '/settings?group=mcp' }),
      await s.d.request({ path: `/sessions/${sid}` }),
      await s.d.request({ path: `/sessions/${sid}/history?limit=200` }),
      await s.d.request({ path: '/sessions' }),
    ]
    for (const r of reads) assertNoSecret(r.text(), `GET ${r.status}`)
    assertNoSecret(frames.map((f) => f.data).join('\n'), 'the session stream')
    const { settings } = await readGroup(s.d, 'mcp')
    assert.deepEqual(settings.servers.fake.env, { FAKE_MCP_TOKEN: { saved: true } })
    assert.deepEqual(settings.servers.remote.headers, { 'X-Fake-Key': { saved: true } })
    assert.deepEqual(settings.servers.remote.bearerToken, { saved: true })
    assertNoSecret(readFileSync(join(s.home, 'config.json'), 'utf8'), 'config.json')
    assertNoSecret(readFileSync(join(s.home, 'logs', 'hearth.log'), 'utf8'), 'the log')
  })
})

describe('MCP servers that fail', () => {
  let s: AgentSetup
  before(async () => {
    s = await startAgent({ tools: { approval_policy: 'auto' } })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })
  beforeEach(() => {
    s.upstream.reset()
  })

  it('one that fails to start is quarantined with its reason (no secret), and the session goes on without it', async () => {
    await change(s.d, 'mcp', {
      servers: {
        broken: stdioServer({ args: [STDIO_SERVER, '--crash-at-start'] }),
        missing: { command: '/nonexistent/mcp-server' },
        fine: stdioServer(),
      },
    })
    const sid = await newSession(s)
    s.upstream.enqueue(answer('fine without it'))
    const done = await runMessage(s, sid, 'hello', RUN_MS)
    assert.equal(done.latest_answer.outcome, 'completed')
    const offered = offeredNames(s.upstream.requests[0].body)
    assert.ok(offered.includes('mcp__fine__echo'))
    assert.ok(!offered.some((n) => n.startsWith('mcp__broken__')), 'its tools are not offered')
    const read = await getSession(s.d, sid)
    assert.deepEqual(read.composition.quarantine.map((x: any) => x.name).sort(), ['broken', 'missing'])
    const q = read.composition.quarantine.find((x: any) => x.name === 'broken')
    assert.equal(q.kind, 'mcp')
    assert.equal(q.state, 'failed')
    assert.match(q.reason, /no database \(token \[redacted\]\)/)
    assert.equal(read.composition.availability['mcp:broken'].state, 'failed')
    const missing = read.composition.quarantine.find((x: any) => x.name === 'missing')
    assert.match(missing.reason, /ENOENT/)
    assert.equal(read.composition.availability['mcp:fine'].state, 'ready')
    assertNoSecret(JSON.stringify(read), 'the session read')
    const log = readFileSync(join(s.home, 'logs', 'hearth.log'), 'utf8')
    assert.match(log, /mcp server failed to start/)
    assertNoSecret(log, 'the log')
    // A model that calls its tools anyway gets an error it can act on.
    s.upstream.enqueue(callTools({ name: 'mcp__broken__echo', arguments: { text: 'x' } }), answer('ok'))
    await runMessage(s, sid, 'try it', RUN_MS)
    assert.match(toolResultsOf(s.upstream.requests[2].body)[0].output, /No tool mcp__broken__echo/)
  })

  it('one that dies during a call: the call fails, the server shows exited, the next step goes on without it', async () => {
    await change(s.d, 'mcp', { servers: { broken: null, missing: null, fine: null, dying: stdioServer() } })
    const sid = await newSession(s)
    s.upstream.enqueue(
      callTools({ name: 'mcp__dying__crash', arguments: {} }),
      callTools({ name: 'mcp__dying__echo', arguments: { text: 'still there?' } }),
      answer('carried on'),
    )
    const done = await runMessage(s, sid, 'crash it', RUN_MS)
    assert.equal(done.latest_answer.outcome, 'completed')
    const first = toolResultsOf(s.upstream.requests[1].body)[0]
    assert.match(first.output, /The MCP server dying stopped answering/)
    const second = toolResultsOf(s.upstream.requests[2].body)[1]
    assert.match(second.output, /No tool mcp__dying__echo: its MCP server is not running in this session/)
    assert.ok(offeredNames(s.upstream.requests[0].body).includes('mcp__dying__crash'))
    assert.ok(
      !offeredNames(s.upstream.requests[1].body).some((n) => n.startsWith('mcp__dying__')),
      'the next step offers none of its tools',
    )
    const read = await getSession(s.d, sid)
    const [q] = read.composition.quarantine
    assert.equal(q.name, 'dying')
    assert.equal(q.state, 'exited')
    assert.match(q.reason, /crashing on purpose/)
    const history = await historyOf(s.d, sid)
    assert.equal(history.find((e: any) => e.kind === 'tool_result').content.outcome, 'error')
  })

  it('a streamable HTTP server that goes away: the call fails, the server shows exited', async () => {
    const gone = await FakeMcpHttpServer.start({
      bearerToken: BEARER,
      header: { name: 'X-Fake-Key', value: HEADER_SECRET },
    })
    await change(s.d, 'mcp', {
      servers: {
        dying: null,
        far: { url: gone.url, bearerToken: BEARER, headers: { 'X-Fake-Key': HEADER_SECRET } },
      },
    })
    const sid = await newSession(s)
    s.upstream.enqueue(callTools({ name: 'mcp__far__echo', arguments: { text: 'one' } }), answer('ok'))
    await runMessage(s, sid, 'first', RUN_MS)
    assert.equal(toolResultsOf(s.upstream.requests[1].body)[0].output, 'echo: one')
    await gone.close()
    s.upstream.enqueue(callTools({ name: 'mcp__far__echo', arguments: { text: 'two' } }), answer('ok'))
    const done = await runMessage(s, sid, 'second', RUN_MS)
    assert.equal(done.latest_answer.outcome, 'completed')
    assert.match(
      toolResultsOf(s.upstream.requests[3].body).at(-1)?.output ?? '',
      /The MCP server far stopped answering/,
    )
    const [q] = done.composition.quarantine
    assert.equal(q.name, 'far')
    assert.equal(q.state, 'exited')
    assertNoSecret(JSON.stringify(done), 'the session read')
  })
})

describe('MCP tools and the approval policy', () => {
  let s: AgentSetup
  before(async () => {
    s = await startAgent({ tools: { approval_policy: 'ask' } })
    await change(s.d, 'mcp', { servers: { fake: stdioServer() } })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })
  beforeEach(() => {
    s.upstream.reset()
  })

  it('ask: a tool that may change things waits for a person; deny and allow apply; a read runs', async () => {
    const sid = await newSession(s)
    s.upstream.enqueue(callTools({ name: 'mcp__fake__count', arguments: { n: 2 } }), answer('denied'))
    await putInput(s.d, sid, message('count'))
    const reason = await waitBlocked(s.d, sid, RUN_MS)
    assert.equal(reason.tool, 'mcp__fake__count')
    assert.equal(reason.effect, 'exec')
    assert.match(reason.summary, /^fake: count \{"n":2\}/)
    await approve(s.d, sid, reason.request_id, 'deny')
    await waitSession(s.d, sid, idle, RUN_MS)
    assert.match(toolResultsOf(s.upstream.requests[1].body)[0].output, /Denied/)

    s.upstream.enqueue(callTools({ name: 'mcp__fake__count', arguments: { n: 2 } }), answer('allowed'))
    await putInput(s.d, sid, message('count again'))
    const again = await waitBlocked(s.d, sid, RUN_MS)
    await approve(s.d, sid, again.request_id, 'allow')
    await waitSession(s.d, sid, idle, RUN_MS)
    assert.equal(toolResultsOf(s.upstream.requests[3].body).at(-1)?.output, 'counted to 2')

    s.upstream.enqueue(callTools({ name: 'mcp__fake__echo', arguments: { text: 'free' } }), answer('read'))
    const read = await runMessage(s, sid, 'echo', RUN_MS)
    assert.equal(read.status.blocking_reason, null)
    assert.equal(toolResultsOf(s.upstream.requests[5].body).at(-1)?.output, 'echo: free')
  })

  it('read-only: only the tools that read are offered; another called anyway is denied', async () => {
    const sid = await newSession(s)
    const cur = await s.d.request({ path: `/sessions/${sid}?view=configuration` })
    const patch = await s.d.request({
      method: 'PATCH',
      path: `/sessions/${sid}?view=configuration`,
      headers: { 'content-type': 'application/merge-patch+json', 'if-match': String(cur.headers.etag) },
      body: JSON.stringify({ approval_policy: 'read-only' }),
    })
    assert.equal(patch.status, 200, patch.text())
    s.upstream.enqueue(callTools({ name: 'mcp__fake__count', arguments: { n: 1 } }), answer('ok'))
    await runMessage(s, sid, 'count', RUN_MS)
    const offered = offeredNames(s.upstream.requests[0].body)
    assert.ok(offered.includes('mcp__fake__echo'))
    assert.ok(!offered.includes('mcp__fake__count'))
    const [result] = toolResultsOf(s.upstream.requests[1].body)
    assert.match(result.output, /read-only/)
  })
})
