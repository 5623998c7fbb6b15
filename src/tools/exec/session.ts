// A session's shell, in the kernel: the login shell's snapshot (snapshot.ts), taken once per
// session's kernel instance and early (the first step that offers tools starts it), and the
// session's warm sandbox (warm.ts). A command that comes before the snapshot is done waits
// for it; a profile that does not finish within the timeout leaves the session on a login
// shell per command (said once in the log). It all goes when the session leaves the kernel
// (close), or with the process.
import { rmSync } from 'node:fs'
import type { SandboxPolicy } from '../types.ts'
import { type CommandOptions, type Launched, spawnGroup } from './process.ts'
import { wrap } from './sandbox.ts'
import { CAPTURE_TIMEOUT_MS, captureSnapshot, removeSnapshot, type Snapshot } from './snapshot.ts'

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

  /** `opts.command` in the sandbox, as `bash -c` on the snapshot. */
  launchInSandbox(opts: CommandOptions, snapshot: Snapshot): Launched {
    const argv = wrap(['bash', '-c', opts.command], {
      ...opts,
      home: opts.home ?? this.#opts.home,
      readOnly: [snapshot.dir],
    })
    return spawnGroup(argv, snapshot.env, opts)
  }

  /** The session left the kernel: the snapshot goes once no command uses it. */
  close(): void {
    this.#closed = true
    this.#tidy()
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
