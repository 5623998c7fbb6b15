// Ending a run: what it produced becomes history entries, its inputs take their final
// delivery, and the session goes back to idle (or queued when more inputs wait), all in
// one transaction.
import { waitingCount } from '../inputs/rows.ts'
import { cacheUsage } from '../models/cache-policy.ts'
import type { AssistantPart, NeutralUsage } from '../providers/types.ts'
import type { CachePolicy } from '../schemas/models.ts'
import type { Problem } from '../schemas/problems.ts'
import type { SessionsCore, Tx } from '../sessions/core.ts'
import { expireElicitations } from '../sessions/elicitations.ts'
import { type HistoryEntry, toHistoryEntry } from '../sessions/entries.ts'
import type { LiveContent } from '../sessions/live.ts'
import { indexSession } from '../sessions/search.ts'
import { nameFromExchange, previewOf } from '../sessions/summary-text.ts'
import { closeOpenCalls } from './step/entries.ts'

export type RunOutcome = 'completed' | 'interrupted' | 'failed'

export interface RunResult {
  outcome: RunOutcome
  problem: Problem | null
  contents: LiveContent[]
  tool_calls: AssistantPart[]
  /** Provider state replayed ahead of the answer in later requests (encrypted reasoning). */
  replay: AssistantPart[]
  usage: NeutralUsage | null
  model: string
  elapsed_ms: number
  /** The prompt-cache policy of the run's extension and host (usage's cache fields). */
  cache?: CachePolicy | null
  /** How the model cut its last answer short (its output limit, a refusal), if it did. */
  cut?: 'length' | 'content_filter' | null
}

const STATUS: Record<RunOutcome, string> = {
  completed: 'complete',
  interrupted: 'interrupted',
  failed: 'failed',
}

function usageOf(r: RunResult, at: string) {
  if (!r.usage) return null
  const seconds = r.elapsed_ms / 1000
  const completion = r.usage.completion_tokens
  return {
    model: r.model,
    observed_at: at,
    ...r.usage,
    elapsed_ms: r.elapsed_ms,
    tokens_per_second:
      completion !== null && seconds > 0 ? Math.round((completion / seconds) * 10) / 10 : null,
    ...cacheUsage(r.cache ?? null, r.usage, Date.parse(at)),
  }
}

/** Why the run's open calls (if any) got no result of their own. */
function unfinishedReason(r: RunResult) {
  if (r.problem?.code === 'daemon_restarted') return 'restarted' as const
  if (r.problem?.code === 'step_limit_reached') return 'step_limit' as const
  return r.outcome === 'interrupted' ? ('interrupted' as const) : ('failed' as const)
}

/**
 * Ends the run in one transaction. `first` adds what the run still holds (its queued
 * events) ahead of the end, in the same commit.
 */
export function finishRun(
  core: SessionsCore,
  sessionId: string,
  runId: string,
  r: RunResult,
  first: (tx: Tx) => void = () => {},
): void {
  core.transact((tx) => {
    const before = core.row(sessionId)
    if (!before) return // deleted meanwhile
    first(tx)
    if (before.run_id !== runId) return // already ended
    closeOpenCalls(core, tx, sessionId, runId, unfinishedReason(r))
    // An approval still waiting is moot now: nothing runs without a decision.
    core
      .sql("UPDATE approvals SET state = 'expired', decided_at = ? WHERE run_id = ? AND state = 'pending'")
      .run(tx.at, runId)
    // So is a server's question: the server got `cancel` (engine.ts) or went with its kernel.
    expireElicitations(core, tx, sessionId, runId, { reason: 'run_ended' })
    const s = core.row(sessionId) as NonNullable<typeof before>
    const { grp } = core.sql('SELECT grp FROM runs WHERE id = ?').get(runId) as { grp: number }
    let position = s.transcript_count
    const added: HistoryEntry[] = []
    const add = (kind: string, content: Record<string, unknown>) => {
      position += 1
      const row = { position, grp, kind, created_at: tx.at, content: JSON.stringify(content) }
      core
        .sql(
          'INSERT INTO entries (session_id, position, grp, kind, created_at, content) VALUES (?, ?, ?, ?, ?, ?)',
        )
        .run(sessionId, position, grp, kind, tx.at, row.content)
      added.push(toHistoryEntry(row))
    }
    const status = STATUS[r.outcome]
    const ordered = [...r.contents].sort((a, b) => a.index - b.index)
    for (const c of ordered.filter((c) => c.kind === 'reasoning'))
      add('reasoning', { text: c.text, status, run_id: runId })
    const texts = ordered.filter((c) => c.kind === 'text')
    const answer = texts.map((c) => c.text).join('')
    // An answer cut short is recorded even when empty (a refusal), so that clients can say why.
    if (answer !== '' || r.tool_calls.length > 0 || r.cut) {
      const replay = r.replay.length > 0 ? { replay: r.replay } : {}
      const cut = r.cut ? { stop_reason: r.cut } : {}
      add('assistant', { text: answer, status, run_id: runId, tool_calls: r.tool_calls, ...replay, ...cut })
    }
    if (r.problem) add('error', { problem: r.problem, run_id: runId })
    // `inputs.turn` holds the id of the run that took the input.
    core
      .sql("UPDATE inputs SET delivery = ?, decided_ms = ? WHERE turn = ? AND delivery = 'running'")
      .run(r.outcome, tx.now, runId)
    core
      .sql('UPDATE runs SET ended_at = ?, outcome = ?, problem = ? WHERE id = ?')
      .run(tx.at, r.outcome, r.problem ? JSON.stringify(r.problem) : null, runId)
    const waiting = { n: waitingCount(core, sessionId) }
    const usage = usageOf(r, tx.at)
    const latest = {
      run_id: runId,
      outcome: r.outcome,
      text: answer.slice(0, 256),
      transcript_position:
        answer !== '' ? (added.find((e) => e.kind === 'assistant')?.position ?? null) : null,
      completed_at: tx.at,
    }
    const preview =
      answer !== '' ? previewOf(answer) : { text: s.preview_text, truncated: s.preview_truncated === 1 }
    core
      .sql(
        `UPDATE sessions SET phase = ?, run_id = NULL, interrupt_requested = 0, blocking_reason = NULL, transcript_count = ?,
           preview_text = ?, preview_truncated = ?, latest_answer = ?, usage = COALESCE(?, usage),
           activity_ms = ? WHERE id = ?`,
      )
      .run(
        waiting.n > 0 ? 'queued' : 'idle',
        position,
        preview.text,
        Number(preview.truncated),
        JSON.stringify(latest),
        usage ? JSON.stringify(usage) : null,
        tx.now,
        sessionId,
      )
    // A session named already (every used one) keeps its name: nothing to compute.
    if (s.automatic_name === '') nameFromExchange(core, sessionId, answer)
    indexSession(core, s)
    for (const entry of added) tx.append(sessionId, 'entry.added', { entry })
    tx.append(sessionId, 'run.ended', { run_id: runId, outcome: r.outcome, problem: r.problem, usage })
    tx.changed({ session_id: sessionId, reason: 'changed', before, after: core.row(sessionId) })
  })
}
