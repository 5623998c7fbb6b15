// Compaction, the durable part: which runs a compaction covers, the request that asks the
// model for their summary, and the commit that adds the `compaction` entry. Nothing is
// removed: the entries stay readable, and only later requests send the summary in their
// place (src/runs/step/request.ts). The model call and the session's hold are in
// src/runs/compaction/.
import { v7 as uuidv7 } from 'uuid'
import type { NeutralRequest } from '../providers/types.ts'
import type { Problem } from '../schemas/problems.ts'
import type { SessionsCore, Tx } from '../sessions/core.ts'
import { addEntries } from '../sessions/entries.ts'
import type { SessionRow } from '../sessions/types.ts'
import { CHARS_PER_TOKEN, historyEstimate, MESSAGE_FRAMING_TOKENS, tokensOf } from './estimate.ts'
import {
  type CompactionContent,
  type CompactionMark,
  type CompactionTrigger,
  compactionMessage,
  keptFrom,
  latestCompaction,
  type StrategyName,
} from './marks.ts'
import { renderNewest } from './render.ts'

export interface CompactionPlan {
  compaction_id: string
  strategy: StrategyName
  keep_turns: number
  trigger: CompactionTrigger
  previous: CompactionMark | null
  /** The entries compacted now are (after, through]. */
  after: number
  through: number
  /** Runs compacted now (their display groups before the kept ones). */
  runs: number
  /** Estimated tokens of the request before the compaction. */
  tokens_before: number
  /** Tokens of the request's fixed part (instructions and tools), for tokens_after. */
  fixed_tokens: number
}

/** What a compaction plan needs besides the session. */
export interface PlanInput {
  strategy: StrategyName
  keep_turns: number
  trigger: CompactionTrigger
  fixed_tokens: number
}

function summaryTokens(mark: Pick<CompactionContent, 'strategy' | 'text'> | null): number {
  return mark ? tokensOf(compactionMessage(mark).length) + MESSAGE_FRAMING_TOKENS : 0
}

/** The plan of a compaction now, or null when no run lies before the kept ones. */
export function planCompaction(core: SessionsCore, row: SessionRow, p: PlanInput): CompactionPlan | null {
  const previous = latestCompaction(core, row.id)
  const after = previous?.through_position ?? 0
  const keptAt = keptFrom(core, row.id, after, p.keep_turns, row.transcript_count + 1)
  if (keptAt === null || keptAt - 1 <= after) return null
  const through = keptAt - 1
  const history = historyEstimate(core, row.id, after)
  // The kept part holds exactly keep_turns runs (keptFrom counted them).
  const runs = history.turns - p.keep_turns
  if (runs <= 0) return null
  const tokens_before = p.fixed_tokens + summaryTokens(previous) + history.tokens
  return {
    compaction_id: uuidv7(),
    strategy: p.strategy,
    keep_turns: p.keep_turns,
    trigger: p.trigger,
    previous,
    after,
    through,
    runs,
    tokens_before,
    fixed_tokens: p.fixed_tokens,
  }
}

const SUMMARY_SYSTEM = `You write the summary that replaces the older part of a conversation between a user and an assistant that works with tools in the user's workspace. The assistant will continue the conversation from your summary and the most recent turns, without seeing the older turns again.

Keep everything the assistant needs to carry on: the user's goals, requests and preferences in their own terms; decisions made and why; facts learned about the workspace (files, commands, errors, results); work done and its state; open questions and what was about to happen next. Keep exact names, paths, identifiers and numbers. Leave out pleasantries and anything superseded. Write in plain prose and short lists, without a preamble.`

/** Characters of transcript a summary request may hold: half the window, or 400,000 when it is unknown. */
function transcriptBudget(window: number | null): number {
  return window ? Math.floor((window / 2) * CHARS_PER_TOKEN) : 400_000
}

