// Runs the usage core for one account: `<core> usage --provider <feed> --format json`
// (docs/quota.md). The core is hearth's own (the bundle beside the daemon's) unless
// HEARTH_USAGE_CORE names another executable; that name is authoritative: a path that does
// not exist or cannot run is a driver failure, never a reason to fall back to the built-in
// core.
//
// What reaches the core: the account's hand-off (an access token or an API key and public
// facts, in variables and in files written 0600 into a fresh 0700 directory that is removed
// after the call whatever its outcome), PATH, HOME, LANG, TMPDIR and the HEARTH_*_URL /
// HEARTH_*_BASE_URL endpoint overrides. Nothing else of the daemon's environment (its
// token, other secrets) and never a refresh token. The call is bounded: a timeout kills the
// core's process group, and its output is read up to a limit.
//
// The result is the report whose provider is the feed (a provider failure is a report
// carrying an error: data, not a driver failure) or a driver failure: the core missing or
// not executable, no parseable report, a timeout, a crash without a report.
import { spawn } from 'node:child_process'
import {
  accessSync,
  constants,
  type Dir,
  mkdirSync,
  mkdtempSync,
  opendirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, isAbsolute, join, normalize, resolve, sep } from 'node:path'
import type { CoreHandoff } from '../providers/descriptor.ts'
import { builtInCorePath } from '../usage-core/path.ts'
import { UsageReport } from './report.ts'

export type DriverResult =
  | { kind: 'report'; report: UsageReport }
  | { kind: 'driver_failure'; reason: string }

/** How long one call of the core may take before its process group is killed. */
export const CORE_TIMEOUT_MS = 60_000
/** The most of the core's stdout read (a report is a few KiB). */
const MAX_STDOUT_BYTES = 1024 * 1024
/** The tail of stderr kept for a failure's reason. */
const MAX_STDERR_BYTES = 16 * 1024

/** The core to run: the command and the arguments before `usage …`. */
export interface CoreCommand {
  command: string
  args: readonly string[]
  /** Named by HEARTH_USAGE_CORE (a failure to start it says so). */
  override: boolean
}

/** HEARTH_USAGE_CORE when set (an executable run directly), else the built-in core under this Node. */
export function coreCommand(env: NodeJS.ProcessEnv = process.env): CoreCommand {
  const named = env.HEARTH_USAGE_CORE
  // Resolved now: the core runs in its own directory.
  if (named) return { command: resolve(named), args: [], override: true }
  return { command: process.execPath, args: [builtInCorePath()], override: false }
}

/** A call's folder: `hearth-quota-<daemon pid>-<random>` in the temp directory. */
const DIR_PREFIX = 'hearth-quota-'
const LEFT_OVER = /^hearth-quota-(\d+)-/

/**
 * Removes the folders of calls a daemon killed mid-poll left behind (kill -9 gives it no
 * drain): those of this user whose daemon process is gone. They may hold an access token.
 */
