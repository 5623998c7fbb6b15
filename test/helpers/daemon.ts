// Starts the real daemon (the bundle, through bin/hearth.mjs) on port 0 in a temp home,
// exactly as a user would, and gives tests raw HTTP access plus the typed client.
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { HearthClient } from '../../src/client/client.ts'

// The usage core a daemon's quota poller runs for a test's signed-in accounts would call the
// vendors' usage endpoints. Every daemon and CLI a test starts inherits these, so it calls a
// closed loopback port instead (the poll records a refused connection), unless the test
// names its own fake (test/fakes/usage-endpoints.ts).
for (const name of [
  'HEARTH_CHATGPT_USAGE_URL',
  'HEARTH_CLAUDE_USAGE_URL',
  'HEARTH_ZAI_USAGE_URL',
  'HEARTH_MINIMAX_USAGE_URL',
  // GitHub (the device flow, its REST API, Copilot usage) and the Copilot API.
  'HEARTH_COPILOT_GITHUB_URL',
  'HEARTH_COPILOT_API_URL',
])
  process.env[name] ??= 'http://127.0.0.1:9'
// The GitHub CLI a copilot profile borrows a token from: a program that does not exist, so
// no test reads the machine's own `gh`, unless it names its stand-in.
process.env.HEARTH_COPILOT_GH ??= join(tmpdir(), 'hearth-test-no-gh')

export const ROOT = resolve(import.meta.dirname, '../..')
export const BIN = join(ROOT, 'bin/hearth.mjs')

/** PATH with the directory of the Node running this test first. */
export function pathWithThisNode(): string {
  return `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`
}

export function tempHome(prefix = 'hearth-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

export interface RawResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
  text: () => string
  json: () => any
}

export interface RawRequest {
  method?: string
  path: string
  headers?: Record<string, string>
  body?: string | Buffer
  /** Leave out the Authorization header. */
  noAuth?: boolean
}

export class TestDaemon {
  readonly home: string
  readonly proc: ChildProcess
  readonly exited: Promise<number | null>
  stderr = ''
  url = ''
  token = ''
  port = 0

  constructor(home: string, proc: ChildProcess) {
    this.home = home
    this.proc = proc
    proc.stderr?.on('data', (d) => {
      this.stderr += d
    })
    // On exit, give stderr a moment to be read to its end (a child process of the daemon
    // may hold the pipe open, so 'close' alone could wait forever).
    const stderrEnded = new Promise<void>((res) => {
      if (!proc.stderr || proc.stderr.readableEnded) res()
      else proc.stderr.on('close', () => res())
    })
    this.exited = new Promise((res) =>
      proc.on('exit', (code) => {
        void Promise.race([stderrEnded, sleep(200)]).then(() => res(code))
      }),
    )
  }

  get client(): HearthClient {
    return new HearthClient({ url: this.url, token: this.token })
  }

  /** The address the daemon listens on, without IPv6 brackets (127.0.0.1 or ::1). */
  get hostname(): string {
    return new URL(this.url).hostname.replace(/^\[|\]$/g, '')
  }

  /** A request over node:http, so tests control every header (Host included). */
  request(r: RawRequest): Promise<RawResponse> {
    const headers: Record<string, string> = { host: new URL(this.url).host, ...r.headers }
    if (!r.noAuth && headers.authorization === undefined) headers.authorization = `Bearer ${this.token}`
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: this.hostname,
          port: this.port,
          method: r.method ?? 'GET',
          path: r.path,
          headers,
          setHost: false,
          // A fresh connection each time: a kept one the daemon closes as idle just as a
          // request goes out on it would fail that request (socket hang up).
          agent: false,
        },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c) => chunks.push(c))
          res.on('end', () => {
            const body = Buffer.concat(chunks)
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body,
              text: () => body.toString('utf8'),
              json: () => JSON.parse(body.toString('utf8')),
            })
          })
          res.on('error', reject)
        },
      )
      req.on('error', reject)
      if (r.body !== undefined) req.end(r.body)
      else req.end()
    })
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill(signal)
    return this.exited
  }
}

export interface StartOptions {
  home?: string
  args?: string[]
  env?: Record<string, string>
  /** Name the home through HEARTH_HOME instead of --home. */
  homeFromEnv?: boolean
}

