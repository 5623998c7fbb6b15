// The login shell's snapshot: a session runs the user's login shell once (`bash -lc`, in the
// sandbox and with the scrubbed environment a command gets) and keeps what its profile set
// up: the exported variables, the functions, the aliases and the shell options. Each command
// then runs as a plain `bash -c` with that environment, and a file sourced through BASH_ENV
// replays the rest, so the profile's cost (pyenv, nvm, conda: up to hundreds of ms) is paid
// once per session instead of once per command. The captured variables go through the same
// scrub as the kernel's (env.ts): a secret the profile exports never reaches a command.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { lstatSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { SandboxPolicy } from '../types.ts'
import { commandEnv } from './env.ts'
import { isolates, SANDBOX_ENV, wrap } from './sandbox.ts'

/** A profile that takes longer than this is not captured: the session runs `bash -lc` per command. */
export const CAPTURE_TIMEOUT_MS = 10_000

/** Options the shell would refuse to set again, or that describe the capture's own shell. */
const SKIPPED_OPTIONS = new Set(['login_shell', 'restricted_shell'])

/** Variables bash sets for itself at start: a command's own shell sets them again. */
const SHELL_OWN = new Set(['_', 'PWD'])

export interface Snapshot {
  /** The environment a command starts with (scrubbed), BASH_ENV naming `file`. */
  env: Record<string, string>
  /** The private directory (0700) that holds `file`; bound read-only into the sandbox. */
  dir: string
  /** The replay script (0600): functions, aliases, options. */
  file: string
}

export interface CaptureOptions {
  cwd: string
  policy: SandboxPolicy
  writableRoots: readonly string[]
  home?: string
  /** The environment to scrub and start from (the kernel's by default). */
  env?: NodeJS.ProcessEnv
  timeoutMs?: number
}

/**
 * Runs the login shell once and writes its snapshot; null when it failed or took longer
 * than the timeout (the caller falls back to a login shell per command).
 */
export async function captureSnapshot(opts: CaptureOptions): Promise<Snapshot | null> {
  const nonce = randomBytes(12).toString('hex')
  const out = await runLoginShell(dumpScript(nonce), opts)
  if (out === null) return null
  const parsed = parseDump(out, nonce)
  if (!parsed) return null
  const start = commandEnv(opts.env)
  const env = commandEnv(parsed.env)
  for (const name of SHELL_OWN) delete env[name]
  // The login shell counted itself in SHLVL; the command's shell counts itself again.
  if (start.SHLVL === undefined) delete env.SHLVL
  else env.SHLVL = start.SHLVL
  // The sandbox sets these itself; a value the profile chose instead is set again by the
  // replay, after bwrap's (so a command outside the sandbox does not get the sandbox's).
  const again: string[] = []
  if (isolates(opts.policy))
    for (const [name, value] of Object.entries(SANDBOX_ENV)) {
      if (env[name] === value) delete env[name]
      else if (env[name] !== undefined) again.push(`export ${name}=${quote(env[name])}`)
    }
  removeStale()
  const dir = mkdtempSync(join(tmpdir(), `${DIR_PREFIX}${process.pid}-`))
  const file = join(dir, 'snapshot.bash')
  writeFileSync(file, replayScript([parsed.script, ...again].join('\n'), env.BASH_ENV), { mode: 0o600 })
  env.BASH_ENV = file
  return { env, dir, file }
}

/** The private directories are `hearth-shell-<kernel pid>-*` in the OS temp directory. */
const DIR_PREFIX = 'hearth-shell-'
let staleRemoved = false

/**
 * Once per process: the directories of kernels that are gone (killed outright, they could
 * not remove theirs). One whose pid is alive stays, whoever has that pid now.
 */
function removeStale(): void {
  if (staleRemoved) return
  staleRemoved = true
  try {
    for (const name of readdirSync(tmpdir())) {
      const pid = Number(/^hearth-shell-(\d+)-/.exec(name)?.[1])
      if (!pid || pid === process.pid || alive(pid)) continue
      const dir = join(tmpdir(), name)
      if (lstatSync(dir).uid === process.getuid?.()) rmSync(dir, { recursive: true, force: true })
    }
  } catch {}
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Removes the snapshot's file and directory. */
export function removeSnapshot(s: Snapshot): void {
  rmSync(s.dir, { recursive: true, force: true })
}

/**
 * What the login shell prints once its profile has run: its environment (NUL-separated),
 * then its functions, aliases and options as bash source. The nonces fence it from what
 * the profile itself prints.
 */
function dumpScript(nonce: string): string {
  return [
    `printf '\\0%s\\0' ${nonce}`,
    'env -0',
    `printf '%s\\0' ${nonce}`,
    'declare -f',
    'alias -p',
    'shopt -p',
    'set +o',
  ].join('\n')
}

function parseDump(out: Buffer, nonce: string): { env: Record<string, string>; script: string } | null {
  const open = out.indexOf(`\0${nonce}\0`)
  if (open < 0) return null
  const from = open + nonce.length + 2
  const close = out.indexOf(`${nonce}\0`, from)
  if (close < 0 || (close > from && out[close - 1] !== 0)) return null
  const env: Record<string, string> = {}
  for (const entry of out.subarray(from, close).toString('utf8').split('\0')) {
    const eq = entry.indexOf('=')
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1)
  }
  const script = out
    .subarray(close + nonce.length + 1)
    .toString('utf8')
    .split('\n')
    .filter((line) => !(line.startsWith('shopt ') && SKIPPED_OPTIONS.has(line.split(' ').at(-1) ?? '')))
    .join('\n')
  return { env, script }
}

/**
 * The file BASH_ENV names: it puts BASH_ENV back as the profile left it (so scripts the
 * command runs do not replay the snapshot), then defines what the profile defined.
 */
function replayScript(script: string, profileBashEnv: string | undefined): string {
  const restore = profileBashEnv === undefined ? 'unset BASH_ENV' : `export BASH_ENV=${quote(profileBashEnv)}`
  return `${restore}\n${script}\n`
}

/** `value` as one bash word. */
export function quote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`
}

/** Runs `bash -lc script` as a command would run; its stdout, or null on failure or timeout. */
function runLoginShell(script: string, opts: CaptureOptions): Promise<Buffer | null> {
  const argv = wrap(['bash', '-lc', script], opts)
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), {
      cwd: opts.cwd,
      env: commandEnv(opts.env),
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    const chunks: Buffer[] = []
    const timer = setTimeout(() => {
      killGroup(child.pid)
      resolve(null)
    }, opts.timeoutMs ?? CAPTURE_TIMEOUT_MS)
    timer.unref()
    child.stdout.on('data', (c: Buffer) => chunks.push(c))
    child.on('error', () => {
      clearTimeout(timer)
      resolve(null)
    })
    // What the profile left running in the background goes with the shell.
    child.on('exit', () => killGroup(child.pid))
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve(code === 0 ? Buffer.concat(chunks) : null)
    })
  })
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {}
}
