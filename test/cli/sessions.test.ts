// `hearth sessions` and `hearth session new|show|watch` against a real daemon, each run as
// its own process through bin/hearth.mjs, exactly as a user runs them.
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { v7 as uuidv7 } from 'uuid'
import { BIN, runCli, startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { configure, createSession, deleteLeaf } from '../streams/sse-client.ts'

/** No daemon can be reached through this home, whatever the environment says. */
const noHome = { HEARTH_HOME: '' }
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/** A CLI process that keeps running (watch): its output so far, and waiting on it. */
class Cli {
  readonly proc: ChildProcess
  readonly exited: Promise<number | null>
  stdout = ''
  stderr = ''

  constructor(args: string[], opts: { cwd?: string } = {}) {
    this.proc = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...noHome },
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: opts.cwd,
    })
    this.proc.stdout?.on('data', (d) => {
      this.stdout += d
    })
    this.proc.stderr?.on('data', (d) => {
      this.stderr += d
    })
    this.exited = new Promise((res) => this.proc.on('close', (code) => res(code)))
  }

  get lines(): string[] {
    return this.stdout.split('\n').filter((l) => l !== '')
  }

  /** Waits until stdout (or stderr) matches. */
  async waitFor(re: RegExp, timeoutMs = 10_000, stream: 'stdout' | 'stderr' = 'stdout'): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (!re.test(this[stream])) {
      if (this.proc.exitCode !== null)
        throw new Error(`exited ${this.proc.exitCode} before ${re}: ${this.stdout}${this.stderr}`)
      if (Date.now() > deadline)
        throw new Error(`no ${re} within ${timeoutMs} ms: ${this.stdout}${this.stderr}`)
      await sleep(10)
    }
  }

  async run(): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 15_000)
    const code = await this.exited
    clearTimeout(timer)
    return { code, stdout: this.stdout, stderr: this.stderr }
  }

  kill(signal: NodeJS.Signals = 'SIGINT'): Promise<number | null> {
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 10_000)
    this.proc.kill(signal)
    return this.exited.finally(() => clearTimeout(timer))
  }
}

/** Event ids (`<generation>:<seq>`) of watch lines, in order. */
const idsOf = (lines: string[]) => lines.map((l) => l.split(' ')[0])

