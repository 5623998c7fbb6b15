// Shared pieces of the benches: spawning a daemon exactly as a user does (the bundle through
// bin/hearth.mjs), timing it to ready, reading its memory, statistics, and the table every
// section's rows end up in. Benches print figures; they are not tests and assert nothing.
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { type ClientRequest, request as httpRequest } from 'node:http'
import { connect, type Socket } from 'node:net'
import { cpus, loadavg, tmpdir } from 'node:os'
import { delimiter, dirname, join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

export const ROOT = resolve(import.meta.dirname, '..')
export const BIN = join(ROOT, 'bin/hearth.mjs')

/** One line of the result table. `ok` is left out for figures that have no target. */
export interface Row {
  figure: string
  measured: string
  target?: string
  ok?: boolean
}

export interface Section {
  name: string
  description: string
  run: () => Promise<Row[]>
}

export function tempHome(prefix = 'hearth-bench-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

/** A temp home whose config.json holds `config` (provider profiles, tool settings, mcp). */
export function homeWithConfig(config: Record<string, unknown>): string {
  const home = tempHome()
  writeFileSync(join(home, 'config.json'), JSON.stringify(config))
  return home
}

/** The value below which `p` percent of the sorted samples lie (nearest rank). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN
  const sorted = [...samples].sort((a, b) => a - b)
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]
}

export const median = (samples: readonly number[]) => percentile(samples, 50)

export const ms = (v: number, digits = 1) => `${v.toFixed(digits)} ms`
/** Megabytes of 10^6 bytes. */
export const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`

export interface BenchDaemon {
  home: string
  proc: ChildProcess
  pid: number
  url: string
  port: number
  token: string
  /** Milliseconds from just before spawn() until HOME/daemon.json existed. */
  readyMs: number
  /**
   * CPU time of the daemon's main thread when daemon.json was seen (/proc/PID/schedstat):
   * on a shared machine it moves less than wall time, which includes waiting for a core.
   */
  readyCpuMs: number
  stop: () => Promise<void>
}

/**
 * Spawns `bin/hearth.mjs daemon --home HOME --port 0` and polls every millisecond for
 * HOME/daemon.json, the launch contract's "ready" (it is written atomically after listen).
 */
export async function spawnDaemon(
  home = tempHome(),
  opts: { nodeArgs?: string[]; env?: Record<string, string>; keepHome?: boolean } = {},
): Promise<BenchDaemon> {
  const runtime = join(home, 'daemon.json')
  let stderr = ''
  const t0 = performance.now()
  const daemonArgs = ['daemon', '--home', home, '--port', '0']
  // Without node arguments the bin runs as `npx hearth daemon` runs it: through its shebang,
  // which carries the daemon's V8 flags, with this Node first on PATH.
  const [command, args] = opts.nodeArgs
    ? [process.execPath, [...opts.nodeArgs, BIN, ...daemonArgs]]
    : [BIN, daemonArgs]
  const path = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`
  const proc = spawn(command, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, PATH: path, HEARTH_HOME: '', ...opts.env },
  })
  proc.stderr?.on('data', (d) => {
    stderr += d
  })
  const exited = new Promise<void>((res) => proc.once('close', () => res()))
  let readyCpuMs = Number.NaN
  const readyMs = await new Promise<number>((res, rej) => {
    const timer = setInterval(() => {
      if (existsSync(runtime)) {
        clearInterval(timer)
        res(performance.now() - t0)
        readyCpuMs = mainThreadCpuMs(proc.pid)
      } else if (proc.exitCode !== null || performance.now() - t0 > 15_000) {
        clearInterval(timer)
        proc.kill('SIGKILL')
        rej(new Error(`daemon did not become ready (exit ${proc.exitCode}): ${stderr}`))
      }
    }, 1)
  })
  const info = JSON.parse(readFileSync(runtime, 'utf8')) as { url: string; pid: number }
  if (info.pid !== proc.pid) throw new Error(`daemon.json names pid ${info.pid}, spawned ${proc.pid}`)
  return {
    home,
    proc,
    pid: info.pid,
    url: info.url,
    port: Number(new URL(info.url).port),
    token: readFileSync(join(home, 'token'), 'utf8').trim(),
    readyMs,
    readyCpuMs,
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM')
      await Promise.race([exited, sleep(5000).then(() => proc.kill('SIGKILL'))])
      await exited
      if (!opts.keepHome) rmSync(home, { recursive: true, force: true })
    },
  }
}

/** Time the main thread of a process has run on a CPU, in ms (NaN if it cannot be read). */
function mainThreadCpuMs(pid: number | undefined): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6
  } catch {
    return Number.NaN
  }
}

