// A session's shell, in the kernel: the login shell's snapshot (snapshot.ts), taken once per
// session's kernel instance, at the session's first shell or job call (as the step's calls
// are checked, ahead of their commit and approval), and the session's warm sandbox
// (warm.ts). A command that comes before the snapshot is done waits
// for it; a profile that does not finish within the timeout leaves the session on a login
// shell per command (said once in the log). It all goes when the session leaves the kernel
// (close), or with the process.
import { rmSync } from 'node:fs'
import type { SandboxPolicy } from '../types.ts'
import type { CommandOptions, Launched } from './process.ts'
import { wrap } from './sandbox.ts'
import { CAPTURE_TIMEOUT_MS, captureSnapshot, removeSnapshot, type Snapshot } from './snapshot.ts'
import { WarmSandbox } from './warm.ts'

/** A warm sandbox with no command for this long ends (the next command starts another). */
export const SANDBOX_IDLE_MS = 5 * 60_000

/** Where a session's commands run: what the capture needs to run as one of them. */
export interface Where {
  cwd: string
  policy: SandboxPolicy
  writableRoots: readonly string[]
}

export interface ShellSessionOptions {
  /** Hearth's home, hidden in the sandbox. */
  home?: string
  /** The environment to scrub and start from (the kernel's by default). */
  env?: NodeJS.ProcessEnv
  captureTimeoutMs?: number
  /** How long a warm sandbox outlives its last command (default SANDBOX_IDLE_MS). */
  sandboxIdleMs?: number
  /** Told once when the profile could not be captured. */
  onNotice?: (message: string) => void
}

/** Snapshot directories of this process, removed as it exits whatever happens. */
const liveDirs = new Set<string>()
process.on('exit', () => {
  for (const dir of liveDirs) rmSync(dir, { recursive: true, force: true })
})

export class ShellSession {
  readonly #opts: ShellSessionOptions
  #snapshot: Promise<Snapshot | null> | undefined
  #taken: Snapshot | null = null
  /** Commands started on the snapshot that have not ended. */
  #holders = 0
  #closed = false
  /** The sandbox new commands go to (while its mounts are what theirs would be). */
  #warm: WarmSandbox | undefined
  /** Its bwrap command line up to `--chdir`: a command with the same one may run there. */
  #warmKey = ''
  /** Sandboxes replaced by one with other mounts: each ends with its last command. */
  readonly #retired = new Set<WarmSandbox>()
  #idleTimer: NodeJS.Timeout | undefined

  constructor(opts: ShellSessionOptions = {}) {
    this.#opts = opts
  }

  /** The environment its commands start from, before the scrub (the kernel's by default). */
  get env(): NodeJS.ProcessEnv | undefined {
    return this.#opts.env
  }

  /** Starts the capture if it has not started: a command's own call then finds it done. */
  prepare(where: Where): void {
    this.#snapshot ??= this.#capture(where)
  }

  /** The snapshot, once taken; null when the profile could not be captured. */
  snapshot(where: Where): Promise<Snapshot | null> {
    this.prepare(where)
    // Once removed (the session closed), a late command runs a login shell.
    return (this.#snapshot as Promise<Snapshot | null>).then((s) => (s === this.#taken ? s : null))
  }

  /** A command uses the snapshot's file until the returned function is called. */
  hold(): () => void {
    this.#holders++
    let held = true
    return () => {
      if (!held) return
      held = false
      this.#holders--
      this.#tidy()
    }
  }

  /**
   * `opts.command` in the session's warm sandbox, as `bash -c` on the snapshot. The bwrap
   * command line is computed for each command as for a sandbox of its own (hidden paths,
   * `.git` directories and sockets that exist now); the warm sandbox takes the command
   * only if its own is the same but for `--chdir`, else a new one replaces it.
   */
  launchInSandbox(opts: CommandOptions, snapshot: Snapshot): Launched {
    const argv = wrap(['bash'], { ...opts, home: opts.home ?? this.#opts.home, readOnly: [snapshot.dir] })
    const bwrap = argv.slice(0, argv.lastIndexOf('--chdir'))
    const warm = this.#sandboxFor(bwrap, snapshot, opts.cwd)
    clearTimeout(this.#idleTimer)
    return warm.launch(opts.command, opts.cwd, opts)
  }

  #sandboxFor(bwrap: string[], snapshot: Snapshot, cwd: string): WarmSandbox {
    const key = bwrap.join('\0')
    if (this.#warm?.alive && this.#warmKey === key) return this.#warm
    if (this.#warm) this.#retire(this.#warm)
    const { BASH_ENV: file, ...env } = snapshot.env
    const warm: WarmSandbox = new WarmSandbox({
      bwrap: [...bwrap, '--chdir', cwd],
      env,
      dir: snapshot.dir,
      args: [file, env.SHLVL ?? '', env.OLDPWD === undefined ? '0' : '1', env.OLDPWD ?? ''],
      onIdle: () => this.#idle(warm),
    })
    this.#warm = warm
    this.#warmKey = key
    return warm
  }

  /** A sandbox's last command ended: a replaced one ends now, the current one after a while. */
  #idle(warm: WarmSandbox): void {
    if (warm !== this.#warm || this.#closed) {
      warm.end()
      this.#retired.delete(warm)
      this.#tidy()
      return
    }
    clearTimeout(this.#idleTimer)
    this.#idleTimer = setTimeout(() => {
      if (this.#warm === warm && warm.running === 0) {
        warm.end()
        this.#warm = undefined
      }
    }, this.#opts.sandboxIdleMs ?? SANDBOX_IDLE_MS)
    this.#idleTimer.unref()
  }

  #retire(warm: WarmSandbox): void {
    if (warm.running === 0) warm.end()
    else this.#retired.add(warm)
  }

  /** The session left the kernel: the snapshot goes once no command uses it. */
  close(): void {
    this.#closed = true
    clearTimeout(this.#idleTimer)
    if (this.#warm) this.#retire(this.#warm)
    this.#warm = undefined
    this.#tidy()
  }

  /** The session's sandboxes now (tests look at them). */
  get sandboxes(): number {
    return (this.#warm?.alive ? 1 : 0) + this.#retired.size
  }

  async #capture(where: Where): Promise<Snapshot | null> {
    const timeoutMs = this.#opts.captureTimeoutMs ?? CAPTURE_TIMEOUT_MS
    const started = performance.now()
    const snapshot = await captureSnapshot({
      ...where,
      home: this.#opts.home,
      env: this.#opts.env,
      timeoutMs,
    }).catch(() => null)
    if (!snapshot) {
      const took = performance.now() - started >= timeoutMs ? `took over ${timeoutMs} ms` : 'failed'
      this.#opts.onNotice?.(
        `the login shell's profile ${took}: this session's commands run \`bash -lc\` each time`,
      )
      return null
    }
    liveDirs.add(snapshot.dir)
    this.#taken = snapshot
    this.#tidy()
    return snapshot
  }

  #tidy(): void {
    if (!this.#closed || this.#holders > 0 || !this.#taken) return
    liveDirs.delete(this.#taken.dir)
    removeSnapshot(this.#taken)
    this.#taken = null
  }
}