describe('hearth sessions, session new and show', () => {
  let d: TestDaemon
  before(async () => {
    d = await startDaemon()
  })
  after(async () => {
    await d.stop()
  })

  it('new creates a session in the resolved workspace; sessions and show find it', async () => {
    const workspace = join(d.home, 'project')
    mkdirSync(workspace)
    // A relative --workspace is resolved against the current directory.
    const created = await new Cli(
      ['session', 'new', '--workspace', 'project', '--name', 'round trip', '--home', d.home],
      {
        cwd: d.home,
      },
    ).run()
    assert.equal(created.code, 0, created.stderr)
    const id = created.stdout.trim()
    assert.match(id, UUID_V7)

    const table = await runCli(['sessions', '--home', d.home], noHome)
    assert.equal(table.code, 0, table.stderr)
    const [head, ...rows] = table.stdout.trimEnd().split('\n')
    assert.match(head, /^HANDLE\s+NAME\s+WORKSPACE\s+PHASE\s+ACTIVITY\s+ID$/)
    const row = rows.find((r) => r.endsWith(id))
    assert.ok(row, table.stdout)
    assert.match(row, new RegExp(`^${id.slice(-6)}\\s+round trip\\s+.*project\\s+idle\\s+just now\\s+${id}$`))

    const json = await runCli(['sessions', '--json', '--home', d.home], noHome)
    assert.equal(json.code, 0, json.stderr)
    const listed = json.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
    const mine = listed.find((s) => s.id === id)
    assert.equal(mine.name, 'round trip')
    assert.equal(mine.workspace, workspace)

    const shown = await runCli(['session', 'show', id, '--json', '--home', d.home], noHome)
    assert.equal(shown.code, 0, shown.stderr)
    const s = JSON.parse(shown.stdout)
    assert.equal(s.id, id)
    assert.deepEqual(
      { kind: s.creation.submitted.kind, workspace: s.creation.submitted.workspace },
      { kind: 'new', workspace },
    )
    assert.equal(s.status.phase, 'idle')

    const text = await runCli(['session', 'show', id, '--home', d.home], noHome)
    assert.equal(text.code, 0, text.stderr)
    assert.match(text.stdout, new RegExp(`^id\\s+${id}$`, 'm'))
    assert.match(text.stdout, /^name\s+round trip$/m)
    assert.match(text.stdout, new RegExp(`^workspace\\s+${workspace}$`, 'm'))
    assert.match(text.stdout, /^cursor\s+1:1$/m)
  })

  it('--all adds children and --search filters', async () => {
    const root = await createSession(d, { kind: 'new', workspace: d.home, name: 'searchable parent' })
    const child = await createSession(d, { kind: 'child', parent_id: root, name: 'the child' })
    const roots = await runCli(['sessions', '--json', '--home', d.home], noHome)
    const rootIds = roots.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l).id)
    assert.ok(rootIds.includes(root))
    assert.ok(!rootIds.includes(child))
    const all = await runCli(['sessions', '--all', '--json', '--home', d.home], noHome)
    assert.ok(all.stdout.includes(child), all.stdout)
    const found = await runCli(['sessions', '--search', 'SEARCHABLE', '--home', d.home], noHome)
    assert.equal(found.code, 0, found.stderr)
    assert.equal(found.stdout.trimEnd().split('\n').length, 2, found.stdout) // header + 1
    assert.ok(found.stdout.includes(root))
  })

  it('follows next across pages', async () => {
    const home = tempHome()
    const e = await startDaemon({ home })
    try {
      const ids = new Set<string>()
      for (let i = 0; i < 230; i++) ids.add(await createSession(e))
      const r = await runCli(['sessions', '--json', '--home', home], noHome)
      assert.equal(r.code, 0, r.stderr)
      const listed = r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).id)
      assert.equal(listed.length, 230)
      assert.deepEqual(new Set(listed), ids)
    } finally {
      await e.stop()
    }
  })

  it('a bad workspace exits 1 with the problem title, detail and code', async () => {
    const missing = join(d.home, 'no-such-dir')
    const r = await runCli(['session', 'new', '--workspace', missing, '--home', d.home], noHome)
    assert.equal(r.code, 1, r.stderr)
    assert.equal(r.stdout, '')
    assert.match(
      r.stderr,
      /^hearth: The workspace directory does not exist on the daemon host: .*\(workspace_not_found\)\n$/,
    )
    const file = join(d.home, 'a-file')
    writeFileSync(file, '')
    const f = await runCli(['session', 'new', '--workspace', file, '--home', d.home], noHome)
    assert.equal(f.code, 1, f.stderr)
    assert.match(f.stderr, /\(workspace_not_directory\)\n$/)
  })

  it('show of an unknown id exits 1 with session_not_found', async () => {
    const r = await runCli(['session', 'show', uuidv7(), '--home', d.home], noHome)
    assert.equal(r.code, 1)
    assert.match(r.stderr, /^hearth: No session has this id: .*\(session_not_found\)\n$/)
  })

  it('every command exits 1 on a home with no daemon, saying how to start one', async () => {
    const empty = tempHome()
    for (const args of [
      ['sessions'],
      ['session', 'new', '--workspace', empty],
      ['session', 'show', uuidv7()],
      ['session', 'watch', uuidv7()],
    ]) {
      const r = await runCli([...args, '--home', empty], noHome)
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`)
      assert.ok(r.stderr.includes(`hearth daemon --home ${empty}`), r.stderr)
      assert.equal(r.stdout, '')
    }
  })
})

describe('session new with an uncertain response', () => {
  let d: TestDaemon
  let proxy: Server
  let puts = 0
  const home = tempHome()
  before(async () => {
    d = await startDaemon()
    // A proxy that forwards everything, but answers the first PUT by cutting the
    // connection after the daemon has committed it: the client cannot know it worked.
    proxy = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c) => chunks.push(c))
      req.on('end', () => {
        const isPut = req.method === 'PUT'
        if (isPut) puts++
        const up = httpRequest(
          {
            host: d.hostname,
            port: d.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: new URL(d.url).host },
          },
          (upRes) => {
            const body: Buffer[] = []
            upRes.on('data', (c) => body.push(c))
            upRes.on('end', () => {
              if (isPut && puts === 1) {
                req.socket.destroy()
                return
              }
              res.writeHead(upRes.statusCode ?? 502, upRes.headers)
              res.end(Buffer.concat(body))
            })
          },
        )
        up.end(Buffer.concat(chunks))
      })
    })
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r))
    const port = (proxy.address() as AddressInfo).port
    writeFileSync(join(home, 'token'), readFileSync(join(d.home, 'token')))
    writeFileSync(join(home, 'daemon.json'), JSON.stringify({ url: `http://127.0.0.1:${port}` }))
  })
  after(async () => {
    proxy.close()
    await d.stop()
  })

  it('retries the same id and takes the 412 with its own creation.submitted as success', async () => {
    const r = await runCli(
      ['session', 'new', '--workspace', d.home, '--name', 'lost reply', '--home', home],
      noHome,
    )
    assert.equal(r.code, 0, r.stderr)
    const id = r.stdout.trim()
    assert.match(id, UUID_V7)
    assert.equal(puts, 2, 'the PUT was sent again')
    const page = (await d.client.call('sessions.list', { query: { limit: 200 } })).body
    assert.deepEqual(
      page.items.filter((s) => s.name === 'lost reply').map((s) => s.id),
      [id],
    )
  })
})

