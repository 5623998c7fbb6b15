// Case-insensitive substring search over names and previews: a trigram full-text index,
// kept up to date behind the writes. A change marks its session in search_pending (same
// transaction, one small B-tree append); the indexer re-indexes marked sessions in batches
// once changes pause (or a backlog builds up), and a search scans the marked sessions
// instead of trusting their stale index entries. Migration 007 says why.
import type { Statement } from 'better-sqlite3'
import type { Db } from '../store/db.ts'
import type { SessionsCore } from './core.ts'
import type { SessionRow } from './types.ts'

/**
 * Sessions re-indexed per transaction (one FTS5 segment each) once changes pause: ~1 ms.
 * Under changes that never pause, batches are smaller: a request that arrives during one
 * waits ~0.3 ms rather than ~1, at the price of more, smaller segments for FTS5 to merge.
 */
const QUIET_BATCH = 100
const BUSY_BATCH = 20
/**
 * Quiet time after the last change before the indexer catches up. HEARTH_SEARCH_QUIET_MS (a
 * positive integer of milliseconds) overrides it; the tests raise it to search marked sessions.
 */
const QUIET_MS = 200

function quietMs(env: NodeJS.ProcessEnv = process.env): number {
  const v = Number(env.HEARTH_SEARCH_QUIET_MS)
  return env.HEARTH_SEARCH_QUIET_MS && Number.isSafeInteger(v) && v > 0 ? v : QUIET_MS
}
/** Under changes that never pause, the indexer catches up once about this many wait. */
const BACKLOG = 1_000
const POLL_MS = 100
/**
 * After a catch-up in a pause, FTS5 `merge` steps of about this many pages, negative so that
 * any level holding two segments or more is merged: a query reads every segment, and the
 * small batches leave many (10,000 sessions: 2.8 ms per search before, 0.4–0.8 after).
 */
const MERGE_PAGES = -200

const MARK = 'INSERT OR IGNORE INTO search_pending (session_rowid) VALUES (?)'
const MARKED = `SELECT p.session_rowid AS rowid, s.name || char(10) || s.automatic_name AS name,
    s.preview_text AS preview
  FROM search_pending p LEFT JOIN sessions s ON s.rowid = p.session_rowid
  ORDER BY p.session_rowid LIMIT ?`
const UNINDEX = 'DELETE FROM session_search WHERE rowid = ?'
const INDEX = 'INSERT INTO session_search (rowid, name, preview) VALUES (?, ?, ?)'
const DONE = 'DELETE FROM search_pending WHERE session_rowid = ?'
const MERGE = "INSERT INTO session_search (session_search, rank) VALUES ('merge', ?)"
const CHANGES = 'SELECT total_changes() AS n'

/**
 * A search matching at most this many sessions is listed from its matches, sorted, rather
 * than by walking every session in order and checking each against the matches: with
 * 10,000 sessions, a term in 11 of them took ~3–4.5 ms that way.
 */
const FEW_MATCHES = 500

/** Marks a session's search entry out of date; call inside the transaction that changes it. */
export function indexSession(core: SessionsCore, r: Pick<SessionRow, 'rowid'>): void {
  core.searchIndex.mark(r.rowid)
}

export function unindexSession(core: SessionsCore, rowid: number): void {
  core.sql(UNINDEX).run(rowid)
  core.sql(DONE).run(rowid)
}

interface MarkedRow {
  rowid: number
  name: string | null
  preview: string | null
}

export class SearchIndexer {
  readonly #db: Db
  /** Prepared on first use (SessionsCore.sql): nothing here runs before the daemon is ready. */
  readonly #sql: (text: string) => Statement
  /**
   * Marks since the table was last seen empty; rolled-back marks make it an overestimate.
   * It starts at 1, "maybe": a previous run may have stopped with sessions marked, and the
   * first catch-up (a poll after start) finds out.
   */
  #waiting = 1
  #lastMark = 0
  #running = false
  /** Segments may be left to merge (a previous run may have left some too). */
  #mergeDue = true
  readonly #quietMs = quietMs()
  readonly #timer: NodeJS.Timeout

  constructor(db: Db, sql: (text: string) => Statement) {
    this.#db = db
    this.#sql = sql
    this.#timer = setInterval(() => this.#poll(), POLL_MS)
    this.#timer.unref()
  }

  /** Whether any session may be marked; false only when the table is known to be empty. */
  get anyMarked(): boolean {
    return this.#waiting > 0
  }

  mark(rowid: number): void {
    this.#sql(MARK).run(rowid)
    this.#waiting++
    this.#lastMark = performance.now()
  }

