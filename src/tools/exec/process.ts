// One command as a process group: `bash -lc <command>` spawned in a new session (so in its
// own process group, with no controlling terminal), inside the sandbox when the policy asks,
// with the scrubbed environment. Stopping it signals the whole group: SIGTERM, then SIGKILL
// after a grace. When the command's shell exits, whatever it left running in the background
// is stopped the same way: a command leaves nothing behind (long-running work is a job).
import { type ChildProcess, spawn } from 'node:child_process'
import { constants } from 'node:os'
import type { SandboxPolicy } from '../types.ts'
import { commandEnv } from './env.ts'
import { isolates, wrap } from './sandbox.ts'

/** Between SIGTERM and SIGKILL: time for a command to flush and exit on its own. */
export const STOP_GRACE_MS = 2000
/** After SIGKILL, how long to wait for the pipes to close (a process that left the group may hold them). */
const DRAIN_MS = 1000

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
}

export interface CommandEnd {
  /** The exit code; 128 + n for a command ended by signal n; null if it never started. */
  exitCode: number | null
  signal: NodeJS.Signals | null
  /** Set when the command could not be started (bash or bwrap missing…). */
  error: Error | null
}

export interface RunningCommand {
  child: ChildProcess
  /** Whether it runs inside bubblewrap. */
  sandboxed: boolean
  /** Resolves once the group is gone and both pipes are closed (or given up on). */
  done: Promise<CommandEnd>
  /** SIGTERM to the group, SIGKILL after the grace; resolves with `done`. */
  stop(): Promise<CommandEnd>
}

/**
 * Process groups of the commands that run now, for a watcher outside this process: a
 * kernel killed outright (SIGKILL, the OOM killer) cannot stop its commands, and inside
 * bubblewrap `--die-with-parent` ends only bubblewrap itself, so the daemon kills the groups
 * the kernel last reported (src/kernel/process.ts).
 */
const liveGroups = new Set<number>()
let onGroups: ((groups: number[]) => void) | undefined

/** Tells `listener` the live process groups whenever a command starts or its group ends. */
export function watchProcessGroups(listener: (groups: number[]) => void): void {
  onGroups = listener
}

function groupsChanged(): void {
  onGroups?.([...liveGroups])
}

export function startCommand(opts: CommandOptions): RunningCommand {
  const argv = wrap(['bash', '-lc', opts.command], {
    cwd: opts.cwd,
    policy: opts.policy,
    writableRoots: opts.writableRoots,
    home: opts.home,
  })
  const child = spawn(argv[0], argv.slice(1), {
    cwd: opts.cwd,
    env: commandEnv(opts.env),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const grace = opts.graceMs ?? STOP_GRACE_MS
  let killTimer: NodeJS.Timeout | undefined
  let drainTimer: NodeJS.Timeout | undefined
  let ended = false
  let end: CommandEnd = { exitCode: null, signal: null, error: null }
  let finish!: (e: CommandEnd) => void
  const done = new Promise<CommandEnd>((resolve) => {
    finish = resolve
  })
  if (child.pid !== undefined) {
    liveGroups.add(child.pid)
    groupsChanged()
  }
  const settle = () => {
    if (ended) return
    ended = true
    if (child.pid !== undefined && liveGroups.delete(child.pid)) groupsChanged()
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
    child,
    sandboxed: isolates(opts.policy),
    done,
    stop() {
      terminate()
      return done
    },
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
