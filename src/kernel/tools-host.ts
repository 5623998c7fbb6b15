// The kernel's side of tools: it checks calls against the tools' schemas, runs them with
// their context (workspace, sandbox, the session's jobs, an abort signal per run), streams
// their output and answers with their results. Nothing here is durable: the daemon records
// calls and results, and decides whether a call may run before it sends it.
import type { TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import { isMcpToolName } from '../mcp/names.ts'
import { ShellSession } from '../tools/exec/session.ts'
import { hiddenPaths, setHiddenPaths } from '../tools/hidden-paths.ts'
import type { JobManager, ToolProgress, ToolResult, ToolSpec } from '../tools/types.ts'
import type { McpHost } from './mcp/host.ts'
import type {
  CallRequest,
  CheckedCall,
  FromKernel,
  OfferedTool,
  ToKernel,
  ToolContextMessage,
} from './protocol.ts'
import { BUILTIN_TOOLS, newJobManager } from './tool-list.ts'

type Send = (msg: FromKernel) => void
type Validator = ReturnType<typeof Compile>

/** How long a stopping kernel waits for its aborted calls (a command gets SIGTERM, then SIGKILL). */
const STOP_WAIT_MS = 3000

/** Early reads kept at most (results nobody asked for are dropped oldest first). */
const MAX_EARLY = 256

/**
 * Bytes of one call's output streamed to clients (tool.progress events, kept in the session
 * log). A command may print without end; past this the rest is counted, not streamed, and
 * the result says how much (`meta.progress_dropped_bytes`). The model's result keeps the
 * head and tail either way, and a job's output stays readable by offset.
 */
export const PROGRESS_STREAM_BYTES = 4 * 1024 * 1024

/** Characters of a validation error the model gets back. */
const MAX_ERROR_CHARS = 2000

export class ToolHost {
  readonly #send: Send
  readonly #tools = new Map<string, ToolSpec>(BUILTIN_TOOLS.map((t) => [t.name, t as ToolSpec]))
  readonly #validators = new Map<string, Validator>()
  /** Aborts of the calls running now, per run. */
  readonly #running = new Map<string, Set<AbortController>>()
  /** Calls running now (stopAll waits for them). */
  readonly #inFlight = new Set<Promise<unknown>>()
  /** Reads started as their step ended, by run and call id, until the daemon asks for them. */
  readonly #early = new Map<string, Promise<Extract<FromKernel, { type: 'tool_result' }>>>()
  /** Each session's background jobs (this process hosts many sessions). */
  readonly #jobs = new Map<string, JobManager>()
  /** Each session's shell: its login profile's snapshot and its warm sandbox. */
  readonly #shells = new Map<string, ShellSession>()

  /** The sessions' MCP servers, whose tools are checked and run here beside the built-in ones. */
  readonly #mcp: McpHost

  constructor(send: Send, mcp: McpHost) {
    this.#send = send
    this.#mcp = mcp
  }

  /** The tools as the model is offered them (plain JSON Schema, no TypeBox markers). */
  offered(): OfferedTool[] {
    return [...this.#tools.values()].map((t) => ({
      name: t.name,
      description: t.description,
      parameters: JSON.parse(JSON.stringify(t.parameters)),
      effect: t.effect,
    }))
  }

  /**
   * Checks a step's calls and tells the daemon. With the step's tool context, the calls that
   * only read start at once: a read changes nothing, so running it before the daemon has
   * recorded the call is safe (every policy lets reads run). Its result is sent as soon as
   * it is ready (`early`), unless the daemon asked for the call first; the daemon uses it
   * when it comes to the call. Only the reads before the first call that changes something:
   * those and every call after them wait for the daemon, in the model's order.
   */
  check(
    step: { step_id: string; run_id: string | null },
    sessionId: string | undefined,
    calls: CallRequest[],
    context?: ToolContextMessage,
  ): void {
    if (context) this.prepare(context, calls)
    const checked = calls.map((c) => this.#checkOne(c, sessionId))
    this.#send({ type: 'checked', step_id: step.step_id, calls: checked })
    // A step outside a run (a compaction's summary) runs no tools.
    const runId = step.run_id
    if (!context || runId === null) return
    for (const [i, c] of checked.entries()) {
      if (!c.ok) continue
      // A read after a write or a command must see what they did: it waits for the daemon.
      if (c.effect !== 'read') break
      if (this.#early.size >= MAX_EARLY) this.#early.delete(this.#early.keys().next().value as string)
      const key = `${runId}\0${c.call_id}`
      const result = this.#runCall({ type: 'tool', run_id: runId, call: calls[i], ...context })
      this.#early.set(key, result)
      void result.then((r) => {
        // Still unasked (the daemon's `tool` takes it from the map otherwise): send it now.
        if (this.#early.get(key) !== result) return
        this.#early.delete(key)
        this.#send({ ...r, early: true })
      })
    }
  }

  /**
   * Results of reads started early for the run's last step that the daemon never asked for
   * go (a new step of the run starts, or the run is interrupted).
   */
  forgetEarlyReads(runId: string): void {
    for (const key of this.#early.keys()) if (key.startsWith(`${runId}\0`)) this.#early.delete(key)
  }

  #validator(tool: ToolSpec): Validator {
    let v = this.#validators.get(tool.name)
    if (!v) {
      v = Compile(tool.parameters as TSchema)
      this.#validators.set(tool.name, v)
    }
    return v
  }

  /** The call's arguments parsed and checked, or the error the model gets instead. */
  #parse(tool: ToolSpec, text: string): { args: unknown } | { error: string } {
    let args: unknown
    try {
      args = text.trim() === '' ? {} : JSON.parse(text)
    } catch (err) {
      return { error: `The arguments are not valid JSON: ${(err as Error).message}` }
    }
    const v = this.#validator(tool)
    if (v.Check(args)) return { args }
    const errors = [...v.Errors(args)]
      .slice(0, 8)
      .map((e) => `${e.instancePath || '/'}: ${e.message}`)
      .join('; ')
    return { error: `The arguments do not fit the ${tool.name} schema: ${errors}`.slice(0, MAX_ERROR_CHARS) }
  }

  #checkOne(c: CallRequest, sessionId: string | undefined): CheckedCall {
    const tool = this.#tools.get(c.name)
    if (!tool && sessionId !== undefined && isMcpToolName(c.name)) return this.#checkMcp(c, sessionId)
    if (!tool) {
      const known = [...this.#tools.keys(), ...(sessionId ? this.#mcp.names(sessionId) : [])].join(', ')
      return {
        call_id: c.call_id,
        ok: false,
        effect: null,
        summary: c.name,
        error: `No tool ${c.name || '(the call names none)'}; tools: ${known}`,
      }
    }
    const parsed = this.#parse(tool, c.arguments)
    if ('error' in parsed)
      return { call_id: c.call_id, ok: false, effect: tool.effect, summary: tool.name, error: parsed.error }
    let summary: string
    try {
      summary = tool.summarize(parsed.args)
    } catch {
      summary = tool.name
    }
    return { call_id: c.call_id, ok: true, effect: tool.effect, summary }
  }

  /**
   * An MCP tool's call: its server checks the arguments against its own schema, so here
   * they only need to be a JSON object.
   */
  #checkMcp(c: CallRequest, sessionId: string): CheckedCall {
    const known = this.#mcp.describe(sessionId, c.name)
    if (!known)
      return {
        call_id: c.call_id,
        ok: false,
        effect: null,
        summary: c.name,
        error: this.#mcp.noSuchTool(sessionId, c.name),
      }
    const parsed = parseObject(c.arguments)
    const summary = this.#mcp.summarize(sessionId, c.name, 'error' in parsed ? c.arguments : parsed.args)
    if ('error' in parsed)
      return { call_id: c.call_id, ok: false, effect: known.effect, summary, error: parsed.error }
    return { call_id: c.call_id, ok: true, effect: known.effect, summary }
  }

  /**
   * A step asked for commands (`calls`, as checked): the session's shell's snapshot is taken
   * now, in the background, while the calls are recorded and approved. Only then: a session
   * that never runs a command never pays for a login shell (nor do 20 sessions starting at
   * once).
   */
  prepare(context: ToolContextMessage, offered: readonly { name: string }[]): void {
    if (!offered.some((t) => t.name === 'shell' || t.name === 'job_start')) return
    this.shellOf(context.session_id).prepare({
      cwd: context.workspace,
      policy: context.sandbox,
      writableRoots: [context.workspace, ...context.allowed_roots],
    })
  }

  shellOf(sessionId: string): ShellSession {
    let shell = this.#shells.get(sessionId)
    if (!shell) {
      shell = new ShellSession({ onNotice: (message) => process.stderr.write(`hearth kernel: ${message}\n`) })
      this.#shells.set(sessionId, shell)
    }
    return shell
  }

  /**
   * The session left this process (or was deleted): its shell goes (the snapshot, and the
   * warm sandbox once its last command or job ends). A later command takes a new one.
   */
  releaseShell(sessionId: string): void {
    this.#shells.get(sessionId)?.close()
    this.#shells.delete(sessionId)
  }

  jobsOf(sessionId: string): JobManager {
    let m = this.#jobs.get(sessionId)
    if (!m) {
      m = newJobManager((jobs) => this.#send({ type: 'jobs', session_id: sessionId, jobs }))
      this.#jobs.set(sessionId, m)
    }
    return m
  }

  async run(msg: Extract<ToKernel, { type: 'tool' }>): Promise<void> {
    const key = `${msg.run_id}\0${msg.call.call_id}`
    const early = this.#early.get(key)
    this.#early.delete(key)
    this.#send(await (early ?? this.#runCall(msg)))
  }

  #runCall(msg: Extract<ToKernel, { type: 'tool' }>): Promise<Extract<FromKernel, { type: 'tool_result' }>> {
    const p = this.#callOnce(msg)
    this.#inFlight.add(p)
    void p.finally(() => this.#inFlight.delete(p))
    return p
  }

  async #callOnce(
    msg: Extract<ToKernel, { type: 'tool' }>,
  ): Promise<Extract<FromKernel, { type: 'tool_result' }>> {
    const { run_id: runId, call } = msg
    const abort = new AbortController()
    let running = this.#running.get(runId)
    if (!running) {
      running = new Set()
      this.#running.set(runId, running)
    }
    running.add(abort)
    // Output is batched per tick of the event loop, like a step's deltas.
    let chunks: ToolProgress[] = []
    const flush = () => {
      if (chunks.length === 0) return
      this.#send({ type: 'tool_progress', run_id: runId, call_id: call.call_id, chunks })
      chunks = []
    }
    let streamed = 0
    let dropped = 0
    const progress = (chunk: ToolProgress) => {
      if (chunk.text === '') return
      const bytes = Buffer.byteLength(chunk.text)
      if (streamed + bytes > PROGRESS_STREAM_BYTES) {
        dropped += bytes
        return
      }
      streamed += bytes
      if (chunks.length === 0) setImmediate(flush)
      const last = chunks.at(-1)
      if (last?.stream === chunk.stream) last.text += chunk.text
      else chunks.push({ ...chunk })
    }
    let result: ToolResult
    try {
      result = await this.#execute(msg, abort.signal, progress)
    } catch (err) {
      result = { outcome: 'error', output: `The tool failed: ${(err as Error)?.message ?? String(err)}` }
    } finally {
      running.delete(abort)
      if (running.size === 0) this.#running.delete(runId)
    }
    flush()
    if (abort.signal.aborted && result.outcome === 'ok') result = { ...result, outcome: 'interrupted' }
    if (dropped > 0) result = { ...result, meta: { ...result.meta, progress_dropped_bytes: dropped } }
    return { type: 'tool_result', run_id: runId, call_id: call.call_id, ...result }
  }

  async #execute(
    msg: Extract<ToKernel, { type: 'tool' }>,
    signal: AbortSignal,
    progress: (c: ToolProgress) => void,
  ): Promise<ToolResult> {
    const tool = this.#tools.get(msg.call.name)
    if (!tool && isMcpToolName(msg.call.name)) {
      const parsed = parseObject(msg.call.arguments)
      if ('error' in parsed) return { outcome: 'error', output: parsed.error }
      return this.#mcp.call(msg.session_id, msg.call.name, parsed.args, signal, progress, msg.call.call_id)
    }
    if (!tool) return { outcome: 'error', output: `No tool ${msg.call.name}` }
    const parsed = this.#parse(tool, msg.call.arguments)
    if ('error' in parsed) return { outcome: 'error', output: parsed.error }
    setHiddenPaths(msg.sandbox.hidden ?? hiddenPaths())
    return tool.run(parsed.args, {
      workspace: msg.workspace,
      allowedRoots: msg.allowed_roots,
      skillsOff: msg.skills_off ?? [],
      signal,
      progress,
      sandbox: msg.sandbox,
      jobs: this.jobsOf(msg.session_id),
      runId: msg.run_id,
      shell: this.shellOf(msg.session_id),
    })
  }

  /** An interrupt: the run's running calls are aborted and the jobs it started stopped. */
  abort(runId: string): void {
    this.forgetEarlyReads(runId)
    for (const a of this.#running.get(runId) ?? []) a.abort()
    for (const m of this.#jobs.values()) void m.stopForRun(runId).catch(() => {})
  }

  async stopJobs(sessionId: string): Promise<void> {
    const m = this.#jobs.get(sessionId)
    if (!m) {
      this.releaseShell(sessionId)
      this.#send({ type: 'jobs', session_id: sessionId, jobs: [] })
      return
    }
    await m.stopAll().catch(() => {})
    this.#jobs.delete(sessionId)
    this.releaseShell(sessionId)
    this.#send({ type: 'jobs', session_id: sessionId, jobs: m.list() })
  }

  /** Shutdown: every running call and every job of every session, with their process groups. */
  async stopAll(): Promise<void> {
    for (const running of this.#running.values()) for (const a of running) a.abort()
    // An aborted command is stopped with its process group before the process may go.
    const calls = Promise.allSettled([...this.#inFlight])
    await Promise.race([calls, new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref())])
    await Promise.all([...this.#jobs.values()].map((m) => m.stopAll().catch(() => {})))
    for (const sessionId of [...this.#shells.keys()]) this.releaseShell(sessionId)
  }
}

/** Arguments that must be a JSON object (an MCP tool's). */
function parseObject(text: string): { args: Record<string, unknown> } | { error: string } {
  let args: unknown
  try {
    args = text.trim() === '' ? {} : JSON.parse(text)
  } catch (err) {
    return { error: `The arguments are not valid JSON: ${(err as Error).message}` }
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args))
    return { error: 'The arguments must be a JSON object' }
  return { args: args as Record<string, unknown> }
}
