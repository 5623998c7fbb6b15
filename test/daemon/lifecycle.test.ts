// The daemon's life: home, token, daemon.json, the one-daemon-per-home lock, loopback-only
// binding, draining on SIGTERM/SIGINT, the log. Every test runs the real bundle.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { chmodSync, chownSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { connect, createServer, type Socket } from 'node:net'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { pathToFileURL } from 'node:url'
import Database from 'better-sqlite3'
import { BIN, ROOT, runCli, startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const RFC3339_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const TOKEN = /^[A-Za-z0-9_-]{43}$/
/** An instance id that is well formed but names no daemon: shutdown answers 409. */
const OTHER_INSTANCE = '01900000-0000-7000-8000-000000000000'

const modeOf = (path: string) => statSync(path).mode & 0o777
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'))
const runtimeOf = (home: string) => join(home, 'daemon.json')

/** Resolves once the daemon's listener is closed (a new connection is refused). */
async function listenerClosed(d: TestDaemon): Promise<void> {
  const deadline = Date.now() + 5000
  for (;;) {
    const refused = await new Promise<boolean>((resolve) => {
      const s = connect(d.port, d.hostname)
      s.on('connect', () => {
        s.destroy()
        resolve(false)
      })
      s.on('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'))
    })
    if (refused) return
    if (Date.now() > deadline) throw new Error('the daemon kept accepting connections')
    await sleep(10)
  }
}

interface ParsedResponse {
  status: number
  headers: Record<string, string>
  body: string
}

/**
 * A raw HTTP/1.1 connection, so a test can send a request in pieces, pipeline requests and
 * see exactly when the server closes the connection.
 */
class RawConnection {
  readonly socket: Socket
  private buffer = Buffer.alloc(0)
  private waiters: (() => void)[] = []
  closed = false
  readonly whenClosed: Promise<void>

  constructor(d: TestDaemon) {
    this.socket = connect(d.port, d.hostname)
    this.socket.on('data', (chunk) => {
      this.buffer = Buffer.concat([this.buffer, chunk])
      this.wake()
    })
    this.socket.on('error', () => {}) // a reset is one of the outcomes under test
    this.whenClosed = new Promise((resolve) =>
      this.socket.on('close', () => {
        this.closed = true
        this.wake()
        resolve()
      }),
    )
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w()
  }

  write(data: string): void {
    if (!this.closed) this.socket.write(data)
  }

  /** The next complete response, or undefined when the connection closes first. */
  async nextResponse(): Promise<ParsedResponse | undefined> {
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n')
      if (end >= 0) {
        const [statusLine, ...lines] = this.buffer.subarray(0, end).toString('latin1').split('\r\n')
        const headers: Record<string, string> = {}
        for (const line of lines) {
          const i = line.indexOf(':')
          headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim()
        }
        const length = Number(headers['content-length'] ?? 0)
        if (this.buffer.length >= end + 4 + length) {
          const body = this.buffer.subarray(end + 4, end + 4 + length).toString('utf8')
          this.buffer = this.buffer.subarray(end + 4 + length)
          return { status: Number(statusLine.split(' ')[1]), headers, body }
        }
      }
      if (this.closed) return undefined
      await new Promise<void>((resolve) => this.waiters.push(resolve))
    }
  }
}

function requestHead(
  d: TestDaemon,
  method: string,
  path: string,
  extra: Record<string, string> = {},
): string {
  const headers = { host: `127.0.0.1:${d.port}`, authorization: `Bearer ${d.token}`, ...extra }
  return `${method} ${path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`
}

/** Opens a POST /server/shutdown naming another instance and sends only part of its body. */
async function startSlowShutdown(d: TestDaemon): Promise<{ conn: RawConnection; rest: string }> {
  const body = JSON.stringify({ instance_id: OTHER_INSTANCE })
  const conn = new RawConnection(d)
  conn.write(
    requestHead(d, 'POST', '/server/shutdown', {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    }) + body.slice(0, 10),
  )
  // Let the daemon admit the request (headers parsed, handler waiting for the body) before
  // the test goes on: a full round trip on another connection, then a little slack.
  assert.equal((await d.request({ path: '/server' })).status, 200)
  await sleep(50)
  return { conn, rest: body.slice(10) }
}

