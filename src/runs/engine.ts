// The run engine: feeds each session's queue to its kernel, one run at a time, turns the
// kernel's neutral events into log events (batched per turn of the event loop), and
// commits each run's outcome. A run is a loop of steps: each sends the history as it is now
// to the model; a step that asks for tools commits its answer, has the kernel run the calls
// (tool-round.ts) and goes on, until an answer without calls, an interrupt or the step
// limit. Every step is in the session log, so a stream shows a run live and replays it
// after a reconnect.

import { v7 as uuidv7 } from 'uuid'
import type { CompactionSettings } from '../context/summary.ts'
import { SessionTools } from '../context/tools.ts'
import type { KernelPool } from '../kernel/pool.ts'
import type { FromKernel } from '../kernel/protocol.ts'
import type { McpServerConfig } from '../mcp/types.ts'
import { hasTransport } from '../providers/ids.ts'
import type { EncryptedReasoningPart, NeutralEvent, TransportProfile } from '../providers/types.ts'
import { HearthError, type Problem, type ProblemCode, problemBody } from '../schemas/problems.ts'
import type { SessionsCore, Tx } from '../sessions/core.ts'
import { cutChars } from '../sessions/entries.ts'
import type { LiveContent, LiveRun } from '../sessions/live.ts'
import type { SessionRow } from '../sessions/types.ts'
import type { Profiles, ResolvedProfile } from '../settings/profiles.ts'
import { ActiveRun, DEFAULT_TOOL_SETTINGS, scopeOf, type ToolSettings } from './active-run.ts'
import type { Decision } from './approvals.ts'
import {
  autoCompactionDue,
  type CompactRequest,
  type CompactResult,
  manualCompaction,
} from './compact-run.ts'
import { finishRun, type RunOutcome } from './finish.ts'
import { watchKernels } from './kernel-views.ts'
import { loadMcp, mcpToolSource, watchMcp } from './mcp.ts'
import { type StartedRun, startRun } from './start.ts'
import { assembleStep, compactInRun, noteUsage, type StepRequest, sendAssembled } from './step-request.ts'
import { runToolRound } from './tool-round.ts'

/** Characters of command output one tool.progress event holds at most (#appendProgress). */
const PROGRESS_EVENT_CHARS = 64 * 1024

/** How long an interrupt waits for the kernel to confirm before the run is ended anyway. */
const INTERRUPT_GRACE_MS = 3000

export interface RunsDeps {
  core: SessionsCore
  kernels: KernelPool
  profiles: Profiles
  onError: (err: unknown) => void
  /** The credential of a turn for profiles that sign in (absent: the profile's own key). */
  credentials?: TurnCredentials
  /** The `tools` settings as they are now (absent: the defaults). */
  tools?: () => ToolSettings
  /** The MCP servers a session in `workspace` uses, as the settings are now (absent: none). */
  mcp?: (workspace: string) => McpServerConfig[]
  /** Logs a warning (an MCP server that failed to start or exited). */
  onNotice?: (fields: Record<string, unknown>, message: string) => void
  /** The tools requests offer (built-in and registered sources). */
  sessionTools?: SessionTools
  /** The model window of a session's model, when the catalogue knows it. */
  window?: (row: SessionRow) => Promise<number | null>
  /** The `compaction` settings as they are now (absent: automatic compaction off). */
  compaction?: () => CompactionSettings
}

/** Signed-in accounts as runs use them (src/auth/turns.ts). */
export interface TurnCredentials {
  /** The transport profile carrying this turn's credential for `model`; rejects with a HearthError. */
  forTurn(
    sessionId: string,
    profile: ResolvedProfile,
    signal: AbortSignal,
    model: string,
  ): Promise<{ transport: TransportProfile; accountId: string | null }>
  /** The provider answered 401 to this account's credential. */
  unauthorized(profile: ResolvedProfile, accountId: string): Promise<void>
  /**
   * The provider said this account is used up until `untilMs` (epoch ms) for `model`: the
   * pool puts it last (for that model's meter where the provider meters by model).
   */
  limited(profile: ResolvedProfile, accountId: string, untilMs: number, model: string): Promise<void>
}

export class Runs {
  readonly #d: RunsDeps
  readonly #active = new Map<string, ActiveRun>()
  /** Idle sessions held by a compaction: no run starts until it ends. */
  readonly #held = new Set<string>()
  readonly tools: SessionTools
  #stopped = false

