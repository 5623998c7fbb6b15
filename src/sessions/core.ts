// Shared machinery of the sessions domain: row access, transactions that collect log
// events and collection changes, and publication after commit.

import type { Statement } from 'better-sqlite3'
import { type InstructionSource, Instructions } from '../instructions/index.ts'
import { HearthError } from '../schemas/problems.ts'
import type { Db } from '../store/db.ts'
import { followPendingMove } from './configure.ts'
import { type EntryRow, type HistoryEntry, toHistoryEntry } from './entries.ts'
import type { Hub } from './hub.ts'
import { LiveRuns } from './live.ts'
import { EventLog } from './log.ts'
import { registerSearchFunctions, SearchIndexer } from './search.ts'
import type { CollectionChange, LogEvent, SessionRow } from './types.ts'
import { type Composed, selectionOf } from './views.ts'

export interface Tx {
  append: (sessionId: string, kind: string, payload: unknown) => LogEvent
  changed: (change: CollectionChange) => void
  now: number
  at: string
}

/** Distinct statement texts kept (listing filters combine into a bounded set well below). */
const STATEMENT_CACHE_LIMIT = 512

// The family revision comes from a correlated subquery, not a JOIN: better-sqlite3's SQLite
// (built with STAT4) re-prepares a two-table statement whenever a bound value could change
// the join order, and better-sqlite3 then compiles a new row constructor for it. A row read
// by id took ~80-150 µs that way, ~10 µs now (bench/sections/sessions.ts, bench/notes/sessions.md).
const ROW_COLUMNS = 's.*, (SELECT f.revision FROM families f WHERE f.root_id = s.root_id) AS family_revision'
const ROW_SQL = `SELECT ${ROW_COLUMNS} FROM sessions s`
/** Rows among given rowids (a JSON array): CROSS JOIN makes SQLite start from the list. */
const AMONG_SQL = `SELECT ${ROW_COLUMNS} FROM json_each(?) j CROSS JOIN sessions s ON s.rowid = j.value`

export class SessionsCore {
  readonly db: Db
  readonly log: EventLog
  readonly hub: Hub
  readonly now: () => number
  /** Output of runs in progress, not yet in the history. */
  readonly live = new LiveRuns()
  /** Brings the search index up to date behind the writes. */
  readonly searchIndex: SearchIndexer
  /**
   * Sessions holding a workspace move committed while they were busy. Every transaction
   * ends by moving those that are idle by then, whichever code made them idle (a run that
   * ended, a cancelled queue, recovery after a restart). Loaded from the rows at start.
   */
  readonly pendingMoves = new Set<string>()
  /** The continuation of a session's history before a position (set by the API layer). */
  olderHistory: (sessionId: string, before: number) => string | null = () => null
  /** Whether maintenance (compaction, reload, kernel upgrade) holds a session now (set by the API layer). */
  inMaintenance: (sessionId: string) => boolean = () => false
  /** The context window a read shows for a session, if known now (set by the API layer). */
  contextWindowOf: (row: SessionRow) => number | null = () => null
  /** The AGENTS.md files of a session's steps (the daemon gives it hearth's home). */
  instructions = new Instructions(null)
  /** A session's effective selection and dependencies, as a read shows them (set by the API layer). */
  composed: (row: SessionRow) => Composed = (row) => ({ effective: selectionOf(row), dependencies: {} })
  /** Whether a page's catalog_revision still holds for the session (set by the API layer). */
  catalogRevisionHolds: (row: SessionRow, revision: string) => boolean = () => true
  readonly #row
  readonly #tombstone
  readonly #tail
  readonly #statements = new Map<string, Statement>()

