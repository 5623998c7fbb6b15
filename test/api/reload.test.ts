// POST /sessions/{id}/reload against the real daemon: the composition (real MCP servers over
// stdio from test/fakes/mcp/, configured in settings group `mcp`) and the model catalogue
// (settings models.catalogue_url pointing at a local HTTP server, or at nothing). Each
// target has its own outcome and a success stands when the other fails; a quarantined
// server comes back once its settings are fixed, or once what it needs is there; a busy
// session is 409; bad bodies are 400 with their codes.
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { reloadArgs, reloadText } from '../../src/client/reload-view.ts'
import { parseCommand } from '../../src/tui/commands.ts'
import { answer } from '../fakes/tool-script.ts'
import { ROOT, runCli } from '../helpers/daemon.ts'
import { idle, message, post, putInput, waitSession } from '../inputs/helpers.ts'
import { change } from '../settings/helpers.ts'
import { type AgentSetup, getSession, newSession, runMessage, startAgent } from '../tools/agent-helpers.ts'
import { assertProblem } from './hostile.ts'

const STDIO_SERVER = join(ROOT, 'test/fakes/mcp/stdio-server.ts')
const stdioServer = (extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [STDIO_SERVER],
  startup_timeout_ms: 30_000,
  ...extra,
})

const CATALOGUE = {
  acme: {
    id: 'acme',
    name: 'Acme',
    models: {
      'rocket-1': {
        id: 'rocket-1',
        name: 'Rocket',
        tool_call: true,
        modalities: { input: ['text'], output: ['text'] },
        limit: { context: 3000, output: 1000 },
      },
    },
  },
}