  constructor(d: RunsDeps) {
    this.#d = d
    this.tools = d.sessionTools ?? new SessionTools(d.kernels)
    this.tools.register(mcpToolSource(d.kernels))
    watchKernels(d)
    watchMcp(d)
  }

  get deps(): RunsDeps {
    return this.#d
  }

  /** Whether a run or a compaction occupies the session now. */
  busy(sessionId: string): boolean {
    return this.#active.has(sessionId) || this.#held.has(sessionId)
  }

  /**
   * POST /sessions/{id}/compaction: an idle session only (409 session_busy otherwise); no
   * run starts until it ends, and inputs admitted meanwhile run after it.
   */
  async compact(sessionId: string, body: CompactRequest): Promise<CompactResult> {
    const row = this.#d.core.require(sessionId)
    if (this.busy(sessionId) || row.run_id !== null || row.phase !== 'idle')
      throw new HearthError('session_busy', 'The session is not idle: compact it once its run has ended')
    this.#held.add(sessionId)
    try {
      return await manualCompaction(this, sessionId, body)
    } finally {
      this.#held.delete(sessionId)
      setImmediate(() => this.kick(sessionId))
    }
  }

  active(sessionId: string): { run_id: string; input_ids: string[] } | undefined {
    return this.#active.get(sessionId)?.started
  }

