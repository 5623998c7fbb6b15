// A session's kernel (`Kernel`): the session's own instance on a shared kernel process
// (`KernelProcess`, process.ts), with its state, the listener of its run, its background jobs
// and its MCP servers as the process reported them.
import { v7 as uuidv7 } from 'uuid'
import type { McpAccessToken, McpRoot, McpServerConfig, McpServerStatus } from '../mcp/types.ts'
import type { JobInfo } from '../tools/types.ts'
import type { KernelProcess } from './process.ts'
import type { FromKernel, McpElicitMessage, ToKernel } from './protocol.ts'

export type KernelState = 'none' | 'starting' | 'ready' | 'running' | 'stopping'

export interface KernelListener {
  onMessage: (msg: FromKernel) => void
  /** The process ended without being asked to (crash, OOM, kill). */
  onExit: (code: number | null, signal: string | null) => void
}

/** A session's kernel: the session's instance on a shared kernel process. */
export class Kernel {
  readonly instanceId = uuidv7()
  readonly host: KernelProcess
  readonly sessionId: string
  state: KernelState
  listener: KernelListener | undefined
  /**
   * Steps of the session outside its run (a compaction's summary), by their step id: their
   * messages go here instead of to the listener.
   */
  readonly sideSteps = new Map<string, KernelListener>()
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
  /** Gives out a signed-in server's access token when the kernel asks (the pool's onMcpToken). */
  mcpToken: ((server: string, rejected?: string) => Promise<McpAccessToken | null>) | undefined
  /** Told when a server of the session asks the person (the pool's onElicit). */
  onElicit: ((msg: McpElicitMessage) => void) | undefined
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

  /** A server's question: to whoever answers them, else refused at once. */
  elicited(msg: McpElicitMessage): void {
    if (this.onElicit) this.onElicit(msg)
    else this.refuseQuestion(msg)
  }

  /** Nobody here answers questions: the server gets `cancel`. */
  refuseQuestion(msg: McpElicitMessage): void {
    if (msg.type === 'mcp_elicit')
      this.send({ type: 'mcp_elicit_answer', elicit_id: msg.elicit_id, result: { action: 'cancel' } })
  }

  /**
   * Has the kernel bring the session's MCP servers to `servers` (nothing to do when there
   * are none and none were loaded); resolves once it reported them (or the process ended).
   * `retry` starts quarantined servers again (a reload) although their settings are unchanged.
   */
  loadMcp(servers: McpServerConfig[], roots: McpRoot[], retry = false): Promise<void> {
    if (servers.length === 0 && (this.mcp?.length ?? 0) === 0) return Promise.resolve()
    if (!this.alive) return Promise.resolve()
    const loadId = ++this.#mcpLoads
    return new Promise((resolve) => {
      this.#mcpWaiters.set(loadId, resolve)
      this.send({ type: 'mcp_load', session_id: this.sessionId, load_id: loadId, servers, roots, retry })
    })
  }

  /** The session's roots changed (its workspace moved): its loaded servers are told. */
  rootsChanged(roots: McpRoot[]): void {
    if (this.alive && (this.mcp?.length ?? 0) > 0)
      this.send({ type: 'mcp_roots', session_id: this.sessionId, roots })
  }

  /** Answers the kernel's token request (null when nothing gives tokens out, or it failed). */
  async answerToken(msg: Extract<FromKernel, { type: 'mcp_token' }>): Promise<void> {
    let token: McpAccessToken | null = null
    try {
      token = (await this.mcpToken?.(msg.server, msg.rejected)) ?? null
    } catch {
      // A refresh that failed outright: the server needs a sign-in, as with none.
    }
    this.host.send({ type: 'mcp_token', request_id: msg.request_id, token })
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
    // Its MCP servers and its shell (snapshot, warm sandbox) live in the process, which
    // stays: they go now.
    if (this.host.alive) this.host.send({ type: 'mcp_close', session_id: this.sessionId })
    this.mcpChanged(null)
    this.#detached = true
    this.listener = undefined
    this.state = 'none'
    this.host.sessions.delete(this)
  }
}
