// One command as a process group, inside the sandbox when the policy asks, with the
// scrubbed environment. With the session's shell (session.ts) it runs as `bash -c` with the
// login shell's snapshot (snapshot.ts), in the session's warm sandbox when it has one
// (warm.ts); without it, or when the snapshot could not be taken, as `bash -lc`. It is
// spawned in a new session (so in its own process group, with no controlling terminal).
// Stopping it signals the whole group: SIGTERM, then SIGKILL after a grace. When the
// command's shell exits, whatever it left running in the background is stopped the same
// way: a command leaves nothing behind (long-running work is a job).
import { type ChildProcess, spawn } from 'node:child_process'
import { constants } from 'node:os'
import type { SandboxPolicy } from '../types.ts'
import { commandEnv } from './env.ts'
import { isolates, wrap } from './sandbox.ts'
import type { ShellSession } from './session.ts'

/** Between SIGTERM and SIGKILL: time for a command to flush and exit on its own. */
export const STOP_GRACE_MS = 2000
/** After SIGKILL, how long to wait for the pipes to close (a process that left the group may hold them). */
export const DRAIN_MS = 1000

export type OutputStream = 'stdout' | 'stderr'

export interface CommandOptions {
  command: string
  cwd: string
  policy: SandboxPolicy
  writableRoots: readonly string[]
  /** Hearth's home, hidden in the sandbox. */
  home?: string
  /** The environment to scrub and pass (the kernel's by default). */
  env?: NodeJS.ProcessEnv
  graceMs?: number
  /** The session's shell: its snapshot and warm sandbox; without it, a login shell per command. */
  shell?: ShellSession
  /** Each chunk of output, as it comes. */
  onOutput?: (stream: OutputStream, chunk: Buffer) => void
}

export interface CommandEnd {
  /** The exit code; 128 + n for a command ended by signal n; null if it never started. */
  exitCode: number | null
  signal: NodeJS.Signals | null
  /** Set when the command could not be started (bash or bwrap missing…). */
  error: Error | null
}

export interface RunningCommand {
  /** Whether it runs inside bubblewrap. */
  sandboxed: boolean
  /** Whether the command's shell has ended (what it left behind may still be stopping). */
  readonly exited: boolean
  /** Resolves once the group is gone and both outputs are closed (or given up on). */
  done: Promise<CommandEnd>
  /** SIGTERM to the group, SIGKILL after the grace; resolves with `done`. */
  stop(): Promise<CommandEnd>
}

/** A command once started, whichever way (a child of this process, or of a warm sandbox). */
export interface Launched {
  readonly exited: boolean
  done: Promise<CommandEnd>
  /** TERM now, KILL after the grace; idempotent. */
  terminate(): void
}

/**
 * Process groups of the commands that run now, for a watcher outside this process: a
 * kernel killed outright (SIGKILL, the OOM killer) cannot stop its commands, and inside
 * bubblewrap `--die-with-parent` ends only bubblewrap itself, so the daemon kills the groups
 * the kernel last reported (src/kernel/process.ts). A warm sandbox's group is one of them.
 */
const liveGroups = new Set<number>()
let onGroups: ((groups: number[]) => void) | undefined

/** Tells `listener` the live process groups whenever a command starts or its group ends. */
export function watchProcessGroups(listener: (groups: number[]) => void): void {
  onGroups = listener
}

export function addGroup(pgid: number): void {
  liveGroups.add(pgid)
  onGroups?.([...liveGroups])
}

export function removeGroup(pgid: number): void {
  if (liveGroups.delete(pgid)) onGroups?.([...liveGroups])
}

export function startCommand(opts: CommandOptions): RunningCommand {
  const sandboxed = isolates(opts.policy)
  let launched: Launched | undefined
  let stopped = false
  // The snapshot's file stays while the command may read it.
  const release = opts.shell?.hold()
  const start = async (): Promise<CommandEnd> => {
    const snapshot = opts.shell ? await opts.shell.snapshot(opts) : null
    if (stopped) return { exitCode: null, signal: null, error: null }
    if (snapshot && opts.shell) {
      launched = sandboxed
        ? opts.shell.launchInSandbox(opts, snapshot)
        : spawnGroup(['bash', '-c', opts.command], snapshot.env, opts)
    } else {
      const argv = wrap(['bash', '-lc', opts.command], opts)
      launched = spawnGroup(argv, commandEnv(opts.env ?? opts.shell?.env), opts)
    }
    return launched.done
  }
  const done = start()
    .catch((error: Error) => ({ exitCode: null, signal: null, error }))
    .finally(() => release?.())
  return {
    sandboxed,
    get exited() {
      return launched?.exited ?? stopped
    },
    done,
    stop() {
      stopped = true
      launched?.terminate()
      return done
    },
  }
}

/** `argv` spawned as the leader of a new process group, its output to `opts.onOutput`. */
export function spawnGroup(
  argv: readonly string[],
  env: Record<string, string>,
  opts: Pick<CommandOptions, 'cwd' | 'graceMs' | 'onOutput'>,
): Launched {
  const child = spawn(argv[0], argv.slice(1), {
    cwd: opts.cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const onOutput = opts.onOutput
  if (onOutput) {
    child.stdout?.on('data', (chunk: Buffer) => onOutput('stdout', chunk))
    child.stderr?.on('data', (chunk: Buffer) => onOutput('stderr', chunk))
  }
  const grace = opts.graceMs ?? STOP_GRACE_MS
  let killTimer: NodeJS.Timeout | undefined
  let drainTimer: NodeJS.Timeout | undefined
  let ended = false
  let end: CommandEnd = { exitCode: null, signal: null, error: null }
  let finish!: (e: CommandEnd) => void
  const done = new Promise<CommandEnd>((resolve) => {
    finish = resolve
  })
  if (child.pid !== undefined) addGroup(child.pid)
  const settle = () => {
    if (ended) return
    ended = true
    if (child.pid !== undefined) removeGroup(child.pid)
    clearTimeout(killTimer)
    clearTimeout(drainTimer)
    finish(end)
  }
  /** TERM now, KILL after the grace, and stop waiting for the pipes a little after that. */
  const terminate = () => {
    if (ended || killTimer) return
    signalGroup(child, 'SIGTERM')
    killTimer = setTimeout(() => {
      signalGroup(child, 'SIGKILL')
      drainTimer = setTimeout(() => {
        child.stdout?.destroy()
        child.stderr?.destroy()
        settle()
      }, DRAIN_MS)
    }, grace)
    killTimer.unref()
  }
  child.on('error', (error) => {
    end = { ...end, error }
    settle()
  })
  child.on('exit', (code, signal) => {
    end = { exitCode: code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : null), signal, error: null }
    // Background children of the shell still hold the pipes: they go with it.
    terminate()
  })
  child.on('close', settle)
  return {
    get exited() {
      return child.exitCode !== null || child.signalCode !== null
    },
    done,
    terminate,
  }
}

/** Sends `sig` to the child's process group (its pid: it leads a new session). */
export function signalGroup(child: ChildProcess, sig: NodeJS.Signals): void {
  if (child.pid === undefined) return
  try {
    process.kill(-child.pid, sig)
  } catch {
    // ESRCH: the group is gone already.
  }
}