/** VmRSS and VmHWM (peak) of a process, in bytes, from /proc/PID/status. */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN)
  return { rss: kb('VmRSS') * 1024, peak: kb('VmHWM') * 1024 }
}

/** What the figures were measured on, printed above the table. */
export function machine(): string {
  const cpu = cpus()
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')
  return `Node ${process.versions.node}, ${cpu.length} cores (${cpu[0]?.model ?? 'unknown'}), load ${load}`
}

export function printTable(rows: readonly Row[]): void {
  const head = ['figure', 'measured', 'target', '']
  const body = rows.map((r) => [
    r.figure,
    r.measured,
    r.target ?? '—',
    r.ok === undefined ? '' : r.ok ? 'ok' : 'MISSED',
  ])
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)))
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`
  console.log(line(head))
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`)
  for (const b of body) console.log(line(b))
}

/** Every descendant of a process (children of every thread, recursively), from /proc. */
export function descendantsOf(pid: number): number[] {
  const out: number[] = []
  const visit = (p: number) => {
    let tasks: string[] = []
    try {
      tasks = readdirSync(`/proc/${p}/task`)
    } catch {
      return
    }
    for (const task of tasks) {
      let text = ''
      try {
        text = readFileSync(`/proc/${p}/task/${task}/children`, 'utf8').trim()
      } catch {
        continue
      }
      for (const child of text ? text.split(/\s+/).map(Number) : []) {
        out.push(child)
        visit(child)
      }
    }
  }
  visit(pid)
  return out
}

/** Proportional set size of one process in bytes (shared pages split among their sharers). */
export function pssOf(pid: number): number {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
    return Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) * 1024
  } catch {
    return 0 // the process ended between listing and reading
  }
}

/** PSS of a process and all its descendants, and how many processes that is. */
export function treePss(pid: number): { bytes: number; processes: number } {
  const pids = [pid, ...descendantsOf(pid)]
  return { bytes: pids.reduce((sum, p) => sum + pssOf(p), 0), processes: pids.length }
}

/** Samples treePss every `everyMs` until stopped; keeps the peak. */
export function sampleTreePss(pid: number, everyMs = 25) {
  let peak = { bytes: 0, processes: 0 }
  const take = () => {
    const now = treePss(pid)
    if (now.bytes > peak.bytes) peak = now
  }
  take()
  const timer = setInterval(take, everyMs)
  return {
    stop: () => {
      clearInterval(timer)
      take()
      return peak
    },
  }
}

