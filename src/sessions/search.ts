// The trigram full-text index over names and previews (case-insensitive substring search).
import type { Db } from '../store/db.ts'
import type { SessionsCore } from './core.ts'
import type { SessionRow } from './types.ts'

export function indexSession(
  core: SessionsCore,
  r: Pick<SessionRow, 'rowid' | 'name' | 'automatic_name' | 'preview_text'>,
): void {
  core.sql('DELETE FROM session_search WHERE rowid = ?').run(r.rowid)
  core
    .sql('INSERT INTO session_search (rowid, name, preview) VALUES (?, ?, ?)')
    .run(r.rowid, `${r.name}\n${r.automatic_name}`, r.preview_text)
}

export function unindexSession(core: SessionsCore, rowid: number): void {
  core.sql('DELETE FROM session_search WHERE rowid = ?').run(rowid)
}

/** Case folding for short searches; the same rule rowMatches applies to single rows. */
export function fold(text: string): string {
  return text.toLowerCase()
}

/**
 * Registers the SQL function short searches use. SQLite's LIKE and lower() fold ASCII only,
 * while the trigram index folds all of Unicode; this keeps `é` and `É` equal at any length.
 */
export function registerSearchFunctions(db: Db): void {
  db.function('hearth_fold', { deterministic: true }, (t: unknown) => (typeof t === 'string' ? fold(t) : t))
}

/** SQL condition (and its parameters) matching `text` as a case-insensitive substring. */
export function searchCondition(text: string): { sql: string; params: unknown[] } {
  if ([...text].length >= 3) {
    // Trigram MATCH of the whole text as one quoted phrase.
    return {
      sql: 's.rowid IN (SELECT rowid FROM session_search WHERE session_search MATCH ?)',
      params: [`"${text.replaceAll('"', '""')}"`],
    }
  }
  // Shorter than a trigram: scan (as LIKE would), folding case in full Unicode.
  const needle = fold(text)
  return {
    sql: `(instr(hearth_fold(s.name), ?) > 0 OR instr(hearth_fold(s.automatic_name), ?) > 0
      OR instr(hearth_fold(s.preview_text), ?) > 0)`,
    params: [needle, needle, needle],
  }
}