/** Spawns `hearth daemon --home H --port 0` and waits until H/daemon.json names it. */
export async function startDaemon(opts: StartOptions = {}): Promise<TestDaemon> {
  const home = opts.home ?? tempHome()
  const homeArgs = opts.homeFromEnv ? [] : ['--home', home]
  // The bin itself is executed, as `npx hearth daemon` does: its shebang carries the
  // daemon's V8 flags. This test's Node comes first on PATH for `/usr/bin/env node`.
  const proc = spawn(BIN, ['daemon', ...homeArgs, '--port', '0', ...(opts.args ?? [])], {
    env: { ...process.env, PATH: pathWithThisNode(), HEARTH_HOME: opts.homeFromEnv ? home : '', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const d = new TestDaemon(home, proc)
  const runtime = join(home, 'daemon.json')
  const deadline = Date.now() + 15_000
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`daemon exited ${proc.exitCode}: ${d.stderr}`)
    if (existsSync(runtime)) {
      try {
        const info = JSON.parse(readFileSync(runtime, 'utf8'))
        if (info.pid === proc.pid) {
          d.url = info.url
          d.port = Number(new URL(info.url).port)
          d.token = readFileSync(join(home, 'token'), 'utf8').trim()
          return d
        }
      } catch {
        // being replaced; read again
      }
    }
    if (Date.now() > deadline) {
      proc.kill('SIGKILL')
      throw new Error(`daemon did not become ready: ${d.stderr}`)
    }
    await sleep(10)
  }
}

export interface CliOptions {
  /** Text written to the command's standard input (closed after it); none: stdin ignored. */
  stdin?: string
  /** Kill the process (SIGKILL) after this long; the result then has code null. Default 15 s. */
  timeoutMs?: number
  /** The node executable to run bin/hearth.mjs with (default: this test's Node). */
  node?: string
  /** The launcher to run (default: bin/hearth.mjs). */
  bin?: string
}

/** A running CLI: its output so far, and its end. */
export interface CliChild {
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  done: Promise<{ code: number | null; stdout: string; stderr: string }>
}

/**
 * Starts the CLI. Its standard input is a pipe the test writes to and ends (`child.stdin`),
 * unless `opts.stdin` gives the whole input.
 */
export function startCli(args: string[], env: Record<string, string> = {}, opts: CliOptions = {}): CliChild {
  return launchCli(args, env, opts, 'pipe')
}

/** Runs the CLI to completion and returns its exit code and output. */
export function runCli(args: string[], env: Record<string, string> = {}, opts: CliOptions = {}) {
  return launchCli(args, env, opts, opts.stdin === undefined ? 'ignore' : 'pipe').done
}

function launchCli(
  args: string[],
  env: Record<string, string>,
  opts: CliOptions,
  stdin: 'pipe' | 'ignore',
): CliChild {
  const p = spawn(opts.node ?? process.execPath, [opts.bin ?? BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: [stdin, 'pipe', 'pipe'],
  })
  if (opts.stdin !== undefined) p.stdin?.end(opts.stdin)
  const timer = setTimeout(() => p.kill('SIGKILL'), opts.timeoutMs ?? 15_000)
  let stdout = ''
  let stderr = ''
  p.stdout?.on('data', (d) => {
    stdout += d
  })
  p.stderr?.on('data', (d) => {
    stderr += d
  })
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((res) => {
    p.on('close', (code) => {
      clearTimeout(timer)
      res({ code, stdout, stderr })
    })
  })
  return { child: p, stdout: () => stdout, stderr: () => stderr, done }
}

/** The daemon's log as written so far (HOME/logs/hearth.log appears with its first line). */
export function logText(home: string): string {
  const file = join(home, 'logs', 'hearth.log')
  return existsSync(file) ? readFileSync(file, 'utf8') : ''
}

/** The daemon's log lines (HOME/logs/hearth.log) with this message; none before the log exists. */
export function logLines(home: string, msg: string): any[] {
  const file = join(home, 'logs', 'hearth.log')
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((l) => l.msg === msg)
}

/** Polls `probe` every `everyMs` until it gives a value, which it returns; fails after `ms`. */
export async function until<T>(
  what: string,
  probe: () => T | undefined | false,
  ms = 30_000,
  everyMs = 2,
): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const v = probe()
    if (v) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(everyMs)
  }
}
