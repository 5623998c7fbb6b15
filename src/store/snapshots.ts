// The rows of workspace snapshots and restores (migration 15): what was captured when, and
// the journal of each restore. The files themselves live in git directories under
// HOME/snapshots (src/snapshots/); these rows name their trees.
import type { Db } from './db.ts'

export type SnapshotPhase = 'before' | 'after'

export interface RootTreeRow {
  root: string
  tree: string
}

export interface SnapshotRow {
  seq: number
  id: string
  session_id: string
  run_id: string | null
  restore_id: string | null
  phase: SnapshotPhase
  /** JSON RootTreeRow[] */
  roots: string
  /** JSON: the files not captured */
  skipped: string
  files: number | null
  approximate: number
  created_at: string
}

export type NewSnapshot = Omit<SnapshotRow, 'seq'>

export interface RestoreRow {
  seq: number
  id: string
  session_id: string
  intent: string
  run_id: string | null
  undoes_restore_id: string | null
  target_snapshot_id: string
  expected_snapshot_id: string
  before_snapshot_id: string
  after_snapshot_id: string | null
  state: 'applying' | 'applied' | 'failed'
  recovered: number
  /** Why a failed restore failed. */
  error: string | null
  /** JSON: the plan (RestorePlanItem[]) */
  plan: string
  created_at: string
  ended_at: string | null
}

export type NewRestore = Omit<RestoreRow, 'seq' | 'after_snapshot_id' | 'recovered' | 'ended_at' | 'error'>

/** A run that changed files, for the session's list (newest first). */
export interface ChangedRunRow {
  seq: number
  run_id: string
  files: number
  ended_at: string
  restored_by: string | null
}

export class SnapshotRows {
  readonly #db: Db
  constructor(db: Db) {
    this.#db = db
  }

  insert(s: NewSnapshot): void {
    this.#db
      .prepare(
        `INSERT INTO snapshots (id, session_id, run_id, restore_id, phase, roots, skipped, files, approximate, created_at)
         VALUES (@id, @session_id, @run_id, @restore_id, @phase, @roots, @skipped, @files, @approximate, @created_at)`,
      )
      .run(s)
  }

  get(id: string): SnapshotRow | undefined {
    return this.#db.prepare('SELECT * FROM snapshots WHERE id = ?').get(id) as SnapshotRow | undefined
  }

  /** A run's snapshot of one phase. */
  ofRun(runId: string, phase: SnapshotPhase): SnapshotRow | undefined {
    return this.#db.prepare('SELECT * FROM snapshots WHERE run_id = ? AND phase = ?').get(runId, phase) as
      | SnapshotRow
      | undefined
  }

  /** Runs whose `before` was recorded but not their `after` (a crash between the two). */
  runsWithoutAfter(): SnapshotRow[] {
    return this.#db
      .prepare(
        `SELECT b.* FROM snapshots b WHERE b.phase = 'before' AND b.run_id IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM snapshots a WHERE a.run_id = b.run_id AND a.phase = 'after')`,
      )
      .all() as SnapshotRow[]
  }

  /** The session's last run that changed files. */
  lastChangedRun(sessionId: string): SnapshotRow | undefined {
    return this.#db
      .prepare(
        `SELECT * FROM snapshots WHERE session_id = ? AND phase = 'after' AND run_id IS NOT NULL AND files > 0
         ORDER BY seq DESC LIMIT 1`,
      )
      .get(sessionId) as SnapshotRow | undefined
  }

  /** The session's runs that changed files, newest first, older than `beforeSeq`. */
  changedRuns(sessionId: string, beforeSeq: number, limit: number): ChangedRunRow[] {
    return this.#db
      .prepare(
        `SELECT a.seq, a.run_id, a.files, COALESCE(r.ended_at, a.created_at) AS ended_at,
           (SELECT x.id FROM restores x WHERE x.run_id = a.run_id AND x.state = 'applied'
              ORDER BY x.seq DESC LIMIT 1) AS restored_by
         FROM snapshots a LEFT JOIN runs r ON r.id = a.run_id
         WHERE a.session_id = ? AND a.phase = 'after' AND a.run_id IS NOT NULL AND a.files > 0 AND a.seq < ?
         ORDER BY a.seq DESC LIMIT ?`,
      )
      .all(sessionId, beforeSeq, limit) as ChangedRunRow[]
  }

  /** The ids of every snapshot of the session. */
  idsOfSession(sessionId: string): string[] {
    return (
      this.#db.prepare('SELECT id FROM snapshots WHERE session_id = ?').all(sessionId) as { id: string }[]
    ).map((r) => r.id)
  }

