// Listing sessions with filters and keyset paging. The keyset is the sort key of the last
// row of a page, so pages stay consistent while sessions are created or deleted.
import { HearthError } from '../schemas/problems.ts'
import type { SessionListQuery } from '../schemas/sessions.ts'
import type { SessionsCore } from './core.ts'
import { fewMatches, fold, searchCondition } from './search.ts'
import type { SessionRow } from './types.ts'

/** Keyset position: [opens?, activity_ms, id] depending on the sort. */
export type ListKey = (number | string)[]

export type ListFilter = Omit<SessionListQuery, 'sort' | 'limit' | 'next'>

export interface ListPage {
  rows: SessionRow[]
  nextKey: ListKey | null
}

/** Validates the filter combination and the existence of a named parent or family. */
export function checkFilter(core: SessionsCore, f: ListFilter): void {
  if (f.parent_id !== undefined && f.family_id !== undefined) {
    throw new HearthError('invalid_scope', 'parent_id and family_id are exclusive')
  }
  if (f.scope === 'roots' && (f.parent_id !== undefined || f.family_id !== undefined)) {
    throw new HearthError('invalid_scope', 'scope=roots cannot be combined with parent_id or family_id')
  }
  if (f.parent_id !== undefined && !core.row(f.parent_id)) {
    throw new HearthError('session_not_found', `No session ${f.parent_id}`)
  }
  if (f.family_id !== undefined) {
    const family = core.sql('SELECT 1 FROM families WHERE root_id = ?').get(f.family_id)
    if (!family) throw new HearthError('family_not_found', `No family ${f.family_id}`)
  }
}

/**
 * SQL conditions of a filter. `marked`: whether some sessions may wait for the search index
 * (SearchIndexer.anyMarked); without any, a search is the trigram match alone.
 */
export function filterConditions(f: ListFilter, marked: boolean): { sql: string[]; params: unknown[] } {
  const sql: string[] = []
  const params: unknown[] = []
  const scope = f.scope ?? (f.parent_id !== undefined || f.family_id !== undefined ? 'all' : 'roots')
  if (scope === 'roots') sql.push('s.parent_id IS NULL')
  const equal = (column: string, value: unknown) => {
    sql.push(`${column} = ?`)
    params.push(value)
  }
  if (f.parent_id !== undefined) equal('s.parent_id', f.parent_id)
  if (f.family_id !== undefined) equal('s.root_id', f.family_id)
  if (f.workspace !== undefined) equal('s.workspace', f.workspace)
  if (f.archived !== undefined) equal('s.archived', f.archived ? 1 : 0)
  if (f.pinned !== undefined) equal('s.pinned', f.pinned ? 1 : 0)
  if (f.needs_reload !== undefined) {
    sql.push(`(s.loaded_revision IS NULL OR s.loaded_revision != s.desired_revision) = ?`)
    params.push(f.needs_reload ? 1 : 0)
  }
  if (f.search !== undefined && f.search.length > 0) {
    const c = searchCondition(f.search, marked)
    sql.push(c.sql)
    params.push(...c.params)
  }
  return { sql, params }
}

const ORDER = {
  activity: { columns: ['s.activity_ms', 's.id'], key: (r: SessionRow): ListKey => [r.activity_ms, r.id] },
  frequent: {
    columns: ['s.opens', 's.activity_ms', 's.id'],
    key: (r: SessionRow): ListKey => [r.opens, r.activity_ms, r.id],
  },
} as const

/** The keyset position after `row` in a listing sorted by `sort`. */
export function listKeyOf(sort: 'activity' | 'frequent', row: SessionRow): ListKey {
  return ORDER[sort].key(row)
}

/** (a, b, c) < (?, ?, ?) for a descending keyset. */
function keysetCondition(columns: readonly string[]): string {
  return `(${columns.join(', ')}) < (${columns.map(() => '?').join(', ')})`
}

export function listSessions(
  core: SessionsCore,
  f: ListFilter,
  sort: 'activity' | 'frequent',
  limit: number,
  after: ListKey | null,
): ListPage {
  // A search with few matches starts from them; the filter then leaves the search out.
  const among = f.search ? fewMatches(core, f.search) : undefined
  const { sql, params } = filterConditions(
    among ? { ...f, search: undefined } : f,
    core.searchIndex.anyMarked,
  )
  const order = ORDER[sort]
  if (after !== null) {
    if (after.length !== order.columns.length) throw new HearthError('invalid_continuation')
    sql.push(keysetCondition(order.columns))
    params.push(...after)
  }
  const where = sql.length ? sql.join(' AND ') : '1'
  const orderBy = order.columns.map((c) => `${c} DESC`).join(', ')
  const tail = `${where} ORDER BY ${orderBy} LIMIT ?`
  const rows = among
    ? core.rowsAmong(among, tail, ...params, limit + 1)
    : core.rows(tail, ...params, limit + 1)
  const more = rows.length > limit
  const page = rows.slice(0, limit)
  return { rows: page, nextKey: more ? order.key(page[page.length - 1]) : null }
}

/** Whether one row satisfies the filter; the same rules as filterConditions, for rows
 * that may no longer be in the database (a deleted session's last state). */
export function rowMatches(f: ListFilter, r: SessionRow): boolean {
  const scope = f.scope ?? (f.parent_id !== undefined || f.family_id !== undefined ? 'all' : 'roots')
  if (scope === 'roots' && r.parent_id !== null) return false
  if (f.parent_id !== undefined && r.parent_id !== f.parent_id) return false
  if (f.family_id !== undefined && r.root_id !== f.family_id) return false
  if (f.workspace !== undefined && r.workspace !== f.workspace) return false
  if (f.archived !== undefined && (r.archived === 1) !== f.archived) return false
  if (f.pinned !== undefined && (r.pinned === 1) !== f.pinned) return false
  const needsReload = r.loaded_revision === null || r.loaded_revision !== r.desired_revision
  if (f.needs_reload !== undefined && needsReload !== f.needs_reload) return false
  if (f.search) {
    const needle = fold(f.search)
    const hay = [r.name, r.automatic_name, r.preview_text].map(fold)
    if (!hay.some((t) => t.includes(needle))) return false
  }
  return true
}
