// Reads of the committed history: ascending pages that keep display groups whole, the
// checkpoints view (one item per group), an entry's text in pieces, and its images.
import { HearthError } from '../schemas/problems.ts'
import type { SessionsCore } from '../sessions/core.ts'
import { type EntryRow, type HistoryEntry, toHistoryEntry } from '../sessions/entries.ts'
import { CONTINUATION_ROOM, countThatFit, countThatFitFromEnd, MAX_JSON_BYTES } from '../util/json-budget.ts'

export type HistoryWindow = { before: number } | { after: number } | { newest: true }

export interface HistoryPage<T> {
  items: T[]
  /** Positions that bound the page, for the older and newer continuations. */
  first: number | null
  last: number | null
  high_water: number
}

const COLUMNS = 'position, grp, kind, created_at, content'

function groupBounds(core: SessionsCore, sessionId: string, grp: number): { lo: number; hi: number } {
  return core
    .sql('SELECT MIN(position) AS lo, MAX(position) AS hi FROM entries WHERE session_id = ? AND grp = ?')
    .get(sessionId, grp) as { lo: number; hi: number }
}

/** Positions [lo, hi] of a page, widened to whole groups at the end it was cut. */
function pageRange(core: SessionsCore, sessionId: string, w: HistoryWindow, limit: number, high: number) {
  const below = 'before' in w ? w.before - 1 : high
  let lo: number
  let hi: number
  if ('after' in w) {
    lo = w.after + 1
    hi = Math.min(high, w.after + limit)
  } else {
    hi = Math.min(below, high)
    lo = Math.max(1, hi - limit + 1)
  }
  if (hi < lo) return undefined
  const edge = 'after' in w ? hi : lo
  const at = core.sql('SELECT grp FROM entries WHERE session_id = ? AND position = ?').get(sessionId, edge) as
    | { grp: number }
    | undefined
  if (at) {
    const g = groupBounds(core, sessionId, at.grp)
    if ('after' in w) hi = Math.max(hi, g.hi)
    else lo = Math.min(lo, g.lo)
  }
  return { lo, hi }
}

export function entriesPage(
  core: SessionsCore,
  sessionId: string,
  w: HistoryWindow,
  limit: number,
): HistoryPage<HistoryEntry> {
  const s = core.require(sessionId)
  const high = s.transcript_count
  const range = pageRange(core, sessionId, w, limit, high)
  if (!range) return { items: [], first: null, last: null, high_water: high }
  const rows = core
    .sql(`SELECT ${COLUMNS} FROM entries WHERE session_id = ? AND position BETWEEN ? AND ? ORDER BY position`)
    .all(sessionId, range.lo, range.hi) as EntryRow[]
  const all = rows.map(toHistoryEntry)
  const items = withinLimit(all, 'after' in w ? 'oldest' : 'newest')
  if (items.length === all.length) return { items, first: range.lo, last: range.hi, high_water: high }
  return { items, first: items[0].position, last: items[items.length - 1].position, high_water: high }
}

/**
 * The entries of a page that fit in a JSON body, keeping the `newest` (a page read
 * backwards) or the `oldest` (read forwards); the continuation covers the rest. The cut
 * falls between display groups unless one group alone passes the limit.
 */
function withinLimit(items: HistoryEntry[], keep: 'newest' | 'oldest'): HistoryEntry[] {
  const budget = MAX_JSON_BYTES - CONTINUATION_ROOM
  if (keep === 'newest') {
    const fit = countThatFitFromEnd(items, budget, 1)
    if (fit === items.length) return items
    let start = items.length - fit
    const groupStart = items.findIndex((e, i) => i >= start && e.group !== items[start - 1].group)
    if (groupStart >= 0) start = groupStart
    return items.slice(start)
  }
  const fit = countThatFit(items, budget, 1)
  if (fit === items.length) return items
  let end = fit
  const lastStart = items.findLastIndex((e, i) => i > 0 && i < end && e.group !== items[i - 1].group)
  if (items[end].group === items[end - 1].group && lastStart > 0) end = lastStart
  return items.slice(0, end)
}

export interface CheckpointItem {
  group: number
  position: number
  created_at: string
  text: string
  /** `turn`, or `compaction` where the context was compacted (then `compaction` says how). */
  kind: 'turn' | 'compaction'
  /** The runs of the group that changed files (docs/checkpoints.md), when any did. */
  changes?: { run_id: string; files: number }[]
  compaction?: {
    compaction_id: string
    strategy: string
    trigger: 'manual' | 'auto'
    through_position: number
    compacted_turns: number
  }
}

