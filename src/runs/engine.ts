// The run engine: feeds each session's queue to its kernel, one run at a time, and commits
// each run's outcome. A run is a loop of steps: each sends the history as it is now to the
// model; a step that asks for tools commits its answer, has the kernel run the calls
// (tool-round.ts) and goes on, until an answer without calls, an interrupt or the step
// limit. Every step is in the session log, so a stream shows a run live and replays it
// after a reconnect.
//
// This file keeps the table of active runs and what changes it (start, end, interrupt,
// stop); its parts are the start of a run before its first step (launch.ts), each step
// (step.ts: its request on the way out, the kernel's messages about it), a step's tool round
// (tool-round.ts) and the run's end (finish.ts). README.md in this folder is the map.

import { SessionTools } from '../context/tools.ts'
import { flushForNextAdmission } from '../inputs/group-commit.ts'
import type { UpgradeStage } from '../kernel/upgrade.ts'
import type { ElicitAnswer } from '../mcp/elicitation.ts'
import { runCachePolicy } from '../models/cache-policy.ts'
import { HearthError, type Problem, problemBody } from '../schemas/problems.ts'
import type { Decision } from '../sessions/approvals.ts'
import type { Tx } from '../sessions/core.ts'
import type { ActiveRun } from './active-run.ts'
import {
  autoCompactionDue,
  type CompactRequest,
  type CompactResult,
  manualCompaction,
} from './compaction/manual.ts'
import type { RunMoves, RunsDeps } from './deps.ts'
import { watchElicitations } from './elicitations.ts'
import { finishRun, type RunOutcome } from './finish.ts'
import { launchRun, newActiveRun } from './launch.ts'
import { mcpToolSource, watchMcp } from './session-kernel/mcp.ts'
import { watchKernels } from './session-kernel/views.ts'
import { startRun } from './start.ts'
import { drainEvents, roundDeps } from './step/events.ts'
import { assembleStep, compactInRun, type StepRequest, sendAssembled } from './step.ts'
import { runToolRound } from './tool-round.ts'

export type { RunCredentials, RunsDeps } from './deps.ts'

/** How long an interrupt waits for the kernel to confirm before the run is ended anyway. */
const INTERRUPT_GRACE_MS = 3000

export class Runs {
  readonly #d: RunsDeps
  readonly #active = new Map<string, ActiveRun>()
  /** Idle sessions held by maintenance (compaction, reload): no run starts until it ends. */
  readonly #held = new Set<string>()
  /** What the engine's parts may do to a run (they never touch the table of active runs). */
  readonly #moves: RunMoves
  readonly tools: SessionTools
  /** Sessions whose kernel an upgrade is moving now, and its stage (`kernel.stage` of reads). */
  readonly kernelStages = new Map<string, UpgradeStage>()
  #stopped = false

  constructor(d: RunsDeps) {
    this.#d = d
    this.tools = d.sessionTools ?? new SessionTools(d.kernels)
    this.tools.register(mcpToolSource(d.kernels))
    this.#moves = {
      d,
      sendStep: (sessionId, run) => this.sendStep(sessionId, run),
      finish: (sessionId, run, outcome, problem) => this.#finish(sessionId, run, outcome, problem),
      toolRound: (sessionId, run) => void this.#toolRound(sessionId, run),
    }
    watchKernels(d, this.kernelStages)
    watchMcp(d)
    watchElicitations(d, (sessionId) => this.#active.get(sessionId))
  }

  get deps(): RunsDeps {
    return this.#d
  }

  /** Whether maintenance (holdIdle: compaction, reload, kernel upgrade) holds the session now. */
  held(sessionId: string): boolean {
    return this.#held.has(sessionId)
  }

  /** Whether a run or a compaction occupies the session now. */
  busy(sessionId: string): boolean {
    return this.#active.has(sessionId) || this.#held.has(sessionId)
  }

  /**
   * POST /sessions/{id}/compaction: an idle session only (409 session_busy otherwise); no
   * run starts until it ends, and inputs admitted meanwhile run after it.
   */
  compact(sessionId: string, body: CompactRequest): Promise<CompactResult> {
    return this.holdIdle(sessionId, 'compact', () => manualCompaction(this, sessionId, body))
  }

