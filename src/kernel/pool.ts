// Kernels, daemon side. A session's kernel (`Kernel`: its own instance id and state) runs on
// a shared kernel process (`KernelProcess`) that runs the turns of up to `capacity` busy
// sessions at once (idle sessions keep their kernel there without taking room). Sessions
// are packed into the fewest processes; one warmed process with room is kept ready while
// the daemon is in use, and released once nothing has happened for `spareIdleMs`. docs/architecture.md ("Kernels") gives the figures behind this shape.
import type { ChildProcess } from 'node:child_process'
import { v7 as uuidv7 } from 'uuid'
import type { McpServerConfig, McpServerStatus } from '../mcp/types.ts'
import type { JobInfo, SandboxStatus } from '../tools/types.ts'
import { childProcess } from '../util/lazy-builtins.ts'
import type { FromKernel, OfferedTool, ToKernel } from './protocol.ts'

export type KernelState = 'none' | 'starting' | 'ready' | 'running' | 'stopping'

export interface KernelInfo {
  instance_id: string | null
  state: KernelState
  build: string | null
  /** The session's background jobs that still run. */
  running_jobs: JobInfo[]
}

export interface KernelListener {
  onMessage: (msg: FromKernel) => void
  /** The process ended without being asked to (crash, OOM, kill). */
  onExit: (code: number | null, signal: string | null) => void
}

/** What the pool reports about its processes (the daemon logs it). */
export type PoolEvent =
  | { event: 'kernel_process_ready'; pid: number; warm_turns: number; warm_ms: number }
  | { event: 'kernel_process_stopped'; pid: number; reason: 'idle' | 'spare_idle' | 'close' }

/**
 * A 2 MB young generation (V8 sizes it from the machine's memory otherwise): measured over
 * a hundred short sessions then a 20,000-delta reply, the tree peaked ~12 MB lower (105.8
 * vs 112.0–119.5 MB), with first tokens unchanged; 1 MB saved about as much and cost the
 * first token ~1 ms. A heap size leaves V8's flag hash, and so Node's code cache, alone. No
 * other flag here: kernels keep every compiler tier for JavaScript; WebAssembly's tier-up is
 * turned off at run time (v8-flags.ts), after Node's builtins have loaded.
 */
const KERNEL_NODE_FLAGS = ['--max-semi-space-size=2']

/** One kernel process and the sessions it hosts. */
export class KernelProcess {
  readonly instanceId = uuidv7()
  readonly proc: ChildProcess
  /** Set by `ready`, which the process sends once it has run its warm-up turns (warm.ts). */
  build: string | null = null
  /** The built-in tools it runs (from `ready`). */
  tools: OfferedTool[] = []
  /** What the machine offers commands, as this process probed it (from `ready`). */
  sandbox: SandboxStatus | null = null
  readonly ready: Promise<void>
  readonly sessions = new Set<Kernel>()
  /** Which session kernel each turn in flight belongs to. */
  readonly #runs = new Map<string, Kernel>()
  #stopping = false
  /** Process groups of the commands running in this kernel, as it last reported them. */
  #groups: number[] = []

