// Running a compaction: the strategy's text (a truncation note, or the session's model
// summarizing the older exchanges through the session's kernel), then the commit. A manual
// compaction (POST /sessions/{id}/compaction) holds an idle session so no run starts under
// it; an automatic one runs inside a run, before a step whose request would overflow the
// model's window, on that run's kernel and credential.
import {
  type CompactionPlan,
  commitCompaction,
  endedWithout,
  planCompaction,
  startedEvent,
  summaryRequest,
  truncationNote,
} from '../../context/compact.ts'
import { estimateRequest } from '../../context/estimate.ts'
import type { CompactionMark, CompactionTrigger, StrategyName } from '../../context/marks.ts'
import { recordRequest } from '../../context/requests.ts'
import type { Kernel } from '../../kernel/pool.ts'
import type { StepTransport } from '../../kernel/protocol.ts'
import { HearthError, type Problem, problemBody } from '../../schemas/problems.ts'
import type { SessionsCore } from '../../sessions/core.ts'
import type { SessionRow } from '../../sessions/types.ts'
import { callModel } from './summary-step.ts'

/** How a compaction reaches the model (summarize only): its summary is a step outside any run. */
export interface SummaryStep {
  kernel: Kernel
  transport: StepTransport
  run_id: string | null
  provider_profile: string
  signal?: AbortSignal
}

export interface CompactionJob {
  strategy: StrategyName
  keep_turns: number
  trigger: CompactionTrigger
  /** Estimated tokens of the request's instructions and tools. */
  fixed_tokens: number
  window: number | null
  focus?: string
  /** Whether the session may still take the compaction when it commits. */
  still: (row: SessionRow) => boolean
}

export type CompactionOutcome =
  | { outcome: 'completed'; mark: CompactionMark; plan: CompactionPlan }
  | { outcome: 'unchanged'; plan: null }
  | { outcome: 'failed'; problem: Problem; plan: CompactionPlan }

/** Plans, runs and commits one compaction; never throws for a failed model call. */
export async function compactSession(
  core: SessionsCore,
  sessionId: string,
  job: CompactionJob,
  summary: () => Promise<SummaryStep>,
): Promise<CompactionOutcome> {
  const row = core.require(sessionId)
  const plan = planCompaction(core, row, job)
  if (!plan) return { outcome: 'unchanged', plan: null }
  startedEvent(core, sessionId, plan)
  try {
    const text =
      job.strategy === 'truncate'
        ? truncationNote(plan)
        : await summarize(core, sessionId, plan, job, summary)
    const model = job.strategy === 'summarize' ? row.model : null
    const mark = commitCompaction(core, sessionId, plan, text, model, job.still)
    if (!mark) throw new HearthError('compaction_failed', 'The session changed while it was being compacted')
    return { outcome: 'completed', mark, plan }
  } catch (err) {
    const problem =
      err instanceof HearthError
        ? problemBody(err.code, err.message)
        : problemBody('compaction_failed', String(err))
    endedWithout(core, sessionId, plan, 'failed', problem)
    return { outcome: 'failed', problem, plan }
  }
}

async function summarize(
  core: SessionsCore,
  sessionId: string,
  plan: CompactionPlan,
  job: CompactionJob,
  summary: () => Promise<SummaryStep>,
): Promise<string> {
  const t = await summary()
  const request = summaryRequest(core, sessionId, plan, t.transport.profile.model, job.window, job.focus)
  recordRequest(core, sessionId, {
    run_id: t.run_id,
    purpose: 'compaction',
    step: null,
    provider_profile: t.provider_profile,
    extension: t.transport.extension,
    model: request.model,
    effort: null,
    window_tokens: job.window,
    compaction_id: plan.compaction_id,
    history: { from_position: plan.after + 1, to_position: plan.through, messages: 1 },
    tools: [],
    estimate: estimateRequest(request, false),
  })
  const answer = await callModel(t.kernel, t.transport, request, `compaction:${plan.compaction_id}`, t.signal)
  const text = answer.text.trim()
  if (text === '')
    throw new HearthError('compaction_failed', 'The model answered the summary request with no text')
  return text
}
