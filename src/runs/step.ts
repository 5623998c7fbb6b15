// One step of a run: its request on its way to the kernel, and what the kernel says while
// it runs. The request is assembled from the history as committed now (step/request.ts) with
// the tools the run offers and its estimate, sent as a `step` message, then recorded in the
// session's request log while the kernel opens the upstream request. When it would pass the compaction threshold, the session is
// first compacted inside the run (compactInRun), on the run's kernel and credential.
//
// What the kernel says during the step becomes the run's state and log events: the model's
// neutral events (output, tool calls, usage, the step's end), the checks and results of tool
// calls, output of running calls, and `step_ended`, the end of the provider stream. A message
// names its step (or, for tool calls, its run); one of a run that has ended or of another
// run is dropped.

import { v7 as uuidv7 } from 'uuid'
import { estimateRequest, type RequestEstimate } from '../context/estimate.ts'
import { recordRequest } from '../context/requests.ts'
import { type CompactionSettings, strategyOf } from '../context/summary.ts'
import type { FromKernel, ToKernel } from '../kernel/protocol.ts'
import { replaysReasoningText } from '../providers/registry.ts'
import type { EncryptedReasoningPart, NeutralEvent } from '../providers/types.ts'
import { type ProblemCode, problemBody } from '../schemas/problems.ts'
import type { SessionsCore } from '../sessions/core.ts'
import type { SessionRow } from '../sessions/types.ts'
import type { ActiveRun } from './active-run.ts'
import { compactSession } from './compaction/compact.ts'
import type { RunMoves, RunsDeps } from './deps.ts'
import { appendDelta, appendProgress, queueEvent, queueUsage } from './step/events.ts'
import { type AssembledRequest, buildRequest } from './step/request.ts'

export type StepRequest = AssembledRequest & { estimate: RequestEstimate }

/** The id step `n` of a run goes under: it says which run and which step it is. */
export function stepIdOf(runId: string, n: number): string {
  return `${runId}:step:${n}`
}

/** The step's request, as it would go now, with its estimate. */
export function assembleStep(core: SessionsCore, sessionId: string, run: ActiveRun): StepRequest {
  const a = buildRequest(core, sessionId, run.model, run.effort, {
    reasoningText: replaysReasoningText(run.profile?.extension),
    environment: run.environment,
  })
  a.request.tools = run.offered.map(({ name, description, parameters }) => ({
    name,
    description,
    parameters,
  }))
  return { ...a, estimate: estimateRequest(a.request, a.compaction !== null) }
}

/**
 * Starts the step: sends it to the run's kernel, then records its request (the kernel's
 * answers come in a later turn of the event loop, after the record is committed).
 */
export function sendAssembled(d: RunsDeps, sessionId: string, run: ActiveRun, a: StepRequest): void {
  run.step += 1
  run.stepId = stepIdOf(run.started.run_id, run.step)
  run.stepOpen = true
  run.earlyResults.clear()
  run.stepEnded = false
  const { workspace, allowedRoots, sandbox, skillsOff } = run.scope
  const context = {
    session_id: sessionId,
    workspace,
    allowed_roots: allowedRoots,
    sandbox,
    skills_off: skillsOff,
  }
  const message: ToKernel = {
    type: 'step',
    step_id: run.stepId,
    run_id: run.started.run_id,
    ...run.transport,
    request: a.request,
    tool_context: context,
  }
  // Prepared while the input's admission syncs (inputs/group-commit.ts); it leaves once the
  // input is durable, so the model is never asked about an input a power loss could take back.
  const settled = d.core.hub.settled()
  if (settled) {
    run.stepHeld = true
    void settled.then(() => {
      run.stepHeld = false
      if (!run.finished) run.kernel?.send(message)
    })
  } else run.kernel?.send(message)
  try {
    recordRequest(d.core, sessionId, {
      run_id: run.started.run_id,
      // The request log's public name for a step of a run.
      purpose: 'turn',
      step: run.step,
      provider_profile: run.profile?.name ?? run.started.provider_profile,
      extension: run.transport.extension,
      model: run.model,
      effort: run.effort,
      window_tokens: run.window,
      compaction_id: a.compaction,
      history: a.span,
      tools: run.offered.map((t) => t.name),
      estimate: a.estimate,
    })
  } catch (err) {
    // The log is a record of what was sent: a failed write never holds the step back.
    d.onError(err)
  }
}

/** Compacts the session inside its run, on the run's kernel and credential. */
export async function compactInRun(
  d: RunsDeps,
  sessionId: string,
  run: ActiveRun,
  row: SessionRow,
  settings: CompactionSettings,
  estimate: { instructions: number; tools: number },
): Promise<void> {
  const kernel = run.kernel
  if (!kernel) return
  const { strategy, keep_turns } = strategyOf(row, settings)
  run.compactAbort = new AbortController()
  try {
    await compactSession(
      d.core,
      sessionId,
      {
        strategy,
        // The run in flight is always kept (`keep_turns` counts exchanges: one a run).
        keep_turns: Math.max(1, keep_turns),
        trigger: 'auto',
        fixed_tokens: estimate.instructions + estimate.tools,
        window: run.window,
        still: (r) => r.run_id === run.started.run_id,
      },
      async () => ({
        kernel,
        transport: run.transport,
        run_id: run.started.run_id,
        provider_profile: run.profile?.name ?? run.started.provider_profile,
        signal: run.compactAbort?.signal,
      }),
    )
  } catch (err) {
    d.onError(err)
  }
}

