import type { Migration } from './index.ts'

/**
 * Workspace snapshots and restores (docs/checkpoints.md).
 *
 * - `snapshots`: one row per capture of a session's roots: a run's `before` (committed
 *   before the call that needed it runs) and `after` (when the run ended: `files` counts
 *   what changed; `approximate` when a restart took it), a restore's `before` (the redo
 *   point) and `after`. `roots` holds the git tree of each root, `skipped` the files not
 *   captured. `bytes` is what the capture added to the store, for retention. `seq` orders
 *   them oldest first (retention drops the oldest; listings page by it).
 * - `restores`: the journal of a restore: its plan is committed `applying` before any
 *   file is written; `applied` once every file is at its target (a start finds an
 *   `applying` one and applies its plan again: `recovered`); `failed` when a file could
 *   not be written (`error` says why; the engine checks every path of a root before it
 *   writes any). `intent` makes the PUT idempotent.
 * - `sessions.last_change`: the session read's `last_change` (the last run that changed
 *   files, or the last restore), JSON, set with the snapshot or restore that changes it.
 */
export const m015Snapshots: Migration = {
  version: 15,
  name: 'snapshots',
  up(db) {
    db.exec(`
      CREATE TABLE snapshots (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        session_id TEXT NOT NULL,
        run_id TEXT,
        restore_id TEXT,
        phase TEXT NOT NULL,
        roots TEXT NOT NULL,
        skipped TEXT NOT NULL DEFAULT '[]',
        files INTEGER,
        approximate INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX snapshots_by_run ON snapshots (run_id, phase) WHERE run_id IS NOT NULL;
      CREATE INDEX snapshots_by_session ON snapshots (session_id, seq);

      CREATE TABLE restores (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        session_id TEXT NOT NULL,
        intent TEXT NOT NULL,
        run_id TEXT,
        undoes_restore_id TEXT,
        target_snapshot_id TEXT NOT NULL,
        expected_snapshot_id TEXT NOT NULL,
        before_snapshot_id TEXT NOT NULL,
        after_snapshot_id TEXT,
        state TEXT NOT NULL,
        recovered INTEGER NOT NULL DEFAULT 0,
        plan TEXT NOT NULL,
        error TEXT,
        created_at TEXT NOT NULL,
        ended_at TEXT
      ) STRICT;
      CREATE INDEX restores_by_session ON restores (session_id, seq);
      CREATE INDEX restores_applying ON restores (state) WHERE state = 'applying';

      ALTER TABLE sessions ADD COLUMN last_change TEXT;
    `)
  },
}