  /**
   * Maintenance of an idle session (compaction, reload, kernel upgrade): 409 session_busy when a run or other
   * maintenance occupies it; no run starts while `work` runs, and inputs admitted meanwhile
   * run after it.
   */
  async holdIdle<T>(sessionId: string, verb: string, work: () => Promise<T>): Promise<T> {
    const row = this.#d.core.require(sessionId)
    if (this.busy(sessionId) || row.run_id !== null || row.phase !== 'idle')
      throw new HearthError('session_busy', `The session is not idle: ${verb} it once its run has ended`)
    this.#held.add(sessionId)
    try {
      return await work()
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
      if (!started) return
      const run = newActiveRun(started)
      this.#active.set(sessionId, run)
      this.#d.core.live.set(sessionId, run.live)
      launchRun(this.#moves, sessionId, run)
    } catch (err) {
      this.#d.onError(err)
    }
  }

  /**
   * Sends the next model step: the request rebuilt from the history as committed now. A
   * request whose estimate passes the compaction threshold of the model's window is
   * compacted first (once per step), when the settings ask for it.
   */
  sendStep(sessionId: string, run: ActiveRun): void {
    if (run.finished) return
    if (run.stepOpen || run.compacting) {
      run.stepWaiting = true
      return
    }
    const row = this.#d.core.row(sessionId)
    const settings = this.#d.compaction?.()
    const request = this.#assemble(sessionId, run)
    if (row && settings && autoCompactionDue(settings, run.window, request.estimate.total)) {
      run.compacting = true
      // Its summary request goes to the model too: only once the run's input is durable.
      const durable = this.#d.core.hub.settled() ?? Promise.resolve()
      void durable
        .then(() => compactInRun(this.#d, sessionId, run, row, settings, request.estimate))
        .then(() => {
          run.compacting = false
          if (run.finished) return
          sendAssembled(this.#d, sessionId, run, this.#assemble(sessionId, run))
          this.#settleCache(run)
        })
      return
    }
    sendAssembled(this.#d, sessionId, run, request)
    this.#settleCache(run)
  }

  /** The run's cache policy, looked up once, after its first step has left for the kernel. */
  #settleCache(run: ActiveRun): void {
    if (run.cache !== undefined) return
    run.cache = runCachePolicy(
      this.#d.cacheRules?.() ?? [],
      run.transport.extension,
      run.transport.profile.endpoint,
    )
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

  /** A step asked for tools: run them (tool-round.ts), then the next step. */
  async #toolRound(sessionId: string, run: ActiveRun): Promise<void> {
    try {
      const snapshots = this.#d.snapshots
      const beforeChange = snapshots
        ? (r: ActiveRun) => snapshots.before(sessionId, r.started.run_id, r.scope)
        : undefined
      const next = await runToolRound({ ...roundDeps(this.#d, sessionId), beforeChange }, run)
      if (run.finished) return
      if (next.end) this.#finish(sessionId, run, next.end.outcome, next.end.problem)
      else this.sendStep(sessionId, run)
    } catch (err) {
      this.#d.onError(err)
      this.#finish(sessionId, run, 'failed', problemBody('internal', 'The tool round failed'))
    }
  }

  /** An approval input decided a request of this session's run (after its commit). */
  approvalDecided(sessionId: string, requestId: string, decision: Decision): void {
    this.#active.get(sessionId)?.approvalWaiters.get(requestId)?.(decision)
  }

  /** An answer to an MCP server's question, once on disk: on to the server. */
  elicitationAnswered(sessionId: string, requestId: string, answer: ElicitAnswer): void {
    this.#active.get(sessionId)?.elicitationWaiters.get(requestId)?.(answer)
  }

  /** The run's cache policy for its end: looked up now if no step was sent (none without a transport). */
  #cacheOf(run: ActiveRun) {
    if (run.cache === undefined && run.transport) this.#settleCache(run)
    return run.cache ?? null
  }

  #finish(sessionId: string, run: ActiveRun, outcome: RunOutcome, problem: Problem | null): void {
    if (run.finished) return
    run.finished = true
    try {
      // The run's queued events (its last deltas) commit with its end.
      const drain = (tx: Tx) => drainEvents(this.#d, sessionId, run, tx)
      finishRun(
        this.#d.core,
        sessionId,
        run.started.run_id,
        {
          outcome,
          problem,
          contents: run.live.contents,
          tool_calls: run.tool_calls,
          replay: run.encrypted.sort((a, b) => a.index - b.index).map((x) => x.part),
          usage: run.usage,
          model: run.model || run.started.model,
          elapsed_ms: Date.now() - run.startedMs,
          cache: this.#cacheOf(run),
          cut: run.cut,
        },
        drain,
      )
    } catch (err) {
      this.#d.onError(err)
    }
    // Its `after` snapshot, queued now: ahead of the next run's `before` on the same roots.
    this.#d.snapshots?.after(sessionId, run.started.run_id)
    // The next input's fsynced admission should not have to write this run's pages too; the
    // flush is asked for once the run's end has gone out to the streams (their writes are
    // microtasks of this turn), not ahead of them.
    setImmediate(() => {
      if (this.#d.core.db.open) flushForNextAdmission(this.#d.core)
    })
    this.#active.delete(sessionId)
    this.#d.core.live.delete(sessionId)
    run.kernel?.host.forget(run.started.run_id)
    if (run.stepId !== null) run.kernel?.host.forget(run.stepId)
    if (run.kernel?.alive) this.#d.kernels.release(sessionId)
    // Whatever still waits inside the run sees it finished.
    for (const w of run.approvalWaiters.values()) w('expired')
    for (const w of run.elicitationWaiters.values()) w('expired')
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
      if (!run.sent || run.stepHeld || run.approvalWaiters.size > 0 || run.compacting) {
        run.abort.abort()
        run.compactAbort?.abort()
        this.#finish(sessionId, run, 'interrupted', null)
        return true
      }
      run.kernel?.send({ type: 'abort', step_id: run.stepId, run_id: run.started.run_id })
      const timer = setTimeout(() => this.#finish(sessionId, run, 'interrupted', null), INTERRUPT_GRACE_MS)
      await run.ended
      clearTimeout(timer)
    }
    return true
  }

  /** Drain: ends every run as interrupted; waiting inputs run after the next start. */
  stop(): void {
    this.#stopped = true
    for (const [sessionId, run] of this.#active) {
      run.kernel?.send({ type: 'abort', step_id: run.stepId, run_id: run.started.run_id })
      // A run that waited for a person fails, as after a crash: its request expires.
      const asked = run.elicitationWaiters.size > 0
      const waited = run.approvalWaiters.size > 0 || asked
      const detail = asked
        ? 'The daemon stopped while an MCP server waited for an answer; the request expired and the server got cancel'
        : waited
          ? 'The daemon stopped while a call waited for approval; the request expired and the call did not run'
          : 'The daemon stopped during the run'
      this.#finish(sessionId, run, waited ? 'failed' : 'interrupted', problemBody('daemon_restarted', detail))
    }
  }
}
