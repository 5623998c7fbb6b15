// Where a session's history was compacted. A compaction is a history entry of kind
// `compaction` whose content holds the summary (or the truncation note) and the positions it
// covers: entries up to `through` are what it replaces in later requests; entries after it
// (the runs kept verbatim, then everything newer) are sent as they are. The full history
// stays in place and readable; only requests change.
import type { SessionsCore } from '../sessions/core.ts'

export type CompactionTrigger = 'manual' | 'auto'
export type StrategyName = 'summarize' | 'truncate'

/** The content of a `compaction` entry. */
export interface CompactionContent {
  compaction_id: string
  strategy: StrategyName
  trigger: CompactionTrigger
  keep_turns: number
  /** The last position the summary stands for. */
  through_position: number
  /** The first position sent verbatim after the summary (through_position + 1). */
  kept_from_position: number
  /** Runs the summary stands for, in all (earlier compactions' included). */
  compacted_turns: number
  /** The summary (summarize) or the note saying what was left out (truncate). */
  text: string
  model: string | null
  /** Estimated tokens of the request before and after. */
  tokens_before: number
  tokens_after: number
}

export interface CompactionMark extends CompactionContent {
  /** The position of the compaction entry itself. */
  position: number
  created_at: string
}

/** The session's latest compaction, or null (partial index `entries_compactions`). */
export function latestCompaction(core: SessionsCore, sessionId: string): CompactionMark | null {
  const row = core
    .sql(
      `SELECT position, created_at, content FROM entries WHERE session_id = ? AND position =
         (SELECT MAX(position) FROM entries WHERE session_id = ? AND kind = 'compaction')`,
    )
    .get(sessionId, sessionId) as { position: number; created_at: string; content: string } | undefined
  if (!row) return null
  return {
    ...(JSON.parse(row.content) as CompactionContent),
    position: row.position,
    created_at: row.created_at,
  }
}

/** The message that stands for the compacted runs in every later request. */
export function compactionMessage(mark: Pick<CompactionContent, 'strategy' | 'text'>): string {
  if (mark.strategy === 'truncate') return mark.text
  return `This conversation was compacted to fit the model's context window. A summary of the earlier turns follows; the turns after it are verbatim.\n\n<summary>\n${mark.text}\n</summary>`
}

/**
 * The first position kept verbatim when `keep` runs stay after `after`: that of the
 * oldest kept run, or `end` (one past the last entry) when none is kept. A run is counted
 * by its display group: the user messages it took (one or several) and all that answered
 * them. Null when nothing lies before the kept runs, so nothing can be compacted.
 */
export function keptFrom(
  core: SessionsCore,
  sessionId: string,
  after: number,
  keep: number,
  end: number,
): number | null {
  const users = core
    .sql(
      "SELECT grp, position FROM entry_sizes WHERE session_id = ? AND kind = 'user' AND position > ? ORDER BY position DESC",
    )
    .iterate(sessionId, after) as IterableIterator<{ grp: number; position: number }>
  let runs = 0
  let lastGroup: number | null = null
  let first = end
  for (const u of users) {
    if (u.grp !== lastGroup) {
      // An older run exists beyond the kept ones (leaving the loop closes the statement).
      if (runs === keep) return first
      runs++
      lastGroup = u.grp
    }
    first = u.position
  }
  return null
}