  /** Re-indexes up to `size` marked sessions in one transaction; returns how many. */
  #indexBatch(size: number): number {
    return this.#db.transaction(() => {
      const rows = this.#sql(MARKED).all(size) as MarkedRow[]
      for (const r of rows) {
        this.#sql(UNINDEX).run(r.rowid)
        if (r.name !== null) this.#sql(INDEX).run(r.rowid, r.name, r.preview)
        this.#sql(DONE).run(r.rowid)
      }
      return rows.length
    })()
  }

  stop(): void {
    clearInterval(this.#timer)
  }

  #poll(): void {
    if (!this.#db.open) {
      this.stop()
      return
    }
    if (this.#running) return
    const quiet = performance.now() - this.#lastMark >= this.#quietMs
    if (this.#waiting > 0 && (quiet || this.#waiting >= BACKLOG)) {
      this.#running = true
      this.#step(quiet ? QUIET_BATCH : BUSY_BATCH)
    } else if (this.#mergeDue && quiet) {
      this.#running = true
      this.#mergeStep()
    }
  }

  /** One batch per turn of the event loop, so requests run between them. */
  #step(size: number): void {
    if (!this.#db.open) {
      this.#running = false
      return
    }
    let indexed: number
    try {
      indexed = this.#indexBatch(size)
    } catch {
      // A full disk, say: the marks stay, and the next poll tries again.
      this.#running = false
      return
    }
    if (indexed === size) {
      setImmediate(() => this.#step(size))
      return
    }
    this.#waiting = 0
    this.#mergeDue = true
    this.#running = false
  }

  /** Merges index segments one step per turn of the event loop while writes stay paused. */
  #mergeStep(): void {
    if (!this.#db.open || this.#waiting > 0) {
      this.#running = false
      return
    }
    const changes = () => (this.#sql(CHANGES).get() as { n: number }).n
    let merged: boolean
    try {
      const before = changes()
      this.#sql(MERGE).run(MERGE_PAGES)
      // FTS5's documented test: fewer than two changed rows means there was nothing to merge.
      merged = changes() - before >= 2
    } catch {
      this.#running = false // the next pause tries again
      return
    }
    if (merged) {
      setImmediate(() => this.#mergeStep())
      return
    }
    this.#mergeDue = false
    this.#running = false
  }
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

/** The trigram query of `text`: the whole text as one quoted phrase. */
const phraseOf = (text: string) => `"${text.replaceAll('"', '""')}"`

/**
 * Whether the trigram index can answer a search for `text`: three characters or more, and
 * no U+0000, which FTS5's query parser takes for the end of the query (a quoted phrase
 * holding one is "unterminated"). Other searches scan the sessions instead.
 */
const indexable = (text: string) => !text.includes('\0') && [...text].length >= 3

/**
 * The rowids matching `text` when they are few (FEW_MATCHES) and the index answers alone
 * (nothing marked, an indexable text); otherwise undefined.
 */
export function fewMatches(core: SessionsCore, text: string): number[] | undefined {
  if (!indexable(text) || core.searchIndex.anyMarked) return undefined
  const ids = core
    .sql('SELECT rowid FROM session_search WHERE session_search MATCH ? LIMIT ?')
    .pluck()
    .all(phraseOf(text), FEW_MATCHES + 1) as number[]
  return ids.length <= FEW_MATCHES ? ids : undefined
}

/**
 * SQL condition (and its parameters) matching `text` as a case-insensitive substring;
 * `marked`: whether some sessions may wait for the index (their entries are then ignored).
 */
export function searchCondition(text: string, marked: boolean): { sql: string; params: unknown[] } {
  // The scan: as LIKE would, folding case in full Unicode.
  const needle = fold(text)
  const scan = `(instr(hearth_fold(s.name), ?) > 0 OR instr(hearth_fold(s.automatic_name), ?) > 0
      OR instr(hearth_fold(s.preview_text), ?) > 0)`
  // Shorter than a trigram, or not expressible as a trigram query: every session is scanned.
  if (!indexable(text)) return { sql: scan, params: [needle, needle, needle] }
  const phrase = phraseOf(text)
  const match = 's.rowid IN (SELECT rowid FROM session_search WHERE session_search MATCH ?)'
  // Nothing marked: the trigram MATCH of the whole text as one quoted phrase.
  if (!marked) return { sql: match, params: [phrase] }
  // Some marked: the same, except that marked sessions (whose entries may be stale) are
  // scanned. Both sets are built once per query; a listed row costs a rowid lookup in
  // search_pending and one in the match set (a form that scanned the marked sessions in a
  // subquery was slower: SQLite drove that join from sessions, 16 ms against 1.4).
  return {
    sql: `(CASE WHEN s.rowid IN (SELECT session_rowid FROM search_pending) THEN ${scan} ELSE ${match} END)`,
    params: [needle, needle, needle, phrase],
  }
}
