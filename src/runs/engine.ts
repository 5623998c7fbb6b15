// The run engine: feeds each session's queue to its kernel, one run at a time, turns the
// kernel's neutral events into log events (batched per turn of the event loop), and
// commits each run's outcome. Every step is in the session log, so a stream shows a turn
// live and replays it after a reconnect.

import { v7 as uuidv7 } from 'uuid'
import type { Kernel, KernelPool } from '../kernel/pool.ts'
import type { FromKernel } from '../kernel/protocol.ts'
import { hasTransport } from '../providers/registry.ts'
import type {
  AssistantPart,
  EncryptedReasoningPart,
  NeutralEvent,
  NeutralUsage,
  TransportProfile,
} from '../providers/types.ts'
import { HearthError, type Problem, type ProblemCode, problemBody } from '../schemas/problems.ts'
import type { SessionsCore } from '../sessions/core.ts'
import type { LiveContent, LiveRun } from '../sessions/live.ts'
import type { Profiles, ResolvedProfile } from '../settings/profiles.ts'
import { finishRun, type RunOutcome } from './finish.ts'
import { buildRequest } from './request.ts'
import { type StartedRun, startRun } from './start.ts'

/** How long an interrupt waits for the kernel to confirm before the run is ended anyway. */
const INTERRUPT_GRACE_MS = 3000

export interface RunsDeps {
  core: SessionsCore
  kernels: KernelPool
  profiles: Profiles
  onError: (err: unknown) => void
  /** The credential of a turn for profiles that sign in (absent: the profile's own key). */
  credentials?: TurnCredentials
}

/** Signed-in accounts as runs use them (src/auth/turns.ts). */
export interface TurnCredentials {
  /** The transport profile carrying this turn's credential; rejects with a HearthError. */
  forTurn(
    sessionId: string,
    profile: ResolvedProfile,
    signal: AbortSignal,
  ): Promise<{ transport: TransportProfile; accountId: string | null }>
  /** The provider answered 401 to this account's credential. */
  unauthorized(profile: ResolvedProfile, accountId: string): Promise<void>
  /** The provider said this account is used up until `untilMs` (epoch ms): the pool puts it last. */
  limited(profile: ResolvedProfile, accountId: string, untilMs: number): Promise<void>
}

class ActiveRun {
  readonly started: StartedRun
  readonly live: LiveRun
  readonly startedMs: number
  kernel: Kernel | undefined
  tool_calls: AssistantPart[] = []
  /** Encrypted reasoning items, by output index, kept with the answer for replay. */
  encrypted: { index: number; part: EncryptedReasoningPart }[] = []
  /** The model the turn went to (the session's resolved model). */
  model = ''
  usage: NeutralUsage | null = null
  /** Log events waiting for the next batch commit. */
  queue: { kind: string; payload: Record<string, unknown> }[] = []
  flushScheduled = false
  /** The turn went to the kernel (an interrupt before that needs no kernel's answer). */
  sent = false
  finished = false
  /** Aborts getting the turn's credential (a token refresh) when the run is interrupted. */
  readonly abort = new AbortController()
  profile: ResolvedProfile | undefined
  /** The signed-in account whose credential the turn uses, if any. */
  accountId: string | null = null
  readonly ended: Promise<void>
  resolveEnded!: () => void

  constructor(started: StartedRun, live: LiveRun) {
    this.started = started
    this.live = live
    this.startedMs = Date.now()
    this.ended = new Promise((resolve) => {
      this.resolveEnded = resolve
    })
  }
}

export class Runs {
  readonly #d: RunsDeps
  readonly #active = new Map<string, ActiveRun>()
  #stopped = false

  constructor(d: RunsDeps) {
    this.#d = d
    d.core.live.kernelOf = (sessionId) => {
      const k = d.kernels.info(sessionId)
      return { instance_id: k.instance_id, state: k.state, build: k.build }
    }
  }

  active(sessionId: string): { run_id: string; input_ids: string[] } | undefined {
    return this.#active.get(sessionId)?.started
  }

  /** Starts the next run of a session if it is free and inputs wait. */
  kick(sessionId: string): void {
    if (this.#stopped || this.#active.has(sessionId)) return
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
    const request = buildRequest(core, sessionId, model, started.effort ?? profile.effort)
    run.profile = profile
    const credential = this.#d.credentials
      ? this.#d.credentials.forTurn(sessionId, profile, run.abort.signal)
      : Promise.resolve({ transport: profile.transport, accountId: null })
    void Promise.all([kernel.ready, credential]).then(
      ([, c]) => {
        if (run.finished) return
        run.sent = true
        run.accountId = c.accountId
        live.kernel.build = kernel.build
        kernel.send({
          type: 'turn',
          run_id: started.run_id,
          extension: profile.extension,
          profile: { ...c.transport, model },
          request,
          limits: profile.limits,
        })
      },
      (err: unknown) => {
        if (run.abort.signal.aborted) return this.#finish(sessionId, run, 'interrupted', null)
        const code = err instanceof HearthError ? err.code : 'no_usable_account'
        this.#finish(sessionId, run, 'failed', problemBody(code, (err as Error).message))
      },
    )
  }

  #onKernel(sessionId: string, run: ActiveRun, msg: FromKernel): void {
    if (run.finished || !('run_id' in msg) || msg.run_id !== run.started.run_id) return
    if (msg.type === 'turn_ended') {
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
        return
      case 'done':
        this.#finish(sessionId, run, 'completed', null)
        return
      case 'error':
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
      void credentials.limited(run.profile, run.accountId, e.limited_until_ms).catch(this.#d.onError)
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

  #queue(sessionId: string, run: ActiveRun, kind: string, payload: Record<string, unknown>): void {
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
    if (run.kernel?.alive) this.#d.kernels.release(sessionId)
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
      if (!run.sent) {
        run.abort.abort()
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
      this.#finish(
        sessionId,
        run,
        'interrupted',
        problemBody('daemon_restarted', 'The daemon stopped during the run'),
      )
    }
  }
}