  /** Starts the next run of a session if it is free and inputs wait. */
  kick(sessionId: string): void {
    if (this.#stopped || this.#active.has(sessionId) || this.#held.has(sessionId)) return
    try {
      const started = startRun(this.#d.core, sessionId)
      if (started) this.#launch(sessionId, started)
    } catch (err) {
      this.#d.onError(err)
    }
  }

  #launch(sessionId: string, started: StartedRun): void {
    const { core, kernels, profiles } = this.#d
    const live: LiveRun = {
      run_id: started.run_id,
      started_at: new Date().toISOString(),
      contents: [],
      observed_ms: Date.now(),
      kernel: { instance_id: null, state: 'starting', build: null },
    }
    const run = new ActiveRun(started, live)
    this.#active.set(sessionId, run)
    core.live.set(sessionId, live)
    const profile = profiles.resolve(started.provider_profile)
    if (!profile) {
      const detail = `Profile "${started.provider_profile}" is not configured (config.json providers.profiles)`
      this.#finish(sessionId, run, 'failed', problemBody('provider_not_configured', detail))
      return
    }
    if (!hasTransport(profile.extension)) {
      // A profile written by hand for a provider hearth cannot talk to yet.
      const detail = `Profile "${profile.name}" uses ${profile.extension}, which hearth cannot talk to yet`
      this.#finish(sessionId, run, 'failed', problemBody('provider_unsupported', detail))
      return
    }
    const kernel = kernels.acquire(sessionId)
    run.kernel = kernel
    kernel.state = 'running'
    live.kernel = { instance_id: kernel.instanceId, state: 'running', build: kernel.build }
    kernel.listener = {
      onMessage: (msg) => this.#onKernel(sessionId, run, msg),
      onExit: (code, signal) =>
        this.#finish(
          sessionId,
          run,
          'failed',
          problemBody('kernel_crashed', `The kernel exited (${signal ?? `code ${code}`}) during the run`),
        ),
    }
    // The session's resolved model goes upstream; the profile's only fills a session without one.
    const model = started.model || profile.transport.model
    run.model = model
    run.effort = started.effort ?? profile.effort
    run.scope = scopeOf(core, sessionId, this.#d.tools?.() ?? DEFAULT_TOOL_SETTINGS)
    run.profile = profile
    const credential = this.#d.credentials
      ? this.#d.credentials.forTurn(sessionId, profile, run.abort.signal, model)
      : Promise.resolve({ transport: profile.transport, accountId: null })
    const row = core.row(sessionId)
    const window = row && this.#d.window ? this.#d.window(row).catch(() => null) : Promise.resolve(null)
    // The session's MCP servers start (or are kept) while the credential is fetched.
    const mcp = kernel.ready.then(() => loadMcp(this.#d, kernel, run.scope.workspace))
    void Promise.all([kernel.ready, credential, window, mcp]).then(
      ([, c, w]) => {
        if (run.finished) return
        run.window = w
        run.sent = true
        run.accountId = c.accountId
        live.kernel.build = kernel.build
        run.turn = {
          extension: profile.extension,
          profile: { ...c.transport, model },
          limits: profile.limits,
        }
        this.sendStep(sessionId, run)
      },
      (err: unknown) => {
        if (run.abort.signal.aborted) return this.#finish(sessionId, run, 'interrupted', null)
        const code = err instanceof HearthError ? err.code : 'no_usable_account'
        this.#finish(sessionId, run, 'failed', problemBody(code, (err as Error).message))
      },
    )
  }

  /**
   * Sends the next model step: the request rebuilt from the history as committed now. A
   * request whose estimate passes the compaction threshold of the model's window is
   * compacted first (once per step), when the settings ask for it.
   */
  sendStep(sessionId: string, run: ActiveRun): void {
    if (run.finished) return
    if (run.turnOpen || run.compacting) {
      run.stepWaiting = true
      return
    }
    const row = this.#d.core.row(sessionId)
    const settings = this.#d.compaction?.()
    const request = this.#assemble(sessionId, run)
    if (row && settings && autoCompactionDue(settings, run.window, request.estimate.total)) {
      run.compacting = true
      void compactInRun(this.#d, sessionId, run, row, settings, request.estimate).then(() => {
        run.compacting = false
        if (run.finished) return
        sendAssembled(this.#d, sessionId, run, this.#assemble(sessionId, run))
      })
      return
    }
    sendAssembled(this.#d, sessionId, run, request)
  }

  /**
   * The step's request from the history as committed now, offering the tools as they are
   * now: an MCP server that exited since the last step offers nothing.
   */
  #assemble(sessionId: string, run: ActiveRun): StepRequest {
    const builtin = run.kernel?.host.tools ?? []
    run.offered = this.tools.offered(sessionId, run.scope.policy, builtin)
    return assembleStep(this.#d.core, sessionId, run)
  }

  #onKernel(sessionId: string, run: ActiveRun, msg: FromKernel): void {
    if (run.finished || !('run_id' in msg) || msg.run_id !== run.started.run_id) return
    if (msg.type === 'checked') {
      // It comes after the step's last events, so the round usually waits for it already.
      if (run.checkWaiter) run.checkWaiter(msg.calls)
      else run.checked = msg.calls
      return
    }
    if (msg.type === 'tool_progress') {
      for (const c of msg.chunks) this.#appendProgress(sessionId, run, msg.call_id, c.stream, c.text)
      return
    }
    if (msg.type === 'tool_result') {
      const { outcome, output, images, meta } = msg
      const waiter = run.resultWaiters.get(msg.call_id)
      // A read the kernel ran as the step ended waits here until the round comes to it.
      if (waiter) waiter({ outcome, output, images, meta })
      else if (msg.early) run.earlyResults.set(msg.call_id, { outcome, output, images, meta })
      return
    }
    if (msg.type === 'turn_ended') {
      // A step that ended with its `done` goes on (or has finished); one without failed.
      if (run.stepEnded) {
        run.turnOpen = false
        if (run.stepWaiting) {
          run.stepWaiting = false
          this.sendStep(sessionId, run)
        }
        return
      }
      this.#finish(
        sessionId,
        run,
        'failed',
        problemBody('upstream_incomplete', 'The turn ended without a result'),
      )
      return
    }
    if (msg.type === 'events') for (const e of msg.events) this.#onEvent(sessionId, run, e)
  }

  #onEvent(sessionId: string, run: ActiveRun, e: NeutralEvent): void {
    if (run.finished) return
    switch (e.type) {
      case 'text_delta':
      case 'reasoning_delta': {
        const kind = e.type === 'text_delta' ? 'text' : 'reasoning'
        let c = run.live.contents.find((x) => x.kind === kind && x.index === e.index)
        if (!c) {
          c = {
            content_id: uuidv7(),
            run_id: run.started.run_id,
            kind,
            index: e.index,
            text: '',
            utf8_bytes: 0,
          }
          run.live.contents.push(c)
          this.#queue(sessionId, run, 'output.started', {
            run_id: c.run_id,
            content_id: c.content_id,
            kind,
            index: e.index,
          })
        }
        this.#appendDelta(sessionId, run, c, e.delta)
        return
      }
      case 'tool_call':
        run.tool_calls.push({ type: 'tool_call', id: e.id, name: e.name, arguments: e.arguments })
        return
      case 'encrypted_reasoning': {
        const { summary, encrypted_content } = e
        const part: EncryptedReasoningPart = {
          type: 'encrypted_reasoning',
          summary,
          encrypted_content,
          model: run.model,
        }
        run.encrypted.push({ index: e.index, part })
        return
      }
      case 'usage':
        run.usage = e.usage
        noteUsage(this.#d.core, sessionId, run.started.run_id, run.step, e.usage, this.#d.onError)
        return
      case 'done':
        run.stepEnded = true
        if (run.tool_calls.length > 0) void this.#toolRound(sessionId, run)
        else this.#finish(sessionId, run, 'completed', null)
        return
      case 'error':
        run.stepEnded = true
        if (e.code === 'aborted') this.#finish(sessionId, run, 'interrupted', null)
        else this.#finish(sessionId, run, 'failed', problemBody(e.code as ProblemCode, e.message))
        this.#markAccount(run, e)
        return
      default:
        return
    }
  }