describe('home', { concurrency: true }, () => {
  it('creates a missing home with mode 0700', async () => {
    const home = join(tempHome(), 'not', 'yet')
    assert.equal(existsSync(home), false)
    const d = await startDaemon({ home })
    try {
      assert.equal(modeOf(home), 0o700)
      assert.equal(modeOf(join(home, 'logs')), 0o700)
    } finally {
      assert.equal(await d.stop(), 0)
    }
  })

  it('tightens an existing home with a looser mode (0755) to 0700', async () => {
    const home = tempHome()
    chmodSync(home, 0o755)
    const d = await startDaemon({ home })
    try {
      assert.equal(modeOf(home), 0o700)
    } finally {
      assert.equal(await d.stop(), 0)
    }
  })

  it('refuses a home owned by another user, saying so, and leaves it as it was', async (t) => {
    if (process.getuid?.() !== 0) return t.skip('needs root to give the home to another user')
    const home = tempHome()
    chmodSync(home, 0o755)
    chownSync(home, 65534, 65534)
    const r = await runCli(['daemon', '--home', home, '--port', '0'], {}, { timeoutMs: 10_000 })
    assert.equal(r.code, 1, r.stderr)
    assert.ok(r.stderr.includes(`cannot use the home ${home}: it is owned by uid 65534`), r.stderr)
    assert.equal(modeOf(home), 0o755)
    assert.equal(existsSync(join(home, 'token')), false)
  })

  it('uses HEARTH_HOME when --home is absent', async () => {
    const home = join(tempHome(), 'from-env')
    const d = await startDaemon({ home, homeFromEnv: true })
    try {
      assert.equal(readJson(runtimeOf(home)).pid, d.proc.pid)
      assert.equal((await d.request({ path: '/server' })).status, 200)
    } finally {
      assert.equal(await d.stop(), 0)
    }
  })

  it('prefers --home over HEARTH_HOME', async () => {
    const home = tempHome()
    const other = join(tempHome(), 'ignored')
    const d = await startDaemon({ home, env: { HEARTH_HOME: other } })
    try {
      assert.equal(readJson(runtimeOf(home)).pid, d.proc.pid)
      assert.equal(existsSync(other), false)
    } finally {
      await d.stop()
    }
  })
})

describe('token', () => {
  it('is 32 random bytes in base64url, mode 0600, and survives a restart', async () => {
    const home = tempHome()
    const first = await startDaemon({ home })
    const path = join(home, 'token')
    const token = readFileSync(path, 'utf8').trim()
    assert.equal(await first.stop(), 0)
    assert.match(token, TOKEN)
    assert.equal(Buffer.from(token, 'base64url').length, 32)
    assert.equal(modeOf(path), 0o600)

    const second = await startDaemon({ home })
    try {
      assert.equal(second.token, token)
      assert.equal(modeOf(path), 0o600)
      assert.equal((await second.request({ path: '/server' })).status, 200)
    } finally {
      await second.stop()
    }
  })
})

describe('daemon.json', () => {
  it('describes the listening daemon (mode 0600) and is removed on SIGTERM, exit 0', async () => {
    const d = await startDaemon()
    const path = runtimeOf(d.home)
    const info = readJson(path)
    assert.deepEqual(Object.keys(info).sort(), ['instance_id', 'pid', 'protocol', 'started_at', 'url'])
    assert.equal(info.url, `http://127.0.0.1:${d.port}`)
    assert.equal(info.pid, d.proc.pid)
    assert.match(info.instance_id, UUID_V7)
    assert.equal(info.protocol, 3)
    assert.match(info.started_at, RFC3339_MS_UTC)
    assert.ok(Math.abs(Date.parse(info.started_at) - Date.now()) < 60_000)
    assert.equal(modeOf(path), 0o600)
    assert.equal((await d.request({ path: '/server' })).json().instance_id, info.instance_id)

    assert.equal(await d.stop('SIGTERM'), 0)
    assert.equal(existsSync(path), false)
  })

  it('is removed on SIGINT, exit 0', async () => {
    const d = await startDaemon()
    assert.equal(await d.stop('SIGINT'), 0)
    assert.equal(existsSync(runtimeOf(d.home)), false)
  })
})

