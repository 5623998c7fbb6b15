// One kernel process, daemon side (`KernelProcess`): a child forked from the kernel bundle
// that runs the steps of the sessions it hosts, each session on its own `Kernel` instance
// (instance.ts). It hands each message of the process to the session, step or run it names,
// and kills the process groups a kernel that died leaves behind. Which process a session
// goes to is the pool's choice (pool.ts).
import type { ChildProcess } from 'node:child_process'
import { v7 as uuidv7 } from 'uuid'
import type { SandboxStatus } from '../tools/types.ts'
import { childProcess } from '../util/lazy-builtins.ts'
import type { Kernel } from './instance.ts'
import { type FromKernel, KERNEL_PROTOCOL, type OfferedTool, type ToKernel } from './protocol.ts'

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
  /** The identity of the bundle it was forked from (bundle.ts). */
  readonly bundle: string | null
  /** The KERNEL_PROTOCOL it said it speaks in `ready`. */
  protocol: number | null = null
  /** Why its `ready` was refused (another protocol): it is stopped and hosts nothing. */
  refusal: string | null = null
  /** Set by `ready`, which the process sends once it has run its warm-up steps (warm.ts). */
  build: string | null = null
  /** The built-in tools it runs (from `ready`). */
  tools: OfferedTool[] = []
  /** What the machine offers commands, as this process probed it (from `ready`). */
  sandbox: SandboxStatus | null = null
  readonly ready: Promise<void>
  readonly sessions = new Set<Kernel>()
  /**
   * Which session kernel the messages of each step in flight (by step id) and of each run
   * with tool calls (by run id) go to.
   */
  readonly #owners = new Map<string, Kernel>()
  #stopping = false
  /** Process groups of the commands running in this kernel, as it last reported them. */
  #groups: number[] = []

  constructor(
    entry: string,
    env: Record<string, string>,
    onReady: (p: KernelProcess, warmSteps: number, warmMs: number) => void,
    bundle: string | null = null,
  ) {
    this.bundle = bundle
    this.proc = childProcess().fork(entry, [], {
      env: { ...process.env, ...env, HEARTH_KERNEL_INSTANCE: this.instanceId },
      execArgv: KERNEL_NODE_FLAGS,
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    this.ready = new Promise((resolve) => {
      const onMessage = (msg: FromKernel) => {
        if (msg.type === 'batch') {
          for (const m of msg.messages) onMessage(m)
          return
        }
        if (msg.type === 'ready') {
          this.protocol = msg.protocol ?? null
          if (this.protocol !== KERNEL_PROTOCOL) {
            this.refusal = `it speaks kernel protocol ${this.protocol}; this daemon speaks ${KERNEL_PROTOCOL}`
            this.stop()
            resolve()
            return
          }
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
        if (msg.type === 'mcp_token') {
          const k = [...this.sessions].find((s) => s.sessionId === msg.session_id)
          // A session gone meanwhile: its server is being closed, it gets no token.
          if (k) void k.answerToken(msg)
          else this.send({ type: 'mcp_token', request_id: msg.request_id, token: null })
          return
        }
        if (
          msg.type === 'mcp_elicit' ||
          msg.type === 'mcp_elicit_withdrawn' ||
          msg.type === 'mcp_elicit_done'
        ) {
          for (const k of this.sessions) if (k.sessionId === msg.session_id) k.elicited(msg)
          return
        }
        // Answers to an upgrade's ping (upgrade.ts listens for them itself).
        if (msg.type === 'pong') return
        if (msg.type === 'groups') {
          this.#groups = msg.pgids
          return
        }
        const id = 'step_id' in msg ? msg.step_id : msg.run_id
        const k = this.#owners.get(id)
        const side = k?.sideSteps.get(id)
        if (side) side.onMessage(msg)
        else k?.listener?.onMessage(msg)
        // Nothing comes under a step's id after its `step_ended`.
        if (msg.type === 'step_ended') this.#owners.delete(msg.step_id)
      }
      this.proc.on('message', onMessage)
      this.proc.on('exit', () => resolve())
    })
    this.proc.on('exit', (code, signal) => {
      const unexpected = !this.#stopping
      this.#killOrphanedGroups()
      const hosted = [...this.sessions]
      this.sessions.clear()
      this.#owners.clear()
      for (const k of hosted) {
        for (const side of k.sideSteps.values()) side.onExit(code, signal)
        k.sideSteps.clear()
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

  /** Sessions running here now (a run, or a compaction outside one). */
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
    if (from) this.#noteOwner(msg, from)
    if (this.proc.exitCode === null && this.proc.signalCode === null && this.proc.connected)
      this.proc.send(msg, sendFailed)
  }

  /** Which session kernel the answers to `msg` go to: a step's by step id, its calls' by run id. */
  #noteOwner(msg: ToKernel, from: Kernel): void {
    if (msg.type === 'tool') this.#owners.set(msg.run_id, from)
    if (msg.type !== 'step') return
    this.#owners.set(msg.step_id, from)
    // The reads the kernel starts unasked as the step ends answer under the run's id.
    if (msg.run_id !== null) this.#owners.set(msg.run_id, from)
  }

  /** The run or step `id` names ended: its messages have nobody left to go to. */
  forget(id: string): void {
    this.#owners.delete(id)
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
/**
 * A message that could not be written to a process that is going (EPIPE). Without a callback
 * Node raises that as an 'error' event on the child, which nothing listens for, and the
 * daemon ends; the process's exit handler does what its end needs.
 */
function sendFailed(_err: Error | null): void {}
