// session/prompt: the prompt becomes a message input (a fresh id, retried with the same id
// while the answer is uncertain, so it is never sent twice); the run that takes it is
// captured from the session's live events and followed to its end (its approvals are asked
// of the editor as every run's are, live.ts); the run's outcome is the stop reason. session/cancel interrupts the captured
// run (or cancels the input while it waits). A prompt sent while a run is going waits in
// hearth's queue like any second message; its response comes when its own run ends.
import {
  type CancelNotification,
  type PromptRequest,
  type PromptResponse,
  RequestError,
  type StopReason,
} from '@agentclientprotocol/sdk'
import { v7 as uuidv7 } from 'uuid'
import { ClientError, ProblemError } from '../client/client.ts'
import { expandSlashCommand } from './commands.ts'
import type { AcpContext } from './context.ts'
import { ensureEditorServers } from './mcp-servers.ts'
import { type MessageInput, messageOf } from './prompt-input.ts'
import type { SessionEvent } from './updates.ts'

/** Pauses before retrying an input PUT whose answer did not arrive (a daemon restarting). */
const RETRY_DELAYS_MS = [200, 500, 1000, 2000, 4000]

/** Problem codes that mean "sign in", answered as ACP's auth_required. */
const AUTH_CODES = new Set([
  'signed_out',
  'no_usable_account',
  'credentials_not_found',
  'credentials_unusable',
  'upstream_unauthorized',
  'provider_not_configured',
])

interface Problem {
  code: string
  title?: string
  detail?: string
}

/**
 * The run's outcome as a stop reason, or the error a failed run answers. `cut` is how the
 * model cut its last answer short (the answer's `stop_reason`), if it did.
 */
export function stopReasonOf(
  outcome: string,
  problem: Problem | null,
  cut?: string,
): StopReason | RequestError {
  if (outcome === 'completed')
    return cut === 'length' ? 'max_tokens' : cut === 'content_filter' ? 'refusal' : 'end_turn'
  if (outcome === 'interrupted' && problem?.code !== 'daemon_restarted') return 'cancelled'
  if (problem?.code === 'step_limit_reached') return 'max_turn_requests'
  if (problem?.code === 'upstream_blocked') return 'refusal'
  return problemError(problem)
}

/** A failed run as a JSON-RPC error: the problem's code and text, the problem as data. */
export function problemError(problem: Problem | null): RequestError {
  const p = problem ?? { code: 'run_failed', title: 'The run failed' }
  const text = `${p.code}: ${p.detail ?? p.title ?? 'the run failed'}`
  return new RequestError(AUTH_CODES.has(p.code) ? -32000 : -32603, text, p)
}

/**
 * A daemon problem answered to a request (a refused input, an unknown session), and a
 * daemon that does not answer said in the client's words (how to start one).
 */
export function requestErrorOf(err: unknown, sessionId: string): unknown {
  if (err instanceof ClientError) return new RequestError(-32603, err.message)
  if (!(err instanceof ProblemError)) return err
  if (err.code === 'session_not_found' || err.code === 'session_deleted')
    return RequestError.sessionNotFound(sessionId)
  return new RequestError(err.status < 500 ? -32602 : -32603, err.message, err.problem)
}

/** One prompt in flight: its input and the run that took it. */
class PromptTurn {
  readonly inputId = uuidv7()
  runId: string | undefined
  /** The run's answer's `stop_reason`: how the model cut it short, if it did. */
  cut: string | undefined
  submitted = false
  cancelRequested = false
  readonly ended: Promise<{ outcome: string; problem: Problem | null }>
  end!: (r: { outcome: string; problem: Problem | null }) => void
  fail!: (err: unknown) => void

  readonly ctx: AcpContext
  readonly sessionId: string

  constructor(ctx: AcpContext, sessionId: string) {
    this.ctx = ctx
    this.sessionId = sessionId
    this.ended = new Promise((resolve, reject) => {
      this.end = resolve
      this.fail = reject
    })
  }

  onEvent(e: SessionEvent): void {
    const p = e.payload
    switch (e.kind) {
      case 'run.started':
        if (this.runId === undefined && (p.input_ids as string[]).includes(this.inputId)) {
          this.runId = p.run_id
          if (this.cancelRequested) void this.cancel()
        }
        return
      case 'entry.added':
        if (p.entry?.kind === 'assistant' && p.entry.content?.run_id === this.runId)
          this.cut = p.entry.content.stop_reason
        return
      case 'input.cancelled':
        if (p.input_id === this.inputId) this.end({ outcome: 'interrupted', problem: null })
        return
      case 'run.ended':
        if (p.run_id !== this.runId) return
        this.end({ outcome: p.outcome, problem: p.problem })
        return
      case 'follow.ended':
        this.fail(RequestError.sessionNotFound(this.sessionId))
        return
    }
  }

