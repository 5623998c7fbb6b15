// A step's request on its way to the kernel: assembled from the history as committed now
// (request.ts) with the tools the run offers and its estimate, recorded in the session's
// request log, then sent. When it would pass the compaction threshold, the session is first
// compacted inside the run (compactInRun), on the run's kernel and credential.
import { estimateRequest, type RequestEstimate } from '../context/estimate.ts'
import { recordRequest, recordUsage } from '../context/requests.ts'
import { type CompactionSettings, strategyOf } from '../context/summary.ts'
import { replaysReasoningText } from '../providers/registry.ts'
import type { NeutralUsage } from '../providers/types.ts'
import type { SessionsCore } from '../sessions/core.ts'
import type { SessionRow } from '../sessions/types.ts'
import type { ActiveRun } from './active-run.ts'
import { compactSession } from './compaction.ts'
import type { RunsDeps } from './deps.ts'
import { type AssembledRequest, buildRequest } from './request.ts'

export type StepRequest = AssembledRequest & { estimate: RequestEstimate }

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

/** Starts the step: records its request, then sends it to the run's kernel. */
export function sendAssembled(d: RunsDeps, sessionId: string, run: ActiveRun, a: StepRequest): void {
  run.step += 1
  run.turnOpen = true
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
  try {
    recordRequest(d.core, sessionId, {
      run_id: run.started.run_id,
      purpose: 'turn',
      step: run.step,
      provider_profile: run.profile?.name ?? run.started.provider_profile,
      extension: run.turn.extension,
      model: run.model,
      effort: run.effort,
      window_tokens: run.window,
      compaction_id: a.compaction,
      history: a.span,
      tools: run.offered.map((t) => t.name),
      estimate: a.estimate,
    })
  } catch (err) {
    // The log is a record of what was sent: a failed write never holds the turn back.
    d.onError(err)
  }
  run.kernel?.send({
    type: 'turn',
    run_id: run.started.run_id,
    ...run.turn,
    request: a.request,
    tool_context: context,
  })
}

/** The provider's usage of a step, added to that step's record in the request log. */
export function noteUsage(
  core: SessionsCore,
  sessionId: string,
  runId: string,
  step: number,
  usage: NeutralUsage,
  onError: (err: unknown) => void,
): void {
  try {
    recordUsage(core, sessionId, runId, step, usage)
  } catch (err) {
    onError(err)
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
        // The turn that runs now is always kept.
        keep_turns: Math.max(1, keep_turns),
        trigger: 'auto',
        fixed_tokens: estimate.instructions + estimate.tools,
        window: run.window,
        still: (r) => r.run_id === run.started.run_id,
      },
      async () => ({
        kernel,
        turn: run.turn,
        run_id: run.started.run_id,
        provider_profile: run.profile?.name ?? run.started.provider_profile,
        signal: run.compactAbort?.signal,
      }),
    )
  } catch (err) {
    d.onError(err)
  }
}