  constructor(
    entry: string,
    env: Record<string, string>,
    onReady: (p: KernelProcess, warmTurns: number, warmMs: number) => void,
  ) {
    this.proc = childProcess().fork(entry, [], {
      env: { ...process.env, ...env, HEARTH_KERNEL_INSTANCE: this.instanceId },
      execArgv: KERNEL_NODE_FLAGS,
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    this.ready = new Promise((resolve) => {
      this.proc.on('message', (msg: FromKernel) => {
        if (msg.type === 'ready') {
          this.build = msg.build
          this.tools = msg.tools
          this.sandbox = msg.sandbox
          for (const k of this.sessions) if (k.state === 'starting') k.state = 'ready'
          onReady(this, msg.warm_turns, msg.warm_ms)
          resolve()
          return
        }
        if (msg.type === 'jobs') {
          for (const k of this.sessions) if (k.sessionId === msg.session_id) k.jobsChanged(msg.jobs)
          return
        }
        if (msg.type === 'mcp_state') {
          for (const k of this.sessions)
            if (k.sessionId === msg.session_id) k.mcpChanged(msg.servers, msg.load_id)
          return
        }
        if (msg.type === 'groups') {
          this.#groups = msg.pgids
          return
        }
        const k = this.#runs.get(msg.run_id)
        const side = k?.sideTurns.get(msg.run_id)
        if (side) side.onMessage(msg)
        else k?.listener?.onMessage(msg)
      })
      this.proc.on('exit', () => resolve())
    })
    this.proc.on('exit', (code, signal) => {
      const unexpected = !this.#stopping
      this.#killOrphanedGroups()
      const hosted = [...this.sessions]
      this.sessions.clear()
      this.#runs.clear()
      for (const k of hosted) {
        for (const side of k.sideTurns.values()) side.onExit(code, signal)
        k.sideTurns.clear()
        k.state = 'none'
        // Jobs and MCP servers are the process's children: they went with it.
        k.jobsChanged([])
        k.mcpChanged(null)
        if (unexpected) k.listener?.onExit(code, signal)
      }
    })
    // A kernel must never keep the daemon alive on its own.
    this.proc.unref()
    this.proc.channel?.unref()
  }

  /**
   * The commands a kernel ran are in process groups of their own; a kernel that stops
   * cleanly ends them, one killed outright cannot (and inside bubblewrap, --die-with-parent
   * ends only bubblewrap). The groups it last reported are killed as it exits, at once, so a
   * group id has had no time to be reused.
   */
  #killOrphanedGroups(): void {
    for (const pgid of this.#groups) {
      try {
        process.kill(-pgid, 'SIGKILL')
      } catch {
        // ESRCH: the group ended with its kernel
      }
    }
    this.#groups = []
  }

  get alive(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null && !this.#stopping
  }

  /** Sessions whose turn runs here now. */
  get busy(): number {
    let n = 0
    for (const k of this.sessions) if (k.state === 'running') n++
    return n
  }

  /** The process has sent `ready`, so its warm-up is done. */
  get answered(): boolean {
    return this.build !== null
  }

  send(msg: ToKernel, from?: Kernel): void {
    if ((msg.type === 'turn' || msg.type === 'tool') && from) this.#runs.set(msg.run_id, from)
    if (this.proc.exitCode === null && this.proc.signalCode === null && this.proc.connected)
      this.proc.send(msg)
  }

  /** The run ended: its messages have nobody left to go to. */
  forget(runId: string): void {
    this.#runs.delete(runId)
  }

  stop(): void {
    if (this.#stopping) return
    this.#stopping = true
    for (const k of this.sessions) k.state = 'stopping'
    this.send({ type: 'shutdown' })
    // Jobs get a moment to stop with their process groups before the process is killed.
    const kill = setTimeout(() => this.proc.kill('SIGKILL'), 4000)
    kill.unref()
    this.proc.once('exit', () => clearTimeout(kill))
  }
}

/** A session's kernel: the session's instance on a shared kernel process. */
export class Kernel {
  readonly instanceId = uuidv7()
  readonly host: KernelProcess
  readonly sessionId: string
  state: KernelState
  listener: KernelListener | undefined
  /**
   * Model turns of the session that are not steps of its run (a compaction's summary), by
   * their own turn id: their messages go here instead of to the listener.
   */
  readonly sideTurns = new Map<string, KernelListener>()
  /** The session's background jobs as the kernel last reported them. */
  jobs: JobInfo[] = []
  /** Told when the session's jobs change (the pool's onJobs). */
  onJobs: ((jobs: JobInfo[]) => void) | undefined
  /**
   * The session's MCP servers as the kernel last reported them; null when none were ever
   * loaded on this instance (or they went with it).
   */
  mcp: McpServerStatus[] | null = null
  /** Told when the session's MCP servers change (the pool's onMcp). */
  onMcp: ((servers: McpServerStatus[] | null) => void) | undefined
  /** Loads waiting for their answer (`mcp_state` with their id), by load id. */
  readonly #mcpWaiters = new Map<number, () => void>()
  #mcpLoads = 0
  #detached = false

  constructor(host: KernelProcess, sessionId: string) {
    this.host = host
    this.sessionId = sessionId
    this.state = host.answered ? 'ready' : 'starting'
    host.sessions.add(this)
  }

  get build(): string | null {
    return this.host.build
  }

  /** Jobs that still run: while there are any, the session keeps this kernel. */
  get liveJobs(): JobInfo[] {
    return this.jobs.filter((j) => j.state === 'running')
  }

  jobsChanged(jobs: JobInfo[]): void {
    this.jobs = jobs
    this.onJobs?.(jobs)
  }

  /** A report of the session's MCP servers (null: they went with the kernel, every load ends). */
  mcpChanged(servers: McpServerStatus[] | null, loadId?: number): void {
    this.mcp = servers
    if (servers === null) {
      for (const w of this.#mcpWaiters.values()) w()
      this.#mcpWaiters.clear()
    } else if (loadId !== undefined) {
      this.#mcpWaiters.get(loadId)?.()
      this.#mcpWaiters.delete(loadId)
    }
    this.onMcp?.(servers)
  }

  /**
   * Has the kernel bring the session's MCP servers to `servers` (nothing to do when there
   * are none and none were loaded); resolves once it reported them (or the process ended).
   * `retry` starts quarantined servers again (a reload) although their settings are unchanged.
   */
  loadMcp(servers: McpServerConfig[], retry = false): Promise<void> {
    if (servers.length === 0 && (this.mcp?.length ?? 0) === 0) return Promise.resolve()
    if (!this.alive) return Promise.resolve()
    const loadId = ++this.#mcpLoads
    return new Promise((resolve) => {
      this.#mcpWaiters.set(loadId, resolve)
      this.send({ type: 'mcp_load', session_id: this.sessionId, load_id: loadId, servers, retry })
    })
  }

  /** Resolves once the process has warmed up (or ended). */
  get ready(): Promise<void> {
    return this.host.ready
  }

  get alive(): boolean {
    return !this.#detached && this.host.alive && this.state !== 'none'
  }

  send(msg: ToKernel): void {
    if (this.alive || msg.type === 'abort') this.host.send(msg, this)
  }

  /** The session gives its kernel up; the process stays for its other sessions. */
  detach(): void {
    // Its MCP servers are children of the process, which stays: they stop now.
    if (this.mcp !== null && this.host.alive)
      this.host.send({ type: 'mcp_close', session_id: this.sessionId })
    this.mcpChanged(null)
    this.#detached = true
    this.listener = undefined
    this.state = 'none'
    this.host.sessions.delete(this)
  }
}

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
  /** Running turns one kernel process takes at most. */
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
  /** A session's MCP servers changed (loaded, one exited, or they stopped with its kernel). */
  onMcp: ((sessionId: string, servers: McpServerStatus[] | null) => void) | undefined
  #lastActivity = Number.NEGATIVE_INFINITY
  #closed = false

  constructor(opts: PoolOptions) {
    this.#opts = opts
  }

  /** Something is happening (the daemon started, a session was created or ran): have room ready. */
  warm(): void {
    if (this.#closed) return
    this.#lastActivity = Date.now()
    clearTimeout(this.#spareTimer)
    this.#spareTimer = setTimeout(() => this.#settle(), this.#opts.spareIdleMs)
    this.#spareTimer.unref()
    this.#settle()
  }

  /**
   * The session's kernel: kept from its last turn unless its process is full of running
   * turns (then, as after a release, a new instance elsewhere), else a new one.
   */
  acquire(sessionId: string): Kernel {
    clearTimeout(this.#idleTimers.get(sessionId))
    this.#idleTimers.delete(sessionId)
    let k = this.#bySession.get(sessionId)
    // A session with live jobs stays where its jobs run, even past the process's capacity.
    if (k?.alive && k.state !== 'stopping' && (k.host.busy < this.#opts.capacity || k.liveJobs.length > 0))
      return k
    k?.detach()
    k = new Kernel(this.#hostForNewSession(), sessionId)
    k.onJobs = (jobs) => this.onJobs?.(sessionId, jobs)
    k.onMcp = (servers) => this.onMcp?.(sessionId, servers)
    this.#bySession.set(sessionId, k)
    setImmediate(() => this.warm())
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
    clearTimeout(this.#spareTimer)
    for (const t of this.#idleTimers.values()) clearTimeout(t)
    for (const p of this.#processes) this.#stop(p, 'close')
    this.#bySession.clear()
  }

  /** The warmed process with room that already hosts the most sessions, else a new one. */
  #hostForNewSession(): KernelProcess {
    let best: KernelProcess | undefined
    const rank = (p: KernelProcess) => (p.answered ? 1_000_000 : 0) + p.sessions.size
    for (const p of this.#processes) {
      if (!p.alive || p.busy >= this.#opts.capacity) continue
      if (!best || rank(p) > rank(best)) best = p
    }
    return best ?? this.#fork()
  }

  #fork(): KernelProcess {
    const p = new KernelProcess(this.#opts.entry, this.#opts.env ?? {}, (ready, warmTurns, warmMs) => {
      this.#sandbox = ready.sandbox
      this.#tools = ready.tools
      this.#opts.onEvent?.({
        event: 'kernel_process_ready',
        pid: ready.proc.pid ?? 0,
        warm_turns: warmTurns,
        warm_ms: Math.round(warmMs),
      })
    })
    this.#processes.add(p)
    p.proc.once('exit', () => {
      this.#processes.delete(p)
      for (const [sessionId, k] of this.#bySession) if (k.host === p) this.#bySession.delete(sessionId)
      // A process that crashed may have been the reserve.
      setImmediate(() => this.#settle())
    })
    return p
  }

  #stop(p: KernelProcess, reason: 'idle' | 'spare_idle' | 'close'): void {
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
    const live = [...this.#processes].filter((p) => p.alive)
    const roomInUse = live.some((p) => p.sessions.size > 0 && p.busy < this.#opts.capacity)
    const empty = live.filter((p) => p.sessions.size === 0)
    // A warmed process is the one worth keeping.
    empty.sort((a, b) => Number(b.answered) - Number(a.answered))
    const keep = active && !roomInUse ? empty.shift() : undefined
    for (const p of empty) this.#stop(p, active || !this.#opts.spare ? 'idle' : 'spare_idle')
    if (active && !roomInUse && !keep) this.#fork()
  }
}