describe('hearth session watch', () => {
  it('prints events live, resumes across a daemon restart without gaps or duplicates, exits 0 on SIGINT', {
    timeout: 60_000,
  }, async () => {
    const home = tempHome()
    let d = await startDaemon({ home })
    let w: Cli | undefined
    try {
      const id = await createSession(d, { kind: 'new', workspace: home, name: 'watched' })
      w = new Cli(['session', 'watch', id, '--home', home])
      await w.waitFor(/^1:1 snapshot "watched" phase=idle/m)
      for (let i = 1; i <= 3; i++) await configure(d, id, { name: `live ${i}` })
      await w.waitFor(/^1:4 session\.configured revision 4: name="live 3"$/m)

      const firstUrl = d.url
      assert.equal(await d.stop(), 0)
      await w.waitFor(/connection to the daemon lost/, 10_000, 'stderr')
      d = await startDaemon({ home })
      if (d.url === firstUrl) process.emitWarning('the restarted daemon got the same port by chance')
      // Right away (the watcher is most likely still waiting to reconnect: replayed from
      // the log), then after it reconnected (live).
      for (let i = 1; i <= 5; i++) await configure(d, id, { name: `restarted ${i}` })
      await w.waitFor(/reconnected/, 10_000, 'stderr')
      for (let i = 6; i <= 8; i++) await configure(d, id, { name: `restarted ${i}` })
      await w.waitFor(/^1:12 session\.configured revision 12: name="restarted 8"$/m)

      assert.equal(await w.kill('SIGINT'), 0)
      const ids = idsOf(w.lines)
      assert.deepEqual(
        ids,
        Array.from({ length: 12 }, (_, i) => `1:${i + 1}`),
        w.stdout,
      )
      assert.match(w.lines[4], /^1:5 session\.configured revision 5: name="restarted 1"$/)
    } finally {
      if (w && w.proc.exitCode === null) w.proc.kill('SIGKILL')
      await d.stop()
    }
  })

  describe('on one daemon', () => {
    let d: TestDaemon
    before(async () => {
      d = await startDaemon()
    })
    after(async () => {
      await d.stop()
    })

    it('--json prints one frame per line with the raw data', async () => {
      const id = await createSession(d, { kind: 'new', workspace: d.home })
      const w = new Cli(['session', 'watch', id, '--json', '--home', d.home])
      await w.waitFor(/"event":"snapshot"/)
      await configure(d, id, { preferences: { pinned: true } })
      await w.waitFor(/"event":"session.configured"/)
      assert.equal(await w.kill('SIGINT'), 0)
      const [snapshot, configured] = w.lines.map((l) => JSON.parse(l))
      assert.equal(snapshot.id, '1:1')
      assert.equal(snapshot.data.session.id, id)
      assert.deepEqual(configured, {
        event: 'session.configured',
        id: '1:2',
        data: {
          kind: 'session.configured',
          generation: 1,
          sequence: 2,
          at: configured.data.at,
          payload: { revision: 2, changes: { pinned: true } },
        },
      })
    })

    it('exits 1 when the session is deleted while watching', async () => {
      const id = await createSession(d, { kind: 'new', workspace: d.home })
      const w = new Cli(['session', 'watch', id, '--home', d.home])
      await w.waitFor(/snapshot/)
      await deleteLeaf(d, id)
      const r = await w.run()
      assert.equal(r.code, 1, r.stderr)
      assert.match(r.stdout, /^- session\.deleted/m)
      assert.match(r.stderr, new RegExp(`hearth: session ${id} was deleted`))
    })

    it('exits 1 for a deleted or unknown session', async () => {
      const id = await createSession(d, { kind: 'new', workspace: d.home })
      await deleteLeaf(d, id)
      const gone = await runCli(['session', 'watch', id, '--home', d.home], noHome)
      assert.equal(gone.code, 1)
      assert.match(gone.stderr, /\(session_deleted\)\n$/)
      const unknown = await runCli(['session', 'watch', uuidv7(), '--home', d.home], noHome)
      assert.equal(unknown.code, 1)
      assert.match(unknown.stderr, /\(session_not_found\)\n$/)
    })
  })
})