describe('one daemon per home', () => {
  it('refuses a second daemon, naming the first, which keeps serving', async () => {
    const d = await startDaemon()
    try {
      const second = await runCli(['daemon', '--home', d.home, '--port', '0'], {}, { timeoutMs: 10_000 })
      assert.equal(second.code, 1, second.stderr)
      assert.match(second.stderr, /already runs/)
      assert.ok(second.stderr.includes(`pid ${d.proc.pid}`), second.stderr)
      assert.ok(second.stderr.includes(d.url), second.stderr)
      assert.equal(readJson(runtimeOf(d.home)).pid, d.proc.pid)
      assert.equal((await d.request({ path: '/server' })).status, 200)
    } finally {
      assert.equal(await d.stop(), 0)
    }
  })

  it('takes over the lock of a daemon killed with SIGKILL', async () => {
    const home = tempHome()
    const killed = await startDaemon({ home })
    const before = readJson(runtimeOf(home))
    killed.proc.kill('SIGKILL')
    await killed.exited
    assert.equal(readJson(runtimeOf(home)).pid, before.pid, 'a killed daemon leaves daemon.json behind')

    const d = await startDaemon({ home })
    try {
      const after = readJson(runtimeOf(home))
      assert.equal(after.pid, d.proc.pid)
      assert.notEqual(after.instance_id, before.instance_id)
      assert.notEqual(after.url, '')
      assert.equal(d.token, killed.token)
      const server = await d.request({ path: '/server' })
      assert.equal(server.status, 200)
      assert.equal(server.json().instance_id, after.instance_id)
    } finally {
      assert.equal(await d.stop(), 0)
    }
  })
})

describe('loopback only', { concurrency: true }, () => {
  for (const host of ['0.0.0.0', '192.168.1.1', '::', 'localhost']) {
    it(`refuses --host ${host}`, async () => {
      const home = join(tempHome(), 'h')
      const r = await runCli(
        ['daemon', '--home', home, '--port', '0', '--host', host],
        {},
        { timeoutMs: 10_000 },
      )
      assert.equal(r.code, 1, r.stderr)
      assert.ok(r.stderr.includes(`refusing to listen on ${host}`), r.stderr)
      assert.match(r.stderr, /loopback only/)
      assert.equal(existsSync(runtimeOf(home)), false)
    })
  }

  it('serves on ::1 with an IPv6 URL and Host header', async () => {
    const d = await startDaemon({ args: ['--host', '::1'] })
    try {
      assert.equal(d.url, `http://[::1]:${d.port}`)
      const ok = await d.request({ path: '/server', headers: { host: `[::1]:${d.port}` } })
      assert.equal(ok.status, 200)
      assert.equal(ok.json().protocol, 3)
      const wrongPort = await d.request({ path: '/server', headers: { host: `[::1]:${d.port + 1}` } })
      assert.equal(wrongPort.status, 403)
      assert.equal((await d.client.call('server.get')).status, 200)
    } finally {
      assert.equal(await d.stop(), 0)
    }
  })
})

