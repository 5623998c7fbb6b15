// Kernels, daemon side: the pool. A session's kernel (`Kernel`, instance.ts: its own instance
// id and state) runs on a shared kernel process (`KernelProcess`, process.ts) that runs the
// steps of up to `capacity` busy sessions at once (idle sessions keep their kernel there
// without taking room). Sessions are packed into the fewest processes; one warmed process
// with room is kept ready while the daemon is in use, and released once nothing has happened
// for `spareIdleMs`. bench/notes/kernels.md ("The shape of the pool") has the figures behind this shape.
// Each process remembers the bundle it was forked from (bundle.ts): one of a replaced bundle
// takes no new session, and an upgrade (upgrade.ts) moves a session off it.
import type { McpAccessToken, McpServerStatus } from '../mcp/types.ts'
import type { JobInfo, SandboxStatus } from '../tools/types.ts'
import { KernelBundle } from './bundle.ts'
import { Kernel, type KernelState } from './instance.ts'
import { KernelProcess } from './process.ts'
import type { McpElicitMessage, OfferedTool } from './protocol.ts'

export { Kernel }

export interface KernelInfo {
  instance_id: string | null
  state: KernelState
  build: string | null
  /** The session's background jobs that still run. */
  running_jobs: JobInfo[]
}

/** `replaced`: its bundle is no longer the one on disk (bundle.ts). */
type StopReason = 'idle' | 'spare_idle' | 'close' | 'replaced'

/** What the pool reports about its processes (the daemon logs it). */
export type PoolEvent =
  | { event: 'kernel_process_ready'; pid: number; warm_turns: number; warm_ms: number }
  | { event: 'kernel_process_stopped'; pid: number; reason: StopReason }
  | { event: 'kernel_process_refused'; pid: number; reason: string }

export interface PoolOptions {
  entry: string
  /** Variables kernels get besides the daemon's environment. */
  env?: Record<string, string>
  /** How long an idle session keeps its kernel. */
  idleMs: number
  /** Keep a warmed process with room in reserve while the daemon is in use. */
  spare: boolean
  /** How long after the last activity the reserve process is kept. */
  spareIdleMs: number
  /** Running sessions (a run, or a compaction) one kernel process takes at most. */
  capacity: number
  onEvent?: (e: PoolEvent) => void
}

export class KernelPool {
  readonly #opts: PoolOptions
  readonly #processes = new Set<KernelProcess>()
  readonly #bySession = new Map<string, Kernel>()
  readonly #idleTimers = new Map<string, NodeJS.Timeout>()
  #spareTimer: NodeJS.Timeout | undefined
  #sandbox: SandboxStatus | null = null
  #tools: OfferedTool[] | null = null
  /** A session's background jobs changed (started, wrote, ended, or went with a crash). */
  onJobs: ((sessionId: string, jobs: JobInfo[]) => void) | undefined
  /** The bundle on disk changed (an update): the sessions whose kernel runs an older one. */
  onBundleChanged: ((staleSessions: string[]) => void) | undefined
  /** A session's MCP servers changed (loaded, one exited, or they stopped with its kernel). */
  onMcp: ((sessionId: string, servers: McpServerStatus[] | null) => void) | undefined
  /** A session's kernel asks for a signed-in server's access token (null: it needs a sign-in). */
  onMcpToken:
    | ((sessionId: string, server: string, rejected?: string) => Promise<McpAccessToken | null>)
    | undefined
  /** A session's MCP server asks the person (src/runs/elicitations.ts answers). */
  onElicit: ((sessionId: string, kernel: Kernel, msg: McpElicitMessage) => void) | undefined
  #lastActivity = Number.NEGATIVE_INFINITY
  #closed = false
  /** The bundle kernels are forked from; a process of an older one takes no new session. */
  readonly bundle: KernelBundle
  /** Processes an upgrade staged and has not swapped onto yet: kept although empty. */
  readonly #staged = new Set<KernelProcess>()