export function onKernelMessage(m: RunMoves, sessionId: string, run: ActiveRun, msg: FromKernel): void {
  if (run.finished || !namesRun(run, msg)) return
  switch (msg.type) {
    case 'checked':
      // It comes after the step's last events, so the round usually waits for it already.
      if (run.checkWaiter) run.checkWaiter(msg.calls)
      else run.checked = msg.calls
      return
    case 'tool_progress':
      for (const c of msg.chunks)
        appendProgress(m.d, sessionId, run, { callId: msg.call_id, stream: c.stream, text: c.text })
      return
    case 'tool_result': {
      const { outcome, output, images, meta } = msg
      const waiter = run.resultWaiters.get(msg.call_id)
      // A read the kernel ran as the step ended waits here until the round comes to it.
      if (waiter) waiter({ outcome, output, images, meta })
      else if (msg.early) run.earlyResults.set(msg.call_id, { outcome, output, images, meta })
      return
    }
    case 'step_ended':
      onStepEnded(m, sessionId, run)
      return
    case 'events':
      for (const e of msg.events) onModelEvent(m, sessionId, run, e)
      return
    default:
      return
  }
}

/** A message of the run's step in flight (by step id), or of its tool calls (by run id). */
function namesRun(run: ActiveRun, msg: FromKernel): boolean {
  if ('step_id' in msg) return msg.step_id === run.stepId
  return 'run_id' in msg && msg.run_id === run.started.run_id
}

/** The provider stream closed: a step that ended with its `done` goes on (or has finished); one without failed. */
function onStepEnded(m: RunMoves, sessionId: string, run: ActiveRun): void {
  if (!run.stepEnded) {
    m.finish(sessionId, run, 'failed', problemBody('upstream_incomplete', 'The step ended without a result'))
    return
  }
  run.stepOpen = false
  if (run.stepWaiting) {
    run.stepWaiting = false
    m.sendStep(sessionId, run)
  }
}

function onModelEvent(m: RunMoves, sessionId: string, run: ActiveRun, e: NeutralEvent): void {
  if (run.finished) return
  switch (e.type) {
    case 'text_delta':
      onOutputDelta(m, sessionId, run, 'text', e.index, e.delta)
      return
    case 'reasoning_delta':
      onOutputDelta(m, sessionId, run, 'reasoning', e.index, e.delta)
      return
    case 'tool_call':
      run.tool_calls.push({ type: 'tool_call', id: e.id, name: e.name, arguments: e.arguments })
      // The model asks for a tool: the run's before snapshot is captured while the step ends.
      m.d.snapshots?.prepare(run.started.run_id, run.scope)
      return
    case 'encrypted_reasoning':
      keepEncryptedReasoning(run, e)
      return
    case 'usage':
      run.usage = e.usage
      queueUsage(run, e.usage)
      return
    case 'done':
      run.stepEnded = true
      run.cut = e.stop_reason === 'length' || e.stop_reason === 'content_filter' ? e.stop_reason : null
      if (run.tool_calls.length > 0) m.toolRound(sessionId, run)
      else m.finish(sessionId, run, 'completed', null)
      return
    case 'error':
      run.stepEnded = true
      if (e.code === 'aborted') m.finish(sessionId, run, 'interrupted', null)
      else m.finish(sessionId, run, 'failed', problemBody(e.code as ProblemCode, e.message))
      markAccount(m, run, e)
      return
    default:
      return
  }
}

/** A delta of a text or reasoning content; its first opens the content (output.started). */
function onOutputDelta(
  m: RunMoves,
  sessionId: string,
  run: ActiveRun,
  kind: 'text' | 'reasoning',
  index: number,
  delta: string,
): void {
  let c = run.live.contents.find((x) => x.kind === kind && x.index === index)
  if (!c) {
    c = { content_id: uuidv7(), run_id: run.started.run_id, kind, index, text: '', utf8_bytes: 0 }
    run.live.contents.push(c)
    queueEvent(m.d, sessionId, run, 'output.started', {
      run_id: c.run_id,
      content_id: c.content_id,
      kind,
      index,
    })
  }
  appendDelta(m.d, sessionId, run, c, delta)
}

/**
 * Reasoning the provider returns only encrypted is kept with the model that wrote it: it is
 * replayed to that model in later requests (finish.ts stores it with the answer).
 */
function keepEncryptedReasoning(
  run: ActiveRun,
  e: Extract<NeutralEvent, { type: 'encrypted_reasoning' }>,
): void {
  const { summary, encrypted_content } = e
  const part: EncryptedReasoningPart = {
    type: 'encrypted_reasoning',
    summary,
    encrypted_content,
    model: run.model,
  }
  run.encrypted.push({ index: e.index, part })
}

/** What a failed step says about its signed-in account: refused, or used up for a while. */
function markAccount(m: RunMoves, run: ActiveRun, e: Extract<NeutralEvent, { type: 'error' }>): void {
  const credentials = m.d.credentials
  if (!credentials || !run.accountId || !run.profile) return
  if (e.code === 'upstream_unauthorized' && e.status === 401)
    void credentials.unauthorized(run.profile, run.accountId).catch(m.d.onError)
  else if (e.code === 'upstream_rate_limited' && typeof e.limited_until_ms === 'number')
    void credentials.limited(run.profile, run.accountId, e.limited_until_ms, run.model).catch(m.d.onError)
}