/** The request asking the session's model to summarize the planned runs. */
export function summaryRequest(
  core: SessionsCore,
  sessionId: string,
  plan: CompactionPlan,
  model: string,
  window: number | null,
  focus: string | undefined,
): NeutralRequest {
  // The newest entries matter most to what comes next: the oldest go first when over budget.
  const budget = transcriptBudget(window) - (plan.previous?.text.length ?? 0)
  const { texts, omitted } = renderNewest(core, sessionId, plan.after, plan.through, budget)
  const left = omitted > 0 ? [`[${omitted} older entries left out: they did not fit one request]`] : []
  const parts = [
    plan.previous ? `<earlier_summary>\n${plan.previous.text}\n</earlier_summary>` : '',
    `<transcript>\n${[...left, ...texts].join('\n\n')}\n</transcript>`,
    `Write the summary of the conversation above${plan.previous ? ', the earlier summary included' : ''}.${focus ? `\n\nThe user asks the summary to focus on: ${focus}` : ''}`,
  ].filter((p) => p !== '')
  return {
    model,
    effort: null,
    system: SUMMARY_SYSTEM,
    messages: [{ role: 'user', content: [{ type: 'text', text: parts.join('\n\n') }] }],
    tools: [],
    session_id: sessionId,
    // Only the finished summary is used: a wire may answer it unstreamed.
    whole: true,
  }
}

/** The note a truncation leaves in place of the runs it leaves out. */
export function truncationNote(plan: CompactionPlan): string {
  const total = plan.runs + (plan.previous?.compacted_turns ?? 0)
  return `This conversation was compacted to fit the model's context window: its first ${total} turn(s) were left out of this request. Ask the user if something from them is needed.`
}

/**
 * Adds the compaction entry and its `compaction.ended` event in one transaction. `still`
 * says whether the session may still take it (idle, or the same run); a session deleted or
 * compacted meanwhile takes nothing. Returns the mark, or null when nothing was added.
 */
export function commitCompaction(
  core: SessionsCore,
  sessionId: string,
  plan: CompactionPlan,
  text: string,
  model: string | null,
  still: (row: SessionRow) => boolean,
): CompactionMark | null {
  return core.transact((tx) => {
    const row = core.row(sessionId)
    if (!row || !still(row)) return null
    if ((latestCompaction(core, sessionId)?.position ?? null) !== (plan.previous?.position ?? null))
      return null
    const compacted_turns = plan.runs + (plan.previous?.compacted_turns ?? 0)
    const content: CompactionContent = {
      compaction_id: plan.compaction_id,
      strategy: plan.strategy,
      trigger: plan.trigger,
      keep_turns: plan.keep_turns,
      through_position: plan.through,
      kept_from_position: plan.through + 1,
      compacted_turns,
      text,
      model,
      tokens_before: plan.tokens_before,
      tokens_after:
        plan.fixed_tokens +
        summaryTokens({ strategy: plan.strategy, text }) +
        historyEstimate(core, sessionId, plan.through).tokens,
    }
    const { grp } = core
      .sql('SELECT COALESCE(MAX(grp), 0) + 1 AS grp FROM entries WHERE session_id = ?')
      .get(sessionId) as { grp: number }
    const [entry] = addEntries(core, tx, sessionId, [
      { grp, kind: 'compaction', content: content as unknown as Record<string, unknown> },
    ])
    endedEvent(tx, sessionId, plan, 'completed', null, entry.position)
    return { ...content, position: entry.position, created_at: entry.created_at }
  })
}

export function startedEvent(core: SessionsCore, sessionId: string, plan: CompactionPlan): void {
  core.transact((tx) => {
    if (!core.row(sessionId)) return
    tx.append(sessionId, 'compaction.started', {
      compaction_id: plan.compaction_id,
      trigger: plan.trigger,
      strategy: plan.strategy,
      keep_turns: plan.keep_turns,
    })
  })
}

/** Records a compaction that ended without an entry (failed, or nothing to compact). */
export function endedWithout(
  core: SessionsCore,
  sessionId: string,
  plan: CompactionPlan,
  outcome: 'unchanged' | 'failed',
  problem: Problem | null,
): void {
  core.transact((tx) => {
    if (core.row(sessionId)) endedEvent(tx, sessionId, plan, outcome, problem, null)
  })
}

function endedEvent(
  tx: Tx,
  sessionId: string,
  plan: CompactionPlan,
  outcome: 'completed' | 'unchanged' | 'failed',
  problem: Problem | null,
  position: number | null,
): void {
  tx.append(sessionId, 'compaction.ended', {
    compaction_id: plan.compaction_id,
    trigger: plan.trigger,
    strategy: plan.strategy,
    outcome,
    problem,
    position,
  })
}