  /** What a failed turn says about its signed-in account: refused, or used up for a while. */
  #markAccount(run: ActiveRun, e: Extract<NeutralEvent, { type: 'error' }>): void {
    const credentials = this.#d.credentials
    if (!credentials || !run.accountId || !run.profile) return
    if (e.code === 'upstream_unauthorized' && e.status === 401)
      void credentials.unauthorized(run.profile, run.accountId).catch(this.#d.onError)
    else if (e.code === 'upstream_rate_limited' && typeof e.limited_until_ms === 'number')
      void credentials
        .limited(run.profile, run.accountId, e.limited_until_ms, run.model)
        .catch(this.#d.onError)
  }

  /** A step asked for tools: run them (tool-round.ts), then the next step. */
  async #toolRound(sessionId: string, run: ActiveRun): Promise<void> {
    try {
      const next = await runToolRound(this.#roundDeps(sessionId), run)
      if (run.finished) return
      if (next.end) this.#finish(sessionId, run, next.end.outcome, next.end.problem)
      else this.sendStep(sessionId, run)
    } catch (err) {
      this.#d.onError(err)
      this.#finish(sessionId, run, 'failed', problemBody('internal', 'The tool round failed'))
    }
  }

  #roundDeps(sessionId: string) {
    return {
      core: this.#d.core,
      sessionId,
      flush: (run: ActiveRun) => this.#flush(sessionId, run),
      drain: (run: ActiveRun, tx: Tx) => {
        const batch = run.queue
        run.queue = []
        for (const e of batch) tx.append(sessionId, e.kind, e.payload)
      },
      queue: (run: ActiveRun, kind: string, payload: Record<string, unknown>) =>
        this.#queue(sessionId, run, kind, payload),
    }
  }