describe('session usage errors exit 2', { concurrency: true }, () => {
  const id = uuidv7()
  const cases: [string, string[], RegExp][] = [
    ['session without a command', ['session'], /needs a command: new, show, watch or set/],
    ['an unknown session command', ['session', 'frob'], /unknown session command frob/],
    ['new without --workspace', ['session', 'new'], /needs --workspace DIR/],
    ['new with an empty name', ['session', 'new', '--workspace', '/tmp', '--name', ''], /--name/],
    ['new with a stray argument', ['session', 'new', '--workspace', '/tmp', 'extra'], /extra/],
    ['show without an id', ['session', 'show'], /needs a session id/],
    ['show with a malformed id', ['session', 'show', 'not-an-id'], /not-an-id is not a session id/],
    [
      'show with a UUID that is not v7',
      ['session', 'show', '6ba7b810-9dad-41d1-80b4-00c04fd430c8'],
      /not a session id/,
    ],
    ['watch with two ids', ['session', 'watch', id, id], /unexpected argument/],
    ['an unknown watch flag', ['session', 'watch', id, '--bogus'], /--bogus/],
    ['an unknown sessions flag', ['sessions', '--bogus'], /--bogus/],
    ['a stray sessions argument', ['sessions', 'extra'], /extra/],
    ['an empty home', ['sessions', '--home', ''], /--home needs a directory/],
    ['a search over 256 characters', ['sessions', '--search', 'x'.repeat(257)], /at most 256/],
  ]
  for (const [what, args, message] of cases) {
    it(`for ${what}`, async () => {
      const r = await runCli(args, noHome, { timeoutMs: 10_000 })
      assert.equal(r.code, 2, `${r.stdout}${r.stderr}`)
      assert.match(r.stderr, message)
      assert.match(r.stderr, /hearth --help/)
      assert.equal(r.stdout, '')
    })
  }
})