describe('POST /sessions/{id}/reload', () => {
  let s: AgentSetup
  let server: Server
  let catalogueUrl = ''
  const reload = (sid: string, body: unknown) => post(s.d, `/sessions/${sid}/reload`, body)
  const models = async (q: string) => {
    const r = await s.d.request({ path: `/models?${q}` })
    assert.equal(r.status, 200, r.text())
    return r.json()
  }

  before(async () => {
    server = createServer((req, res) => {
      if (req.url === '/api.json')
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(CATALOGUE))
      else res.writeHead(404).end('not found')
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    catalogueUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api.json`
    s = await startAgent({ protocol: 'chat_completions' })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
    server.close()
  })

  it('both: the composition reloads while the catalogue fails, and the composition stays reloaded', async () => {
    await change(s.d, 'mcp', { servers: { fine: stdioServer() } })
    // Nothing listens on port 1: the catalogue source is unreachable.
    await change(s.d, 'models', { catalogue_url: 'http://127.0.0.1:1/api.json' })
    const sid = await newSession(s)
    assert.equal((await getSession(s.d, sid)).composition.needs_reload, true)
    const r = await reload(sid, { targets: ['composition', 'models'] })
    assert.equal(r.status, 200, r.text())
    const result = r.json()
    assert.equal(result.composition.outcome, 'reloaded')
    assert.equal(result.composition.problem, null)
    assert.equal(result.composition.needs_reload, false)
    assert.deepEqual(result.composition.quarantine, [])
    assert.equal(result.models.outcome, 'failed')
    assert.equal(result.models.problem.code, 'catalogue_refresh_failed')
    assert.match(result.models.problem.detail, /cannot download http:\/\/127\.0\.0\.1:1\/api\.json/)
    assert.equal(result.models.source, 'http://127.0.0.1:1/api.json')
    // The composition's success is kept: the session shows it loaded, with its server ready.
    const read = await getSession(s.d, sid)
    assert.equal(read.composition.needs_reload, false)
    assert.equal(read.composition.loaded_revision, read.composition.desired_revision)
    assert.equal(read.composition.availability['mcp:fine'].state, 'ready')
    // The pickers still read the shipped catalogue; no cache was written.
    assert.equal((await models('provider=openai&model=gpt-5')).source.kind, 'snapshot')
    assert.equal(existsSync(join(s.home, 'cache', 'models.json')), false)
    assert.match(
      reloadText(result),
      /^composition reloaded: 0 instruction files\nmodel catalogue not refreshed: cannot download/,
    )
  })

  it('models: refreshes the catalogue the model pickers read, and leaves the composition alone', async () => {
    await change(s.d, 'models', { catalogue_url: catalogueUrl })
    const sid = await newSession(s)
    const r = await reload(sid, { targets: ['models'] })
    assert.equal(r.status, 200, r.text())
    const result = r.json()
    assert.deepEqual(result.models, {
      outcome: 'refreshed',
      problem: null,
      source: catalogueUrl,
      providers: 1,
      models: 1,
    })
    assert.equal(result.composition.outcome, 'not_requested')
    assert.equal(result.composition.needs_reload, true)
    const acme = await models('provider=acme&model=rocket-1')
    assert.equal(acme.source.kind, 'cache')
    assert.equal(acme.items[0].listed, true)
    assert.equal(acme.items[0].context_window, 3000)
    assert.equal((await getSession(s.d, sid)).composition.needs_reload, true)
  })

  it('composition without servers: reads the instructions again and starts no kernel', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'hearth-ws-'))
    const sid = await newSession(s, { workspace })
    await change(s.d, 'mcp', { servers: { fine: null } })
    writeFileSync(join(workspace, 'AGENTS.md'), 'Answer in haiku.\n')
    const result = (await reload(sid, { targets: ['composition'] })).json()
    assert.equal(result.composition.outcome, 'reloaded')
    assert.deepEqual(
      result.composition.instructions.map((i: any) => [i.path.endsWith('/AGENTS.md'), i.scope, i.state]),
      [[true, 'workspace', 'loaded']],
    )
    const read = await getSession(s.d, sid)
    assert.equal(read.composition.needs_reload, false)
    assert.equal(read.kernel.state, 'none')
    assert.equal(reloadText(result), 'composition reloaded: 1 instruction file')
  })

  it('a quarantined server comes back once its settings are fixed and the session reloads', async () => {
    await change(s.d, 'mcp', {
      servers: { flaky: stdioServer({ args: [STDIO_SERVER, '--crash-at-start'] }) },
    })
    const sid = await newSession(s)
    const first = (await reload(sid, { targets: ['composition'] })).json()
    assert.equal(first.composition.outcome, 'reloaded')
    assert.deepEqual(
      first.composition.quarantine.map((q: any) => [q.name, q.state]),
      [['flaky', 'failed']],
    )
    assert.deepEqual(
      (await getSession(s.d, sid)).composition.quarantine.map((q: any) => q.name),
      ['flaky'],
    )
    await change(s.d, 'mcp', { servers: { flaky: stdioServer() } })
    const second = (await reload(sid, { targets: ['composition'] })).json()
    assert.deepEqual(second.composition.quarantine, [])
    const read = await getSession(s.d, sid)
    assert.deepEqual(read.composition.quarantine, [])
    assert.equal(read.composition.availability['mcp:flaky'].state, 'ready')
    // Its tools are offered to the model from the next turn on.
    s.upstream.reset()
    s.upstream.enqueue(answer('done'))
    await runMessage(s, sid, 'hello', 40_000)
    const offered = (s.upstream.requests[0].body.tools ?? []).map((t: any) => t.function?.name ?? t.name)
    assert.ok(offered.includes('mcp__flaky__echo'), offered.join(', '))
  })

  it('a quarantined server whose settings are unchanged is started again by a reload', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-mcp-'))
    const command = join(dir, 'node-link')
    await change(s.d, 'mcp', { servers: { late: stdioServer({ command }) } })
    const sid = await newSession(s)
    const first = (await reload(sid, { targets: ['composition'] })).json()
    assert.deepEqual(
      first.composition.quarantine.map((q: any) => q.name),
      ['late'],
    )
    assert.match(first.composition.quarantine[0].reason, /ENOENT/)
    // What it needs appears; the settings stay as they were.
    symlinkSync(process.execPath, command)
    const second = (await reload(sid, { targets: ['composition'] })).json()
    assert.deepEqual(second.composition.quarantine, [])
    assert.equal((await getSession(s.d, sid)).composition.availability['mcp:late'].state, 'ready')
  })

  it('a config.json that does not parse: the composition fails and its servers stay loaded', async () => {
    await change(s.d, 'mcp', { servers: { fine: stdioServer() } })
    const sid = await newSession(s)
    assert.equal((await reload(sid, { targets: ['composition'] })).json().composition.outcome, 'reloaded')
    const config = join(s.home, 'config.json')
    const good = readFileSync(config, 'utf8')
    writeFileSync(config, '{"mcp": ')
    try {
      const result = (await reload(sid, { targets: ['composition'] })).json()
      assert.equal(result.composition.outcome, 'failed')
      assert.equal(result.composition.problem.code, 'composition_load_failed')
      assert.equal(result.composition.needs_reload, false)
      const read = await getSession(s.d, sid)
      assert.equal(read.composition.availability['mcp:fine'].state, 'ready')
    } finally {
      writeFileSync(config, good)
    }
  })

  it('is 409 session_busy while a turn runs, and reloads nothing', async () => {
    const sid = await newSession(s)
    s.upstream.enqueue({ text: ['slow', ' answer'], delayMs: 600 })
    await putInput(s.d, sid, message('a slow one'))
    await waitSession(s.d, sid, (x) => x.status.phase === 'running')
    assertProblem(await reload(sid, { targets: ['composition', 'models'] }), 409, 'session_busy')
    const read = await waitSession(s.d, sid, idle)
    // The run loaded the composition it ran with; the refused reload wrote nothing.
    assert.equal(read.composition.needs_reload, false)
    assert.equal(read.latest_answer.outcome, 'completed')
  })

  it('refuses bad bodies with their codes, and an unknown session', async () => {
    const sid = await newSession(s)
    const cases: [unknown, string][] = [
      [{}, 'invalid_request'],
      [{ targets: [] }, 'invalid_request'],
      [{ targets: ['kernel'] }, 'invalid_request'],
      [{ targets: ['models', 'models'] }, 'invalid_request'],
      [{ targets: 'models' }, 'invalid_request'],
      [{ targets: ['models'], replay: true }, 'unknown_field'],
    ]
    for (const [body, code] of cases) assertProblem(await reload(sid, body), 400, code, JSON.stringify(body))
    assertProblem(
      await s.d.request({
        method: 'POST',
        path: `/sessions/${sid}/reload`,
        headers: { 'content-type': 'application/json' },
        body: '{"targets": [',
      }),
      400,
      'malformed_json',
    )
    assertProblem(
      await reload('01900000-0000-7000-8000-000000000000', { targets: ['models'] }),
      404,
      'session_not_found',
    )
  })

  it('hearth chat: /reload prints a line per target', async () => {
    await change(s.d, 'mcp', { servers: { fine: stdioServer() } })
    await change(s.d, 'models', { catalogue_url: catalogueUrl })
    const { code, stdout, stderr } = await runCli(
      ['chat', '--home', s.home, '--workspace', s.workspace],
      {},
      {
        stdin: ['/reload', '/reload composition models', '/reload kernel', ''].join('\n'),
        timeoutMs: 30_000,
      },
    )
    assert.equal(code, 0, stderr)
    assert.match(
      stdout,
      new RegExp(
        // Alone, the composition only (nothing downloaded); both when named.
        `composition reloaded: 0 instruction files\n> composition reloaded: 0 instruction files\nmodel catalogue refreshed: 1 providers, 1 models from ${catalogueUrl.replaceAll('.', '\\.')}\n`,
      ),
    )
    assert.equal(stdout.match(/model catalogue refreshed/g)?.length, 1, stdout)
    assert.match(stderr, /not kernel/)
  })

  it('/reload in the clients: the composition by default, or the targets named', () => {
    assert.equal(parseCommand('/reload')?.command?.name, 'reload')
    assert.deepEqual(reloadArgs(''), { targets: ['composition'] })
    assert.deepEqual(reloadArgs(' models '), { targets: ['models'] })
    assert.deepEqual(reloadArgs('composition models composition'), { targets: ['composition', 'models'] })
    assert.throws(() => reloadArgs('kernel'), /not kernel/)
  })
})