  /** Output of a running call: chunks of one call and stream that meet in a batch merge. */
  /**
   * Output of a running call joins the previous event of the same call and stream, up to
   * PROGRESS_EVENT_CHARS an event, so a fast command makes few events and none nears the
   * frame limit (a control character escapes to 6 bytes of JSON: 64 Ki of them is 384 KiB).
   */
  #appendProgress(sessionId: string, run: ActiveRun, callId: string, stream: string, text: string): void {
    run.live.observed_ms = Date.now()
    let rest = text
    while (rest.length > 0) {
      const last = run.queue.at(-1)
      const open =
        last?.kind === 'tool.progress' && last.payload.call_id === callId && last.payload.stream === stream
          ? last
          : undefined
      // Never empty: a cut inside a surrogate pair at the end of a full event starts a new one.
      const joined = open ? cutChars(rest, PROGRESS_EVENT_CHARS - (open.payload.text as string).length) : ''
      if (open && joined.length > 0) {
        open.payload.text += joined
        rest = rest.slice(joined.length)
      } else {
        const piece = cutChars(rest, PROGRESS_EVENT_CHARS)
        this.#queue(sessionId, run, 'tool.progress', { call_id: callId, stream, text: piece })
        rest = rest.slice(piece.length)
      }
    }
  }

  /** An approval input decided a request of this session's run (after its commit). */
  approvalDecided(sessionId: string, requestId: string, decision: Decision): void {
    this.#active.get(sessionId)?.approvalWaiters.get(requestId)?.(decision)
  }

  #appendDelta(sessionId: string, run: ActiveRun, c: LiveContent, delta: string): void {
    c.text += delta
    c.utf8_bytes += Buffer.byteLength(delta)
    run.live.observed_ms = Date.now()
    // Deltas of one content that arrive in one batch travel as one event.
    const last = run.queue.at(-1)
    if (last?.kind === 'output.delta' && last.payload.content_id === c.content_id) last.payload.delta += delta
    else this.#queue(sessionId, run, 'output.delta', { content_id: c.content_id, delta })
  }

  #queue(sessionId: string, run: ActiveRun, kind: string, payload: Record<string, any>): void {
    run.queue.push({ kind, payload })
    if (run.flushScheduled) return
    run.flushScheduled = true
    setImmediate(() => this.#flush(sessionId, run))
  }

  #flush(sessionId: string, run: ActiveRun): void {
    run.flushScheduled = false
    if (run.queue.length === 0) return
    const batch = run.queue
    run.queue = []
    try {
      this.#d.core.transact((tx) => {
        if (!this.#d.core.row(sessionId)) return
        for (const e of batch) tx.append(sessionId, e.kind, e.payload)
      })
    } catch (err) {
      this.#d.onError(err)
    }
  }

  #finish(sessionId: string, run: ActiveRun, outcome: RunOutcome, problem: Problem | null): void {
    if (run.finished) return
    run.finished = true
    this.#flush(sessionId, run)
    try {
      finishRun(this.#d.core, sessionId, run.started.run_id, {
        outcome,
        problem,
        contents: run.live.contents,
        tool_calls: run.tool_calls,
        replay: run.encrypted.sort((a, b) => a.index - b.index).map((x) => x.part),
        usage: run.usage,
        model: run.model || run.started.model,
        elapsed_ms: Date.now() - run.startedMs,
      })
    } catch (err) {
      this.#d.onError(err)
    }
    this.#active.delete(sessionId)
    this.#d.core.live.delete(sessionId)
    run.kernel?.host.forget(run.started.run_id)
    if (run.kernel?.alive) this.#d.kernels.release(sessionId)
    // Whatever still waits inside the run sees it finished.
    for (const w of run.approvalWaiters.values()) w('expired')
    for (const w of run.resultWaiters.values()) w({ outcome: 'interrupted', output: '' })
    run.resolveEnded()
    setImmediate(() => this.kick(sessionId))
  }

  /**
   * Stops the session's run (only `runId` when given); resolves once it has ended. The
   * partial output is kept and marked interrupted.
   */
  async interrupt(sessionId: string, runId?: string): Promise<boolean> {
    const run = this.#active.get(sessionId)
    if (!run || (runId !== undefined && run.started.run_id !== runId)) return false
    if (!run.finished) {
      run.interrupted = true
      const { core } = this.#d
      core.transact((tx) => {
        const s = core.row(sessionId)
        if (!s || s.run_id !== run.started.run_id || s.interrupt_requested === 1) return
        core
          .sql("UPDATE sessions SET interrupt_requested = 1, phase = 'interrupting' WHERE id = ?")
          .run(sessionId)
        tx.append(sessionId, 'run.interrupt_requested', { run_id: run.started.run_id })
        tx.changed({ session_id: sessionId, reason: 'changed', before: s, after: core.row(sessionId) })
      })
      // Not sent yet, waiting for a person or compacting: no step runs that needs stopping.
      if (!run.sent || run.approvalWaiters.size > 0 || run.compacting) {
        run.abort.abort()
        run.compactAbort?.abort()
        this.#finish(sessionId, run, 'interrupted', null)
        return true
      }
      run.kernel?.send({ type: 'abort', run_id: run.started.run_id })
      const timer = setTimeout(() => this.#finish(sessionId, run, 'interrupted', null), INTERRUPT_GRACE_MS)
      await run.ended
      clearTimeout(timer)
    }
    return true
  }

  /** Drain: ends every running turn as interrupted; waiting inputs run after the next start. */
  stop(): void {
    this.#stopped = true
    for (const [sessionId, run] of this.#active) {
      run.kernel?.send({ type: 'abort', run_id: run.started.run_id })
      // A run that waited for a person fails, as after a crash: its request expires.
      const waited = run.approvalWaiters.size > 0
      const detail = waited
        ? 'The daemon stopped while a call waited for approval; the request expired and the call did not run'
        : 'The daemon stopped during the run'
      this.#finish(sessionId, run, waited ? 'failed' : 'interrupted', problemBody('daemon_restarted', detail))
    }
  }
}