describe('start failures', () => {
  it('reports a busy port clearly, writes no daemon.json and frees the home', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const port = (blocker.address() as { port: number }).port
    const home = tempHome()
    try {
      const r = await runCli(['daemon', '--home', home, '--port', String(port)], {}, { timeoutMs: 10_000 })
      assert.equal(r.code, 1, r.stderr)
      assert.ok(r.stderr.includes(`cannot listen on 127.0.0.1 port ${port}`), r.stderr)
      assert.match(r.stderr, /already in use/)
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace')
      assert.equal(existsSync(runtimeOf(home)), false)
      const log = readFileSync(join(home, 'logs', 'hearth.log'), 'utf8')
      assert.match(log, /"msg":"start failed"/)
    } finally {
      blocker.close()
    }
    const d = await startDaemon({ home })
    assert.equal(await d.stop(), 0)
  })

  it('refuses a home it cannot create, with the reason and no stack trace', async () => {
    // Under /proc a recursive mkdir can spin; the daemon must fail at once instead.
    const aFile = join(tempHome(), 'a-file')
    writeFileSync(aFile, '')
    for (const home of ['/proc/self/hearth-home', join(aFile, 'nested')]) {
      const r = await runCli(['daemon', '--home', home, '--port', '0'], {}, { timeoutMs: 10_000 })
      assert.equal(r.code, 1, r.stderr)
      assert.ok(r.stderr.includes(`cannot use the home ${home}`), r.stderr)
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace')
    }
  })

  it('refuses a state.db from a newer hearth and leaves it untouched', async () => {
    const home = tempHome()
    const first = await startDaemon({ home })
    assert.equal(await first.stop(), 0)
    const db = new Database(join(home, 'state.db'))
    db.pragma('user_version = 999')
    db.close()
    const before = readFileSync(join(home, 'state.db'))
    const r = await runCli(['daemon', '--home', home, '--port', '0'], {}, { timeoutMs: 10_000 })
    assert.equal(r.code, 1, r.stderr)
    assert.match(r.stderr, /schema version 999, newer than this hearth supports/)
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace')
    assert.deepEqual(readFileSync(join(home, 'state.db')), before)
    assert.equal(existsSync(runtimeOf(home)), false)
  })

  it('logs an uncaught exception, removes daemon.json and exits 1', async () => {
    const fixture = pathToFileURL(join(import.meta.dirname, 'fixtures', 'throw-on-sigusr2.mjs')).href
    const d = await startDaemon({
      env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${fixture}`.trim() },
    })
    d.proc.kill('SIGUSR2')
    assert.equal(await d.exited, 1, d.stderr)
    assert.match(d.stderr, /boom from the SIGUSR2 test fixture/)
    assert.equal(existsSync(runtimeOf(d.home)), false)
    const lines = readFileSync(join(d.home, 'logs', 'hearth.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    const fatal = lines.find((l) => l.msg === 'uncaught exception')
    assert.ok(fatal, 'the exception is logged')
    assert.equal(fatal.level, 60)
    assert.match(fatal.err.message, /boom from the SIGUSR2 test fixture/)
  })
})

describe('drain', () => {
  it('finishes a request in flight when SIGTERM arrives, then exits 0', async () => {
    const d = await startDaemon()
    const { conn, rest } = await startSlowShutdown(d)
    d.proc.kill('SIGTERM')
    await listenerClosed(d) // the drain has begun: no new connections
    assert.equal(d.proc.exitCode, null, 'the daemon waits for the request in flight')
    // The rest of the body, then a second request pipelined on the same connection.
    conn.write(rest + requestHead(d, 'GET', '/server'))
    const first = await conn.nextResponse()
    assert.ok(first, 'the in-flight request gets its response')
    assert.equal(first.status, 409)
    assert.equal(JSON.parse(first.body).code, 'instance_mismatch')
    assert.equal(first.headers.connection, 'close', 'the client learns the connection ends')
    // A request that arrives during the drain is refused, or its connection closed.
    const second = await conn.nextResponse()
    if (second !== undefined) {
      assert.equal(second.status, 503)
      assert.equal(JSON.parse(second.body).code, 'daemon_draining')
    }
    await conn.whenClosed
    assert.equal(await d.exited, 0)
    assert.equal(existsSync(runtimeOf(d.home)), false)
  })

  it('drains the same way on POST /server/shutdown', async () => {
    const d = await startDaemon()
    const { conn, rest } = await startSlowShutdown(d)
    const instanceId = JSON.parse(readFileSync(runtimeOf(d.home), 'utf8')).instance_id
    const accepted = await d.request({
      method: 'POST',
      path: '/server/shutdown',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ instance_id: instanceId }),
    })
    assert.equal(accepted.status, 202)
    await listenerClosed(d)
    assert.equal(d.proc.exitCode, null, 'the daemon waits for the request in flight')
    conn.write(rest)
    assert.equal((await conn.nextResponse())?.status, 409)
    assert.equal(await d.exited, 0)
    assert.equal(existsSync(runtimeOf(d.home)), false)
  })

  it('refuses new requests on an idle keep-alive connection once draining', async () => {
    const d = await startDaemon()
    const idle = new RawConnection(d)
    idle.write(requestHead(d, 'GET', '/server'))
    const warm = await idle.nextResponse()
    assert.equal(warm?.status, 200)
    assert.notEqual(warm?.headers.connection, 'close')

    const { conn, rest } = await startSlowShutdown(d) // keeps the daemon draining, not gone
    d.proc.kill('SIGTERM')
    await listenerClosed(d)
    idle.write(requestHead(d, 'GET', '/server'))
    const late = await idle.nextResponse()
    if (late !== undefined) {
      assert.equal(late.status, 503)
      assert.equal(JSON.parse(late.body).code, 'daemon_draining')
      assert.equal(late.headers.connection, 'close')
    }
    await idle.whenClosed

    conn.write(rest)
    assert.equal((await conn.nextResponse())?.status, 409)
    const t0 = Date.now()
    assert.equal(await d.exited, 0)
    assert.ok(Date.now() - t0 < 2000, 'no wait for keep-alive timeouts')
  })

  it('cuts connections still open at the deadline (HEARTH_DRAIN_MS) and exits 0', async () => {
    const d = await startDaemon({ env: { HEARTH_DRAIN_MS: '400' } })
    const { conn } = await startSlowShutdown(d) // its body never completes
    const t0 = Date.now()
    d.proc.kill('SIGTERM')
    assert.equal(await d.exited, 0)
    const elapsed = Date.now() - t0
    assert.ok(elapsed >= 350, `waited for the deadline (${elapsed} ms)`)
    assert.ok(elapsed < 5000, `did not wait for the default deadline (${elapsed} ms)`)
    await conn.whenClosed
    assert.equal(await conn.nextResponse(), undefined, 'the cut request gets no response')
    assert.equal(existsSync(runtimeOf(d.home)), false)
    const log = readFileSync(join(d.home, 'logs', 'hearth.log'), 'utf8')
    assert.match(log, /drain deadline passed/)
  })

  it('exits at once on a second signal', async () => {
    const d = await startDaemon()
    const { conn } = await startSlowShutdown(d)
    d.proc.kill('SIGTERM')
    await listenerClosed(d)
    const t0 = Date.now()
    d.proc.kill('SIGTERM')
    assert.equal(await d.exited, 0)
    assert.ok(Date.now() - t0 < 2000)
    await conn.whenClosed
  })
})

describe('log', () => {
  it('writes JSON lines to HOME/logs/hearth.log and never the token', async () => {
    const d = await startDaemon()
    const wrong = randomBytes(32).toString('base64url')
    assert.equal(
      (await d.request({ path: '/server', headers: { authorization: `Bearer ${wrong}` } })).status,
      401,
    )
    assert.equal((await d.request({ path: '/server', headers: { cookie: `token=${d.token}` } })).status, 200)
    assert.equal((await d.request({ path: '/server' })).status, 200)
    assert.equal((await d.request({ path: `/nope?token=${d.token}` })).status, 404)
    assert.equal(await d.stop(), 0)

    const path = join(d.home, 'logs', 'hearth.log')
    assert.equal(modeOf(path), 0o600)
    const text = readFileSync(path, 'utf8')
    const lines = text.trim().split('\n')
    const records = lines.map((l) => JSON.parse(l))
    for (const r of records) {
      assert.equal(typeof r.level, 'number')
      assert.equal(typeof r.time, 'number')
      assert.equal(typeof r.msg, 'string')
    }
    const messages = records.map((r) => r.msg)
    for (const m of ['listening', 'draining', 'stopped']) assert.ok(messages.includes(m), m)
    assert.ok(!text.includes(d.token), 'the token never reaches the log')
    assert.ok(!text.includes(wrong), 'nor a wrong token')
  })
})

describe('launch flags', () => {
  const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
  const shebangFlags = () => {
    const first = readFileSync(BIN, 'utf8').split('\n')[0]
    const m = /^#!\/usr\/bin\/env -S node (.+)$/.exec(first)
    assert.ok(m, `the shebang names node with flags: ${first}`)
    return m[1].split(' ')
  }

  it('the daemon runs with the V8 flags of the shebang, and npm start gives the same ones', async () => {
    const flags = shebangFlags()
    // Only a heap size: a flag that changes V8's flag hash makes Node recompile its builtins.
    assert.deepEqual(flags, ['--max-semi-space-size=1'])
    const pkg = readJson(join(ROOT, 'package.json'))
    assert.equal(pkg.scripts.start, `node ${flags.join(' ')} bin/hearth.mjs daemon`)

    const d = await startDaemon()
    try {
      const args = cmdline(d.proc.pid as number)
      for (const f of flags) assert.ok(args.includes(f), `daemon started with ${f}: ${args.join(' ')}`)
      // Kernels are forked without them: they keep every compiler tier for stream parsing.
      // A child caught between fork and exec still shows the daemon's command line: wait
      // until the spare kernel has exec'd.
      const children = `/proc/${d.proc.pid}/task/${d.proc.pid}/children`
      const kernelArgs = () =>
        readFileSync(children, 'utf8')
          .split(' ')
          .filter(Boolean)
          .map((pid) => cmdline(Number(pid)))
          .filter((args) => args.some((a) => a.endsWith('kernel.mjs')))
      let kernels: string[][] = []
      for (let i = 0; i < 500 && kernels.length === 0; i++) {
        kernels = kernelArgs()
        if (kernels.length === 0) await sleep(10)
      }
      assert.ok(kernels.length > 0, 'the spare kernel was forked')
      for (const kargs of kernels) {
        for (const f of flags) assert.ok(!kargs.includes(f), `kernel without ${f}: ${kargs.join(' ')}`)
        // Their one flag: a young generation of their own size (src/kernel/process.ts).
        assert.ok(kargs.includes('--max-semi-space-size=2'), `kernel young generation: ${kargs.join(' ')}`)
      }
    } finally {
      await d.stop()
    }
  })
})