  async submit(input: MessageInput): Promise<void> {
    const body = {
      kind: 'message' as const,
      text: input.text,
      ...(input.images.length > 0 ? { images: input.images } : {}),
      client_id: `acp-${process.pid}`,
    }
    for (let attempt = 0; ; attempt++) {
      try {
        await this.ctx.client.call('inputs.put', {
          params: { session_id: this.sessionId, input_id: this.inputId },
          body,
        })
        break
      } catch (err) {
        // A problem is an answer; only a lost connection leaves the outcome unknown.
        if (err instanceof ProblemError || attempt >= RETRY_DELAYS_MS.length) throw err
        await new Promise((r) => setTimeout(r, RETRY_DELAYS_MS[attempt]))
      }
    }
    this.submitted = true
    if (this.cancelRequested) await this.cancel()
  }

  /** Interrupts the captured run, or cancels the input while it waits. */
  async cancel(): Promise<void> {
    this.cancelRequested = true
    if (!this.submitted) return // cancelled once the input is in
    try {
      const client = this.ctx.client
      if (this.runId !== undefined) {
        const { body } = await client.call('sessions.get', {
          params: { session_id: this.sessionId },
          query: { tail: 0 },
        })
        await client.call('sessions.interrupt', {
          params: { session_id: this.sessionId },
          body: { run_id: this.runId, through_input_order: (body as { input_order: number }).input_order },
        })
      } else {
        await client.call('inputs.cancel', {
          params: { session_id: this.sessionId, input_id: this.inputId },
          body: {},
        })
      }
    } catch (err) {
      // 409: the run ended or the input was taken meanwhile (run.started interrupts it then).
      if (!(err instanceof ProblemError && err.status === 409))
        this.ctx.log(`hearth acp: could not cancel: ${(err as Error).message}`)
    }
  }
}

/** The prompts in flight, per connection and session (session/cancel stops them). */
const inFlight = new WeakMap<AcpContext, Map<string, Set<PromptTurn>>>()

function turnsOf(ctx: AcpContext, sessionId: string): Set<PromptTurn> {
  const bySession = inFlight.get(ctx) ?? new Map<string, Set<PromptTurn>>()
  inFlight.set(ctx, bySession)
  const turns = bySession.get(sessionId) ?? new Set<PromptTurn>()
  bySession.set(sessionId, turns)
  return turns
}

/** Refuses images when the session's model is known not to take them. */
async function checkImages(ctx: AcpContext, sessionId: string, input: MessageInput): Promise<void> {
  if (input.images.length === 0) return
  const { body } = await ctx.client.call('sessions.get', {
    params: { session_id: sessionId },
    query: { tail: 0 },
  })
  const s = body as { provider_profile: string | null; model: string | null }
  if (!s.model || !s.provider_profile) return
  try {
    const { body: catalogue } = await ctx.client.call('models.get', {
      query: { provider_profile: s.provider_profile, model: s.model },
    })
    const models = (catalogue as { items?: { id: string; image_input: boolean | null }[] }).items ?? []
    if (models.some((m) => m.id === s.model && m.image_input === false))
      throw RequestError.invalidParams({ model: s.model }, `the model ${s.model} does not take images`)
  } catch (err) {
    if (err instanceof RequestError) throw err
    // the catalogue does not know: the provider decides
  }
}

export async function prompt(
  ctx: AcpContext,
  params: PromptRequest,
  signal: AbortSignal,
): Promise<PromptResponse> {
  const { sessionId } = params
  const input = messageOf(params.prompt)
  try {
    await ctx.live.follow(sessionId)
    await checkImages(ctx, sessionId, input)
    input.text = await expandSlashCommand(ctx.client, sessionId, input.text)
    await ensureEditorServers(ctx, sessionId)
  } catch (err) {
    throw requestErrorOf(err, sessionId)
  }
  const turn = new PromptTurn(ctx, sessionId)
  const turns = turnsOf(ctx, sessionId)
  turns.add(turn)
  ctx.live.own(sessionId, turn.inputId)
  const unwatch = ctx.live.watch(sessionId, (e) => turn.onEvent(e))
  // $/cancel_request of this prompt is a cancel; a connection that closed is not.
  const onAbort = () => {
    if ((signal.reason as RequestError | undefined)?.code === -32800) void turn.cancel()
  }
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    await turn.submit(input).catch((err) => {
      throw requestErrorOf(err, sessionId)
    })
    const { outcome, problem } = await turn.ended
    await ctx.live.flushed() // every update of the run goes before the response
    const stop = stopReasonOf(outcome, problem, turn.cut)
    if (stop instanceof RequestError) throw stop
    return { stopReason: stop }
  } finally {
    signal.removeEventListener('abort', onAbort)
    unwatch()
    turns.delete(turn)
  }
}

export async function cancelPrompt(ctx: AcpContext, params: CancelNotification): Promise<void> {
  const turns = inFlight.get(ctx)?.get(params.sessionId)
  if (!turns) return
  await Promise.all([...turns].map((t) => t.cancel()))
}