  constructor(opts: PoolOptions) {
    this.#opts = opts
    this.bundle = new KernelBundle(opts.entry)
    // An update landed: the reserve of the old bundle makes way for one of the new.
    this.bundle.onChange = () =>
      setImmediate(() => {
        this.#settle()
        this.onBundleChanged?.([...this.#bySession.keys()].filter((id) => this.stale(id)))
      })
  }

  /** Something is happening (the daemon started, a session was created or ran): have room ready. */
  warm(): void {
    if (this.#closed) return
    this.#lastActivity = Date.now()
    this.#armSpareTimer(this.#opts.spareIdleMs)
    this.#settle()
  }

  /**
   * Settles once the daemon has been idle for `spareIdleMs` by `Date.now()`, the clock the
   * activity is noted on. Timers run on the monotonic clock: a wall clock that rounds
   * differently or was stepped back can find the idle time just short of the limit as the
   * timer fires, and the reserve would then stay until the next activity. It waits for the rest.
   */
  #armSpareTimer(ms: number): void {
    clearTimeout(this.#spareTimer)
    this.#spareTimer = setTimeout(() => {
      const left = this.#lastActivity + this.#opts.spareIdleMs - Date.now()
      if (left > 0) this.#armSpareTimer(left)
      else this.#settle()
    }, ms)
    this.#spareTimer.unref()
  }

  /**
   * The session's kernel: kept from its last run unless its process is full of running
   * sessions (then, as after a release, a new instance elsewhere), else a new one.
   */
  acquire(sessionId: string): Kernel {
    clearTimeout(this.#idleTimers.get(sessionId))
    this.#idleTimers.delete(sessionId)
    let k = this.#bySession.get(sessionId)
    // A session with live jobs stays where its jobs run, even past the process's capacity.
    if (k?.alive && k.state !== 'stopping' && (k.host.busy < this.#opts.capacity || k.liveJobs.length > 0))
      return k
    k?.detach()
    k = this.#attach(sessionId, this.#hostForNewSession())
    setImmediate(() => this.warm())
    return k
  }

  #attach(sessionId: string, host: KernelProcess): Kernel {
    const k = new Kernel(host, sessionId)
    k.onJobs = (jobs) => this.onJobs?.(sessionId, jobs)
    k.onMcp = (servers) => this.onMcp?.(sessionId, servers)
    k.mcpToken = (server, rejected) => this.onMcpToken?.(sessionId, server, rejected) ?? Promise.resolve(null)
    k.onElicit = (msg) => {
      if (this.onElicit) this.onElicit(sessionId, k, msg)
      else k.refuseQuestion(msg)
    }
    this.#bySession.set(sessionId, k)
    return k
  }

  /** The session's kernel is in use (an upgrade): no idle release until the next `release`. */
  hold(sessionId: string): void {
    clearTimeout(this.#idleTimers.get(sessionId))
    this.#idleTimers.delete(sessionId)
  }

  /** Whether the session's kernel runs an older bundle than the one on disk. */
  stale(sessionId: string): boolean {
    const k = this.current(sessionId)
    return k !== undefined && this.bundle.replaced(k.host.bundle)
  }

  /**
   * An upgrade's stage: a process of the bundle on disk with room (one that runs already,
   * else a new one), kept until `swap` or `unstage` although it hosts nobody yet.
   */
  stage(): KernelProcess {
    const now = this.bundle.identity(true)
    const fits = [...this.#processes].filter(
      (x) => x.alive && x.bundle === now && x.busy < this.#opts.capacity,
    )
    // A warmed one first (its validation is at once).
    const p = fits.find((x) => x.answered) ?? fits[0] ?? this.#fork()
    this.#staged.add(p)
    return p
  }

  unstage(p: KernelProcess): void {
    this.#staged.delete(p)
    setImmediate(() => this.#settle())
  }

  /** An upgrade's swap: the session gets a new instance on `host`; its old one is given up. */
  swap(sessionId: string, host: KernelProcess): Kernel {
    this.#bySession.get(sessionId)?.detach()
    const k = this.#attach(sessionId, host)
    this.unstage(host)
    return k
  }

  /** The session went idle: it gives its kernel up after the linger unless work comes back. */
  release(sessionId: string): void {
    const k = this.#bySession.get(sessionId)
    if (!k) return
    k.listener = undefined
    if (k.state === 'running') k.state = 'ready'
    clearTimeout(this.#idleTimers.get(sessionId))
    const timer = setTimeout(() => {
      this.#idleTimers.delete(sessionId)
      if (this.#bySession.get(sessionId) !== k) return
      // Jobs are children of the process: the session keeps its kernel while they run.
      if (k.alive && k.liveJobs.length > 0) return this.release(sessionId)
      this.#bySession.delete(sessionId)
      k.detach()
      this.#settle()
    }, this.#opts.idleMs)
    timer.unref()
    this.#idleTimers.set(sessionId, timer)
  }

  info(sessionId: string): KernelInfo {
    const k = this.#bySession.get(sessionId)
    if (!k?.alive && k?.state !== 'stopping')
      return { instance_id: null, state: 'none', build: null, running_jobs: [] }
    return { instance_id: k.instanceId, state: k.state, build: k.build, running_jobs: k.liveJobs }
  }

  /** The sandbox as the last warmed kernel process probed it; null before one answered. */
  get sandbox(): SandboxStatus | null {
    return this.#sandbox
  }

  /** The built-in tools as the last warmed kernel process reported them; null before one answered. */
  get tools(): OfferedTool[] | null {
    return this.#tools
  }

  /** The session's kernel if it has one now (no new one is started). */
  current(sessionId: string): Kernel | undefined {
    const k = this.#bySession.get(sessionId)
    return k?.alive ? k : undefined
  }

  /** Stops the session's jobs (the session is being deleted). */
  stopJobs(sessionId: string): void {
    this.current(sessionId)?.send({ type: 'stop_jobs', session_id: sessionId })
  }

  close(): void {
    this.#closed = true
    this.bundle.close()
    clearTimeout(this.#spareTimer)
    for (const t of this.#idleTimers.values()) clearTimeout(t)
    for (const p of this.#processes) this.#stop(p, 'close')
    this.#bySession.clear()
  }

  /**
   * The warmed process with room that already hosts the most sessions, else a new one. The
   * bundle is stat'd afresh here (not from the 500 ms cache): a session that needs a kernel
   * just after an update must not land on a process of the old bundle.
   */
  #hostForNewSession(): KernelProcess {
    let best: KernelProcess | undefined
    const rank = (p: KernelProcess) => (p.answered ? 1_000_000 : 0) + p.sessions.size
    this.bundle.identity(true)
    for (const p of this.#processes) {
      if (!p.alive || p.busy >= this.#opts.capacity || this.bundle.replaced(p.bundle)) continue
      if (!best || rank(p) > rank(best)) best = p
    }
    return best ?? this.#fork()
  }

  #fork(): KernelProcess {
    const onReady = (ready: KernelProcess, warmSteps: number, warmMs: number) => {
      this.#sandbox = ready.sandbox
      this.#tools = ready.tools
      this.#opts.onEvent?.({
        event: 'kernel_process_ready',
        pid: ready.proc.pid ?? 0,
        warm_turns: warmSteps,
        warm_ms: Math.round(warmMs),
      })
      // A reserve's linger counts from when it is ready, not from the activity that forked
      // it: a slow warm-up (a loaded machine) must not leave it only a moment of use.
      if (ready.sessions.size === 0 && this.#opts.spare) this.warm()
    }
    const bundle = this.bundle.identity(true)
    this.bundle.watch()
    const p = new KernelProcess(this.#opts.entry, this.#opts.env ?? {}, onReady, bundle)
    this.#processes.add(p)
    void p.ready.then(() => {
      if (p.refusal)
        this.#opts.onEvent?.({ event: 'kernel_process_refused', pid: p.proc.pid ?? 0, reason: p.refusal })
    })
    p.proc.once('exit', () => {
      this.#processes.delete(p)
      this.#staged.delete(p)
      for (const [sessionId, k] of this.#bySession) if (k.host === p) this.#bySession.delete(sessionId)
      // A process that crashed may have been the reserve. One that never became ready is
      // not forked again at once (a broken bundle would be forked in a loop): the next
      // activity brings the reserve back.
      if (p.answered) setImmediate(() => this.#settle())
    })
    return p
  }

  #stop(p: KernelProcess, reason: StopReason): void {
    this.#opts.onEvent?.({ event: 'kernel_process_stopped', pid: p.proc.pid ?? 0, reason })
    p.stop()
  }

  /**
   * Processes without sessions are stopped, except one kept in reserve when no other process
   * has room and the daemon was active within `spareIdleMs`; that reserve is forked if missing.
   */
  #settle(): void {
    if (this.#closed) return
    const active = this.#opts.spare && Date.now() - this.#lastActivity < this.#opts.spareIdleMs
    // Processes of an older bundle take no new session: neither room nor reserve.
    const current = (p: KernelProcess) => !this.bundle.replaced(p.bundle)
    const live = [...this.#processes].filter((p) => p.alive)
    // A process an upgrade staged is in use, though it hosts nobody yet.
    const used = (p: KernelProcess) => p.sessions.size > 0 || this.#staged.has(p)
    const roomInUse = live.some((p) => current(p) && used(p) && p.busy < this.#opts.capacity)
    const empty = live.filter((p) => !used(p))
    // A warmed process of the bundle on disk is the one worth keeping.
    const worth = (p: KernelProcess) => (current(p) ? 2 : 0) + Number(p.answered)
    empty.sort((a, b) => worth(b) - worth(a))
    const keep = active && !roomInUse && empty[0] && current(empty[0]) ? empty.shift() : undefined
    // A reserve still warming up is not released for idleness: it settles again once ready.
    const warming = (p: KernelProcess) => this.#opts.spare && current(p) && !p.answered
    for (const p of empty) {
      if (!active && warming(p)) continue
      this.#stop(p, !current(p) ? 'replaced' : active || !this.#opts.spare ? 'idle' : 'spare_idle')
    }
    if (active && !roomInUse && !keep) this.#fork()
  }
}