  /** Snapshots of sessions that no longer exist (deleted, or a crash before their rows went). */
  orphanIds(): string[] {
    return (
      this.#db
        .prepare('SELECT id FROM snapshots WHERE session_id NOT IN (SELECT id FROM sessions)')
        .all() as { id: string }[]
    ).map((r) => r.id)
  }

  /**
   * The snapshots of the session's runs older than its newest `keep` runs with snapshots,
   * and those of its restores older than the oldest run kept.
   */
  beyondKeep(sessionId: string, keep: number): string[] {
    const kept = this.#db
      .prepare(
        `SELECT MIN(seq) AS seq FROM (SELECT seq FROM snapshots WHERE session_id = ? AND phase = 'before'
           AND run_id IS NOT NULL ORDER BY seq DESC LIMIT ?)`,
      )
      .get(sessionId, keep) as { seq: number | null }
    const from = keep === 0 ? Number.MAX_SAFE_INTEGER : (kept.seq ?? 0)
    return (
      this.#db
        .prepare(
          `SELECT s.id FROM snapshots s WHERE s.session_id = ? AND (
             (s.run_id IS NOT NULL AND (SELECT b.seq FROM snapshots b WHERE b.run_id = s.run_id AND b.phase = 'before') < ?)
             OR (s.restore_id IS NOT NULL AND s.seq < ?))`,
        )
        .all(sessionId, from, from) as { id: string }[]
    ).map((r) => r.id)
  }

  /** Sessions that have more snapshots of runs than `keep` allows. */
  sessionsOver(keep: number): string[] {
    return (
      this.#db
        .prepare(
          `SELECT session_id FROM snapshots WHERE phase = 'before' AND run_id IS NOT NULL
           GROUP BY session_id HAVING COUNT(*) > ?`,
        )
        .all(keep) as { session_id: string }[]
    ).map((r) => r.session_id)
  }

  /** The oldest `n` snapshots of any session, with the rest of their run or restore. */
  oldest(n: number): string[] {
    return (
      this.#db
        .prepare(
          `SELECT s.id FROM snapshots s WHERE COALESCE(s.run_id, s.restore_id) IN
             (SELECT COALESCE(run_id, restore_id) FROM snapshots ORDER BY seq LIMIT ?)`,
        )
        .all(n) as { id: string }[]
    ).map((r) => r.id)
  }

  count(): number {
    return (this.#db.prepare('SELECT COUNT(*) AS n FROM snapshots').get() as { n: number }).n
  }

  delete(ids: readonly string[]): void {
    const del = this.#db.prepare('DELETE FROM snapshots WHERE id = ?')
    this.#db.transaction(() => {
      for (const id of ids) del.run(id)
    })()
  }

  // ---- restores ------------------------------------------------------------------------

  restore(id: string): RestoreRow | undefined {
    return this.#db.prepare('SELECT * FROM restores WHERE id = ?').get(id) as RestoreRow | undefined
  }

  insertRestore(r: NewRestore): void {
    this.#db
      .prepare(
        `INSERT INTO restores (id, session_id, intent, run_id, undoes_restore_id, target_snapshot_id,
           expected_snapshot_id, before_snapshot_id, state, plan, created_at)
         VALUES (@id, @session_id, @intent, @run_id, @undoes_restore_id, @target_snapshot_id,
           @expected_snapshot_id, @before_snapshot_id, @state, @plan, @created_at)`,
      )
      .run(r)
  }

  markApplied(id: string, afterSnapshotId: string, endedAt: string, recovered: boolean): void {
    this.#db
      .prepare(
        "UPDATE restores SET state = 'applied', after_snapshot_id = ?, ended_at = ?, recovered = ? WHERE id = ?",
      )
      .run(afterSnapshotId, endedAt, Number(recovered), id)
  }

  markFailed(id: string, error: string, endedAt: string, recovered: boolean): void {
    this.#db
      .prepare("UPDATE restores SET state = 'failed', error = ?, ended_at = ?, recovered = ? WHERE id = ?")
      .run(error, endedAt, Number(recovered), id)
  }

  applying(): RestoreRow[] {
    return this.#db
      .prepare("SELECT * FROM restores WHERE state = 'applying' ORDER BY seq")
      .all() as RestoreRow[]
  }

  /** The session's last applied restore (what a redo without an id undoes). */
  lastRestore(sessionId: string): RestoreRow | undefined {
    return this.#db
      .prepare("SELECT * FROM restores WHERE session_id = ? AND state = 'applied' ORDER BY seq DESC LIMIT 1")
      .get(sessionId) as RestoreRow | undefined
  }

  deleteRestoresOf(sessionId: string): void {
    this.#db.prepare('DELETE FROM restores WHERE session_id = ?').run(sessionId)
  }
}
