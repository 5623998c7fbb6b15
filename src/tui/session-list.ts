// The session picker's rows from a page of session summaries: pinned roots first (by their
// pin order), then the rest in the daemon's order (latest activity first); each session's
// children right under it, indented by depth. A child whose parent is not in the page (a
// search matched only the child) stands at the top level. Archived sessions are left out
// unless asked for.

import type { SessionSummary } from '../schemas/session-read.ts'

export interface SessionRow {
  session: SessionSummary
  /** Indentation: 0 for a row at the top level. */
  depth: number
}

/** Pinned first, ordered by pin_order (unset last); the others keep their order. */
function pinnedFirst(list: SessionSummary[]): SessionSummary[] {
  const pinned = list
    .filter((s) => s.preferences.pinned)
    .sort((a, b) => (a.preferences.pin_order ?? Infinity) - (b.preferences.pin_order ?? Infinity))
  return [...pinned, ...list.filter((s) => !s.preferences.pinned)]
}

export function sessionRows(items: SessionSummary[], o: { archived?: boolean } = {}): SessionRow[] {
  const shown = o.archived ? items : items.filter((s) => !s.preferences.archived)
  const ids = new Set(shown.map((s) => s.id))
  const children = new Map<string, SessionSummary[]>()
  const tops: SessionSummary[] = []
  for (const s of shown) {
    if (s.parent_id && ids.has(s.parent_id)) {
      const list = children.get(s.parent_id) ?? []
      list.push(s)
      children.set(s.parent_id, list)
    } else tops.push(s)
  }
  const rows: SessionRow[] = []
  const seen = new Set<string>()
  const add = (s: SessionSummary, depth: number) => {
    if (seen.has(s.id)) return
    seen.add(s.id)
    rows.push({ session: s, depth })
    for (const c of pinnedFirst(children.get(s.id) ?? [])) add(c, depth + 1)
  }
  for (const s of pinnedFirst(tops)) add(s, 0)
  return rows
}

/** A session's title: its name, else its automatic name, else its preview's first line. */
export function sessionTitle(s: SessionSummary): string {
  return s.name || s.automatic_name || s.preview.text.split('\n')[0] || '(empty)'
}