  constructor(db: Db, hub: Hub, now: () => number) {
    this.db = db
    this.hub = hub
    this.now = now
    this.log = new EventLog(db)
    registerSearchFunctions(db)
    this.searchIndex = new SearchIndexer(db, (text) => this.sql(text))
    this.#row = db.prepare<[string], SessionRow>(`${ROW_SQL} WHERE s.id = ?`)
    this.#tombstone = db.prepare<[string], { id: string }>('SELECT id FROM deleted_sessions WHERE id = ?')
    this.#tail = db.prepare<[string, number], EntryRow>(
      'SELECT position, grp, kind, created_at, content FROM entries WHERE session_id = ? ORDER BY position DESC LIMIT ?',
    )
  }

  /**
   * A prepared statement, compiled once per SQL text. Preparing per call would leave a
   * native statement per request for the garbage collector, which does not see their size.
   */
  sql(text: string): Statement {
    let st = this.#statements.get(text)
    if (!st) {
      if (this.#statements.size >= STATEMENT_CACHE_LIMIT) this.#statements.clear()
      st = this.db.prepare(text)
      this.#statements.set(text, st)
    }
    return st
  }

  row(id: string): SessionRow | undefined {
    return this.#row.get(id)
  }

  isDeleted(id: string): boolean {
    return this.#tombstone.get(id) !== undefined
  }

  /** 409 family_deleting while a subtree deletion gates the family. */
  requireFamilyOpen(rootId: string): void {
    const family = this.sql('SELECT deleting FROM families WHERE root_id = ?').get(rootId) as
      | { deleting: string | null }
      | undefined
    if (family?.deleting != null)
      throw new HearthError('family_deleting', 'A subtree deletion runs in this family')
  }

  /** The row, or 404 session_not_found / 410 session_deleted. */
  require(id: string): SessionRow {
    const r = this.row(id)
    if (r) return r
    if (this.isDeleted(id)) throw new HearthError('session_deleted', `Session ${id} was deleted`)
    throw new HearthError('session_not_found', `No session ${id}`)
  }

  /** The last `tail` history entries of a session, ascending by position. */
  historyTail(id: string, tail: number): HistoryEntry[] {
    if (tail <= 0) return []
    return this.#tail.all(id, tail).reverse().map(toHistoryEntry)
  }

  /** What a full read adds to the row: history tail and waiting inputs. */
  readExtras(id: string, tail: number): { history: HistoryEntry[]; pending: unknown[]; live: LiveRuns } {
    const pending = this.sql(
      `SELECT id, acceptance_order, client_id, accepted_at, substr(text, 1, 256) AS text, image_count
       FROM inputs WHERE session_id = ? AND delivery = 'pending' ORDER BY acceptance_order`,
    ).all(id)
    return { history: this.historyTail(id, tail), pending, live: this.live }
  }

  /** The extras of a session that has no history and no waiting inputs yet. */
  emptyExtras(): { history: HistoryEntry[]; pending: unknown[]; live: LiveRuns } {
    return { history: [], pending: [], live: this.live }
  }

  /** The instruction files a step of the session would send now, as a read lists them. */
  instructionSources(row: SessionRow): InstructionSource[] {
    return this.instructions.of(row.workspace, selectionOf(row)).sources
  }

  rows(where: string, ...params: unknown[]): SessionRow[] {
    return this.sql(`${ROW_SQL} WHERE ${where}`).all(...params) as SessionRow[]
  }

  /** rows(), looking only at the sessions with these rowids (for a short list of them). */
  rowsAmong(rowids: readonly number[], where: string, ...params: unknown[]): SessionRow[] {
    return this.sql(`${AMONG_SQL} WHERE ${where}`).all(JSON.stringify(rowids), ...params) as SessionRow[]
  }

  /** Runs `fn` in one transaction; its events and changes are published once it commits. */
  transact<T>(fn: (tx: Tx) => T): T {
    const t = this.#newTx()
    let settled: string[] = []
    const result = this.db.transaction(() => {
      const value = fn(t.tx)
      settled = this.#followPendingMoves(t.tx)
      return value
    })()
    for (const id of settled) this.pendingMoves.delete(id)
    this.hub.publish(t.events, t.changes)
    return result
  }

  /** Reads which sessions wait to follow a workspace move and moves those already idle. */
  loadPendingMoves(): void {
    const ids = this.sql('SELECT id FROM sessions WHERE workspace_change IS NOT NULL')
      .pluck()
      .all() as string[]
    for (const id of ids) this.pendingMoves.add(id)
    if (ids.length > 0) this.transact(() => undefined)
  }

  /**
   * Applies the pending moves of sessions that are idle now; returns the sessions that no
   * longer wait (moved, deleted or without a move), to forget once the transaction commits.
   */
  #followPendingMoves(tx: Tx): string[] {
    if (this.pendingMoves.size === 0) return []
    const settled: string[] = []
    for (const id of this.pendingMoves) {
      const r = this.row(id)
      if (r && r.workspace_change !== null && r.phase !== 'idle') continue
      followPendingMove(this, id, tx)
      settled.push(id)
    }
    return settled
  }

  /**
   * Runs each of `fns` in its own savepoint of one transaction: one that throws is rolled
   * back alone (with its events) and its error returned in its place. One commit, hence one
   * fsync under `synchronous = FULL`, covers them all: the group commit of admissions.
   */
  transactEach<T>(fns: ((tx: Tx) => T)[]): Settled<T>[] {
    const { tx, events, changes } = this.#newTx()
    const results = this.db.transaction(() =>
      fns.map((fn): Settled<T> => {
        const marks = [events.length, changes.length] as const
        try {
          return { ok: true, value: this.db.transaction(() => fn(tx))() }
        } catch (error) {
          events.length = marks[0]
          changes.length = marks[1]
          return { ok: false, error }
        }
      }),
    )()
    // Admissions only queue sessions; none turns idle here, so no pending move is due.
    this.hub.publish(events, changes)
    return results
  }

  /** A transaction context that collects the events and changes to publish after commit. */
  #newTx(): { tx: Tx; events: LogEvent[]; changes: CollectionChange[] } {
    const events: LogEvent[] = []
    const changes: CollectionChange[] = []
    const now = this.now()
    const tx: Tx = {
      now,
      at: new Date(now).toISOString(),
      append: (sessionId, kind, payload) => {
        const e = this.log.append(sessionId, kind, payload, tx.at)
        events.push(e)
        return e
      },
      changed: (c) => changes.push(c),
    }
    return { tx, events, changes }
  }
}

export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown }
