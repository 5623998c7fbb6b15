// POST /sessions/{id}/compaction without HTTP: the strategy the request chooses (kept by the
// session for its later compactions, automatic ones included), then the compaction itself.
// The two are reported apart: a choice can be committed although the compaction fails.
import { tokensOf, toolsText } from '../../context/estimate.ts'
import type { StrategyName } from '../../context/marks.ts'
import { type CompactionSettings, policyOf, strategyOf } from '../../context/summary.ts'
import type { Kernel } from '../../kernel/pool.ts'
import { hasTransport } from '../../providers/registry.ts'
import { HearthError, type Problem, problemBody } from '../../schemas/problems.ts'
import { selectionOf } from '../../sessions/views.ts'
import { DEFAULT_TOOL_SETTINGS } from '../active-run.ts'
import type { Runs } from '../engine.ts'
import { nextEnvironment } from '../launch.ts'
import { compactSession } from './compact.ts'

export interface CompactRequest {
  strategy?: StrategyName
  keep_turns?: number
  /** What the summary should keep in particular (summarize only). */
  focus?: string
}

export interface CompactResult {
  selection: {
    outcome: 'selected' | 'unchanged' | 'rejected'
    strategy: StrategyName
    keep_turns: number
    source: 'request' | 'session' | 'settings'
    problem: Problem | null
  }
  compaction: {
    outcome: 'completed' | 'unchanged' | 'failed' | 'not_run'
    compaction_id: string | null
    problem: Problem | null
    entry: {
      position: number
      created_at: string
      through_position: number
      kept_from_position: number
      compacted_turns: number
      tokens_before: number
      tokens_after: number
      model: string | null
    } | null
  }
}

const NO_AUTO: CompactionSettings = {
  auto: false,
  threshold_percent: 100,
  strategy: 'summarize',
  keep_turns: 2,
}

/** Whether a request estimated at `total` tokens should be compacted before it is sent. */
export function autoCompactionDue(s: CompactionSettings, window: number | null, total: number): boolean {
  return s.auto && window !== null && total > (window * s.threshold_percent) / 100
}

export async function manualCompaction(
  runs: Runs,
  sessionId: string,
  body: CompactRequest,
): Promise<CompactResult> {
  const d = runs.deps
  const settings = d.compaction?.() ?? NO_AUTO
  const row = d.core.require(sessionId)
  const current = strategyOf(row, settings)
  const chosen = body.strategy !== undefined || body.keep_turns !== undefined
  const strategy = body.strategy ?? current.strategy
  const keep_turns = body.keep_turns ?? current.keep_turns
  const profile = d.profiles.resolve(row.provider_profile)
  let unusable: Problem | null = null
  if (strategy === 'summarize' && !profile)
    unusable = problemBody(
      'provider_not_configured',
      `Profile "${row.provider_profile}" is not configured: the session has no model to summarize with`,
    )
  else if (strategy === 'summarize' && profile && !hasTransport(profile.extension))
    unusable = problemBody('provider_unsupported', `hearth cannot talk to ${profile.extension} yet`)
  const selection: CompactResult['selection'] = {
    outcome: 'unchanged',
    strategy,
    keep_turns,
    source: chosen ? 'request' : current.chosen ? 'session' : 'settings',
    problem: null,
  }
  const notRun = { outcome: 'not_run' as const, compaction_id: null, problem: null, entry: null }
  if (chosen && unusable)
    return { selection: { ...selection, outcome: 'rejected', problem: unusable }, compaction: notRun }
  if (chosen && (strategy !== current.strategy || keep_turns !== current.keep_turns || !current.chosen)) {
    d.core.transact(() => {
      d.core
        .sql('UPDATE sessions SET compaction_strategy = ? WHERE id = ?')
        .run(JSON.stringify({ strategy, keep_turns }), sessionId)
    })
    selection.outcome = 'selected'
  }
  const window = d.window ? await d.window(row) : null
  const composed = d.core.instructions.of(
    row.workspace,
    selectionOf(row),
    await nextEnvironment(d, sessionId),
  )
  const policy = policyOf(row, d.tools?.().approval_policy ?? DEFAULT_TOOL_SETTINGS.approval_policy)
  const tools = runs.tools.offered(sessionId, policy, await runs.tools.builtin())
  let kernel: Kernel | undefined
  try {
    const outcome = await compactSession(
      d.core,
      sessionId,
      {
        strategy,
        keep_turns,
        trigger: 'manual',
        fixed_tokens: tokensOf(composed.system?.length ?? 0) + tokensOf(toolsText(tools).length),
        window,
        focus: body.focus,
        still: (r) => r.run_id === null,
      },
      async () => {
        if (unusable || !profile) throw new HearthError(unusable?.code as never, unusable?.detail)
        kernel = d.kernels.acquire(sessionId)
        kernel.state = 'running'
        await kernel.ready
        const abort = new AbortController()
        const model = row.model || profile.transport.model
        const c = d.credentials
          ? await d.credentials.forRun(sessionId, profile, abort.signal, model)
          : { transport: profile.transport, accountId: null }
        return {
          kernel,
          transport: {
            extension: profile.extension,
            profile: { ...c.transport, model },
            limits: profile.limits,
          },
          run_id: null,
          provider_profile: profile.name,
        }
      },
    )
    if (outcome.outcome === 'unchanged') return { selection, compaction: { ...notRun, outcome: 'unchanged' } }
    if (outcome.outcome === 'failed')
      return {
        selection,
        compaction: {
          outcome: 'failed',
          compaction_id: outcome.plan.compaction_id,
          problem: outcome.problem,
          entry: null,
        },
      }
    const m = outcome.mark
    return {
      selection,
      compaction: {
        outcome: 'completed',
        compaction_id: m.compaction_id,
        problem: null,
        entry: {
          position: m.position,
          created_at: m.created_at,
          through_position: m.through_position,
          kept_from_position: m.kept_from_position,
          compacted_turns: m.compacted_turns,
          tokens_before: m.tokens_before,
          tokens_after: m.tokens_after,
          model: m.model,
        },
      },
    }
  } finally {
    if (kernel?.alive) d.kernels.release(sessionId)
  }
}
