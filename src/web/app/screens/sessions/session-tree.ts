// The session list as the tree it is: children under their parent, pinned roots first (by
// their pin order), then by latest activity; archived sessions apart. A search keeps the
// sessions that match and the parents that lead to them, so a match is seen in its place.
import type { SessionSummary } from '../../../../schemas/session-read.ts'

export interface TreeRow {
  session: SessionSummary
  /** Depth in the tree as shown (a child whose parent is not listed is shown as a root). */
  depth: number
}

function byPinThenActivity(a: SessionSummary, b: SessionSummary): number {
  const pa = a.preferences.pinned
  const pb = b.preferences.pinned
  if (pa !== pb) return pa ? -1 : 1
  if (pa && pb) {
    const oa = a.preferences.pin_order ?? Number.MAX_SAFE_INTEGER
    const ob = b.preferences.pin_order ?? Number.MAX_SAFE_INTEGER
    if (oa !== ob) return oa - ob
  }
  return b.activity_at.localeCompare(a.activity_at)
}

/** Rows in display order: each root, then its children depth-first. */
export function treeRows(sessions: SessionSummary[]): TreeRow[] {
  const ids = new Set(sessions.map((s) => s.id))
  const children = new Map<string, SessionSummary[]>()
  const roots: SessionSummary[] = []
  for (const s of sessions) {
    if (s.parent_id && ids.has(s.parent_id)) {
      const list = children.get(s.parent_id) ?? []
      list.push(s)
      children.set(s.parent_id, list)
    } else roots.push(s)
  }
  const rows: TreeRow[] = []
  const walk = (s: SessionSummary, depth: number) => {
    rows.push({ session: s, depth })
    for (const c of (children.get(s.id) ?? []).sort(byPinThenActivity)) walk(c, depth + 1)
  }
  for (const r of roots.sort(byPinThenActivity)) walk(r, 0)
  return rows
}

/** Splits the list into the sessions in use and the archived ones. */
export function splitArchived(sessions: SessionSummary[]): {
  current: SessionSummary[]
  archived: SessionSummary[]
} {
  const current: SessionSummary[] = []
  const archived: SessionSummary[] = []
  for (const s of sessions) (s.preferences.archived ? archived : current).push(s)
  return { current, archived }
}

export function title(s: SessionSummary): string {
  return s.name || s.automatic_name || s.preview.text.slice(0, 80) || 'new session'
}