/** One Server-Sent Events frame of a Responses stream. */
export const sseFrame = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`

/** The frames of a Responses reply answering `text` in one delta (the last one ends it). */
export function responsesText(id: string, text: string): string[] {
  const item = { id: 'm', type: 'message', role: 'assistant', content: [] }
  return [
    sseFrame({ type: 'response.created', response: { id } }),
    sseFrame({ type: 'response.output_item.added', output_index: 0, item }),
    sseFrame({
      type: 'response.output_text.delta',
      item_id: 'm',
      output_index: 0,
      content_index: 0,
      delta: text,
    }),
    sseFrame({
      type: 'response.completed',
      response: { id, status: 'completed', output: [], usage: { input_tokens: 1, output_tokens: 1 } },
    }),
  ]
}

/** The frames of a Responses reply asking for one function call (the last one ends it). */
export function responsesCall(id: string, callId: string, name: string, args: unknown): string[] {
  const text = JSON.stringify(args)
  const item = { id: 'fc', type: 'function_call', call_id: callId, name, arguments: '' }
  const done = { ...item, arguments: text, status: 'completed' }
  return [
    sseFrame({ type: 'response.created', response: { id } }),
    sseFrame({ type: 'response.output_item.added', output_index: 0, item }),
    sseFrame({ type: 'response.function_call_arguments.delta', item_id: 'fc', output_index: 0, delta: text }),
    sseFrame({ type: 'response.output_item.done', output_index: 0, item: done }),
    sseFrame({ type: 'response.completed', response: { id, status: 'completed', output: [done] } }),
  ]
}

export interface HeldAnswer {
  status: number
  body: string
  /** When the request's bytes were handed to the socket (one write). */
  sentAt: number
  /** When the whole answer had arrived. */
  answeredAt: number
}

/**
 * A kept-alive HTTP/1.1 connection to 127.0.0.1:`port`, as a client that stays connected
 * holds one: each request goes out in a single write(), so `sentAt` is its first byte's
 * time, with no connect or client library in the figure. Reconnects (before timing) when
 * the server has closed it. Answers must carry content-length (the daemon's JSON does).
 */
export function heldConnection(port: number) {
  let socket: Socket | undefined
  const open = () =>
    new Promise<Socket>((resolve, reject) => {
      const s = connect(port, '127.0.0.1')
      s.setNoDelay(true)
      s.once('connect', () => resolve(s))
      s.once('error', reject)
    })
  const send = async (
    method: string,
    path: string,
    headers: Record<string, string>,
    body = '',
  ): Promise<HeldAnswer> => {
    if (!socket || socket.destroyed || socket.readyState !== 'open') socket = await open()
    const s = socket
    const head = [
      `${method} ${path} HTTP/1.1`,
      `host: 127.0.0.1:${port}`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      `content-length: ${Buffer.byteLength(body)}`,
    ]
    return new Promise((resolve, reject) => {
      let buf = Buffer.alloc(0)
      const onData = (chunk: Buffer) => {
        const at = performance.now()
        buf = Buffer.concat([buf, chunk])
        const end = buf.indexOf('\r\n\r\n')
        if (end < 0) return
        const text = buf.subarray(0, end).toString()
        const length = Number(/^content-length:\s*(\d+)/im.exec(text)?.[1] ?? 0)
        if (buf.length < end + 4 + length) return
        done()
        const status = Number(text.split(' ')[1])
        resolve({ status, body: buf.subarray(end + 4, end + 4 + length).toString(), sentAt, answeredAt: at })
      }
      const onClose = () => {
        done()
        reject(new Error(`${method} ${path}: the connection closed before the answer`))
      }
      const done = () => {
        s.off('data', onData)
        s.off('close', onClose)
      }
      s.on('data', onData)
      s.on('close', onClose)
      const sentAt = performance.now()
      s.write(`${head.join('\r\n')}\r\n\r\n${body}`)
    })
  }
  return { send, close: () => socket?.destroy() }
}

/**
 * Milliseconds from spawn() to the child's exit with both pipes closed, as a tool call
 * waits for a command: `detached` (its own process group) and stdout/stderr piped and read.
 */
export function timeSpawn(argv: readonly string[], opts: { cwd: string; env: NodeJS.ProcessEnv }) {
  return new Promise<number>((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(argv[0], argv.slice(1), {
      cwd: opts.cwd,
      env: opts.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    child.stdout?.resume()
    child.stderr?.resume()
    child.once('error', reject)
    child.once('close', (code) =>
      code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${argv.join(' ')}: exit ${code}`)),
    )
  })
}

/**
 * The tree's PSS once it has at least `processes` processes and has stopped moving (three
 * samples 150 ms apart within 0.5 MB of each other), or as it is after `limitMs`.
 */
export async function settledTreePss(pid: number, processes = 1, limitMs = 6000) {
  const until = performance.now() + limitMs
  const recent: number[] = []
  let now = treePss(pid)
  while (performance.now() < until) {
    now = treePss(pid)
    if (now.processes >= processes) recent.push(now.bytes)
    if (recent.length >= 3 && Math.max(...recent.slice(-3)) - Math.min(...recent.slice(-3)) <= 0.5e6) break
    await sleep(150)
  }
  return now
}

/**
 * Scheduler times of a process and its descendants, every thread, in ms
 * (/proc/PID/task/TID/schedstat): `cpuMs` on a core, which does not grow while the machine's
 * other work holds the cores, and `waitMs` runnable but waiting for a core, which is what
 * that other work adds. Descendants that already exited are not counted.
 */
export function treeSchedstat(pid: number): { cpuMs: number; waitMs: number } {
  let cpu = 0
  let wait = 0
  for (const p of [pid, ...descendantsOf(pid)]) {
    let tasks: string[] = []
    try {
      tasks = readdirSync(`/proc/${p}/task`)
    } catch {
      continue
    }
    for (const t of tasks) {
      try {
        const [onCpu, waiting] = readFileSync(`/proc/${p}/task/${t}/schedstat`, 'utf8').split(' ')
        cpu += Number(onCpu)
        wait += Number(waiting)
      } catch {}
    }
  }
  return { cpuMs: cpu / 1e6, waitMs: wait / 1e6 }
}

/** GET of a session's stream from now on (`tail=0`), with the daemon's token; not yet ended. */
export function sessionStreamRequest(d: BenchDaemon, sessionId: string): ClientRequest {
  return httpRequest({
    host: '127.0.0.1',
    port: d.port,
    path: `/sessions/${sessionId}?tail=0`,
    headers: { authorization: `Bearer ${d.token}`, accept: 'text/event-stream' },
  })
}