export function sweepLeftovers(dir = tmpdir()): void {
  // One entry at a time: the temp directory may hold thousands, and a list of them all
  // lives long enough to be promoted into the daemon's old space (1.5 MB of its idle RSS
  // with 12,000 entries), where an idle daemon never collects it.
  let entries: Dir
  try {
    entries = opendirSync(dir)
  } catch {
    return
  }
  try {
    for (let entry = entries.readSync(); entry !== null; entry = entries.readSync()) {
      if (!entry.name.startsWith(DIR_PREFIX)) continue
      const pid = Number(LEFT_OVER.exec(entry.name)?.[1])
      if (!pid || pid === process.pid || isRunning(pid)) continue
      const path = join(dir, entry.name)
      try {
        if (statSync(path).uid === process.getuid?.()) rmSync(path, { recursive: true, force: true })
      } catch {
        // gone meanwhile, or not ours to remove
      }
    }
  } finally {
    entries.closeSync()
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Variables of the daemon's environment the core gets: the basics and endpoint overrides. */
const PASSED = ['PATH', 'HOME', 'LANG', 'TMPDIR']
const ENDPOINT_OVERRIDE = /^HEARTH_[A-Z0-9_]+_(BASE_)?URL$/

/** The core's environment: the basics, the endpoint overrides, then the hand-off's variables. */
export function coreEnvironment(
  daemonEnv: NodeJS.ProcessEnv,
  handoff: Record<string, string>,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(daemonEnv)) {
    if (value !== undefined && (PASSED.includes(name) || ENDPOINT_OVERRIDE.test(name))) env[name] = value
  }
  return { ...env, ...handoff }
}

export interface CoreCall {
  core: CoreCommand
  /** The usage feed's provider id (`--provider`). */
  feed: string
  /** The hand-off, made for the call's private directory. */
  handoff: (dir: string) => CoreHandoff
  /** The daemon's environment, of which only the basics and endpoint overrides pass. */
  env?: NodeJS.ProcessEnv
  timeoutMs?: number
  /** The daemon draining: the core's process group is killed and its directory removed. */
  signal?: AbortSignal
}

/** Why the core cannot be started, or null when it can be tried. */
function unusable(core: CoreCommand): string | null {
  const path = core.override ? core.command : core.args[0]
  const what = core.override ? `HEARTH_USAGE_CORE ${path}` : `the usage core ${path}`
  try {
    if (!statSync(path).isFile()) return `${what} is not a file`
  } catch {
    return `${what} does not exist`
  }
  if (!core.override) return null
  try {
    accessSync(path, constants.X_OK)
    return null
  } catch {
    return `${what} is not executable`
  }
}

/** Runs the core once for one hand-off; never throws. */
export async function runCore(call: CoreCall): Promise<DriverResult> {
  const failure = (reason: string): DriverResult => ({ kind: 'driver_failure', reason })
  const cannot = unusable(call.core)
  if (cannot !== null) return failure(cannot)
  if (call.signal?.aborted) return failure('stopped')
  const dir = mkdtempSync(join(tmpdir(), `${DIR_PREFIX}${process.pid}-`))
  let handoff: CoreHandoff = { env: {}, files: {} }
  try {
    handoff = call.handoff(dir)
    writeHandoffFiles(dir, handoff.files)
    await isReport(null) // compiled before the output is read
    const run = await spawnCore(call, dir, handoff)
    if (run.outcome !== 'exited') return failure(run.outcome)
    const report = reportFor(run.stdout, call.feed)
    if (typeof report !== 'string') return { kind: 'report', report }
    const how = run.signal !== null ? `killed by ${run.signal}` : `exit code ${run.code}`
    const tail = redacted(lastLine(run.stderr), secretsOf(handoff))
    return failure(`${report} (${how}${tail ? `: ${tail}` : ''})`)
  } catch (err) {
    return failure(`the usage core could not run: ${(err as NodeJS.ErrnoException).code ?? 'error'}`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Writes the hand-off's files 0600 (folders 0700) inside `dir`; a path may not leave it. */
function writeHandoffFiles(dir: string, files: Record<string, string>): void {
  for (const [relative, content] of Object.entries(files)) {
    const path = normalize(join(dir, relative))
    if (isAbsolute(relative) || !path.startsWith(dir + sep)) throw new Error(`hand-off path ${relative}`)
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
    writeFileSync(path, content, { mode: 0o600, flag: 'wx' })
  }
}

interface CoreRun {
  /** `exited`, or why it did not: a timeout, the drain, output past the limit. */
  outcome: string
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

function spawnCore(call: CoreCall, dir: string, handoff: CoreHandoff): Promise<CoreRun> {
  const timeoutMs = call.timeoutMs ?? CORE_TIMEOUT_MS
  return new Promise((settle, reject) => {
    const child = spawn(
      call.core.command,
      [...call.core.args, 'usage', '--provider', call.feed, '--format', 'json'],
      {
        cwd: dir,
        env: coreEnvironment(call.env ?? process.env, handoff.env),
        stdio: ['ignore', 'pipe', 'pipe'],
        // Its own process group, so a timeout or the drain kills whatever it started too.
        detached: true,
      },
    )
    const out: Buffer[] = []
    let outBytes = 0
    let err = Buffer.alloc(0)
    let outcome = 'exited'
    const killGroup = (why: string) => {
      if (outcome === 'exited') outcome = why
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length
      if (outBytes > MAX_STDOUT_BYTES) killGroup(`output past ${MAX_STDOUT_BYTES} bytes`)
      else out.push(chunk)
    })
    child.stderr.on('data', (chunk: Buffer) => {
      err = Buffer.concat([err, chunk])
      if (err.length > MAX_STDERR_BYTES) err = err.subarray(err.length - MAX_STDERR_BYTES)
    })
    const timer = setTimeout(() => killGroup(`timed out after ${Math.round(timeoutMs / 1000)} s`), timeoutMs)
    // The drain: the group killed and the hand-off's files removed at once (the daemon may
    // exit before the core's end is read).
    const onAbort = () => {
      killGroup('stopped')
      rmSync(dir, { recursive: true, force: true })
    }
    call.signal?.addEventListener('abort', onAbort, { once: true })
    const done = () => {
      clearTimeout(timer)
      call.signal?.removeEventListener('abort', onAbort)
    }
    child.on('error', (e) => {
      done()
      reject(e)
    })
    child.on('close', (code, signal) => {
      done()
      // The core may have left children holding the group: they go with it.
      killGroup(outcome)
      settle({
        outcome,
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: err.toString('utf8'),
      })
    })
  })
}

let checkReport: ((value: unknown) => boolean) | undefined

/** Whether a value is a UsageReport (the validator compiled on first use). */
async function isReport(value: unknown): Promise<boolean> {
  if (!checkReport) {
    const { Compile } = await import('typebox/compile')
    const compiled = Compile(UsageReport)
    checkReport = (v) => compiled.Check(v)
  }
  return checkReport(value)
}

/** The feed's report in the core's output (one report or an array), or why there is none. */
function reportFor(stdout: string, feed: string): UsageReport | string {
  const text = stdout.trim()
  if (text === '') return 'the usage core printed nothing'
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return 'the usage core printed no JSON'
  }
  const candidates = Array.isArray(parsed) ? parsed : [parsed]
  const found = candidates.find(
    (r) => r !== null && typeof r === 'object' && (r as { provider?: unknown }).provider === feed,
  )
  if (found === undefined) return `the usage core printed no report for ${feed}`
  if (!checkReport?.(found)) return `the usage core's report for ${feed} does not parse`
  return found as UsageReport
}

const lastLine = (text: string) => text.trim().split('\n').at(-1)?.slice(0, 200) ?? ''

/** Every secret of a hand-off: its variables' values and the strings inside its files. */
function secretsOf(handoff: CoreHandoff): string[] {
  const inFiles = Object.values(handoff.files).flatMap((c) =>
    [...c.matchAll(/"([^"]{8,})"/g)].map((m) => m[1]),
  )
  return [...Object.values(handoff.env), ...inFiles].filter((s) => s.length >= 8)
}

function redacted(text: string, secrets: readonly string[]): string {
  return secrets.reduce((t, s) => t.split(s).join('[redacted]'), text)
}