export function checkpointsPage(
  core: SessionsCore,
  sessionId: string,
  w: HistoryWindow,
  limit: number,
): HistoryPage<CheckpointItem> {
  const s = core.require(sessionId)
  const high = s.transcript_count
  const base = `SELECT grp, MIN(position) AS position, MIN(created_at) AS created_at FROM entries
    WHERE session_id = ? AND grp > 0`
  const rows = (
    'after' in w
      ? core
          .sql(`${base} GROUP BY grp HAVING MIN(position) > ? ORDER BY grp LIMIT ?`)
          .all(sessionId, w.after, limit)
      : core
          .sql(`${base} GROUP BY grp HAVING MIN(position) < ? ORDER BY grp DESC LIMIT ?`)
          .all(sessionId, 'before' in w ? w.before : high + 1, limit)
          .reverse()
  ) as { grp: number; position: number; created_at: string }[]
  const firstUser = core.sql(
    "SELECT content FROM entries WHERE session_id = ? AND grp = ? AND kind = 'user' ORDER BY position LIMIT 1",
  )
  const compaction = core.sql(
    "SELECT content FROM entries WHERE session_id = ? AND position = ? AND kind = 'compaction'",
  )
  // A run's files changed are counted when its after snapshot is recorded.
  const changed = core.sql(`SELECT run_id, files FROM snapshots
    WHERE session_id = ? AND phase = 'after' AND files > 0 AND run_id IN (
      SELECT json_extract(content, '$.run_id') FROM entries
      WHERE session_id = ? AND grp = ? AND kind = 'assistant')
    ORDER BY seq`)
  const items = rows.map((r): CheckpointItem => {
    const mark = compaction.get(sessionId, r.position) as { content: string } | undefined
    if (mark) {
      const c = JSON.parse(mark.content)
      return {
        group: r.grp,
        position: r.position,
        created_at: r.created_at,
        text: String(c.text).slice(0, 256),
        kind: 'compaction',
        compaction: {
          compaction_id: c.compaction_id,
          strategy: c.strategy,
          trigger: c.trigger,
          through_position: c.through_position,
          compacted_turns: c.compacted_turns,
        },
      }
    }
    const user = firstUser.get(sessionId, r.grp) as { content: string } | undefined
    const text = user ? String((JSON.parse(user.content) as { text?: string }).text ?? '') : ''
    const changes = changed.all(sessionId, sessionId, r.grp) as { run_id: string; files: number }[]
    return {
      group: r.grp,
      position: r.position,
      created_at: r.created_at,
      text: text.slice(0, 256),
      kind: 'turn',
      ...(changes.length > 0 ? { changes } : {}),
    }
  })
  if (items.length === 0) return { items, first: null, last: null, high_water: high }
  const lastGroup = groupBounds(core, sessionId, items[items.length - 1].group)
  return { items, first: items[0].position, last: lastGroup.hi, high_water: high }
}

export function entryText(core: SessionsCore, sessionId: string, position: number): string {
  core.require(sessionId)
  const row = core
    .sql('SELECT content FROM entries WHERE session_id = ? AND position = ?')
    .get(sessionId, position) as { content: string } | undefined
  if (!row) throw new HearthError('entry_not_found', `No entry ${position} in session ${sessionId}`)
  const content = JSON.parse(row.content) as { text?: unknown; problem?: { detail?: string } }
  if (typeof content.text === 'string') return content.text
  return content.problem?.detail ?? ''
}

export function entryImage(
  core: SessionsCore,
  sessionId: string,
  position: number,
  field: string,
): { media_type: string; data: Buffer } {
  core.require(sessionId)
  const entry = core
    .sql('SELECT 1 FROM entries WHERE session_id = ? AND position = ?')
    .get(sessionId, position)
  if (!entry) throw new HearthError('entry_not_found', `No entry ${position} in session ${sessionId}`)
  const img = core
    .sql('SELECT media_type, data FROM entry_images WHERE session_id = ? AND position = ? AND field = ?')
    .get(sessionId, position, field) as { media_type: string; data: Buffer } | undefined
  if (!img) throw new HearthError('field_not_found', `Entry ${position} has no image field ${field}`)
  return img
}
