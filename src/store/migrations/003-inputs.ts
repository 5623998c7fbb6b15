import type { Migration } from './index.ts'

/**
 * Inputs (durable admission and delivery), runs, and the history's images. Inputs outlive
 * their session: a client may read a decision after the session is deleted, for seven days.
 */
export const m003Inputs: Migration = {
  version: 3,
  name: 'inputs',
  up(db) {
    db.exec(`
      CREATE TABLE inputs (
        id TEXT PRIMARY KEY NOT NULL,
        session_id TEXT NOT NULL,
        intent TEXT NOT NULL, -- sha256 of the canonical request: a repeat must match it
        client_id TEXT NOT NULL,
        text TEXT NOT NULL,
        image_count INTEGER NOT NULL,
        admission TEXT NOT NULL,
        http_status INTEGER NOT NULL,
        problem TEXT,
        accepted_at TEXT,
        acceptance_order INTEGER,
        delivery TEXT,
        blocking_reason TEXT,
        transcript_position INTEGER,
        turn TEXT,
        decided_ms INTEGER -- when the decision became terminal; pruned seven days later
      ) STRICT;
      CREATE INDEX inputs_open ON inputs(session_id, acceptance_order)
        WHERE delivery IN ('pending', 'running');
      CREATE INDEX inputs_decided ON inputs(decided_ms) WHERE decided_ms IS NOT NULL;

      CREATE TABLE input_images (
        input_id TEXT NOT NULL,
        idx INTEGER NOT NULL,
        media_type TEXT NOT NULL,
        data BLOB NOT NULL,
        PRIMARY KEY (input_id, idx)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE entry_images (
        session_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        field TEXT NOT NULL,
        media_type TEXT NOT NULL,
        data BLOB NOT NULL,
        PRIMARY KEY (session_id, position, field)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE runs (
        id TEXT PRIMARY KEY NOT NULL,
        session_id TEXT NOT NULL,
        grp INTEGER NOT NULL,
        through_order INTEGER NOT NULL,
        start_generation INTEGER NOT NULL,
        start_seq INTEGER NOT NULL,
        started_at TEXT NOT NULL,
        ended_at TEXT,
        outcome TEXT,
        problem TEXT
      ) STRICT;
      CREATE INDEX runs_open ON runs(session_id) WHERE ended_at IS NULL;

      ALTER TABLE entries ADD COLUMN grp INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE sessions ADD COLUMN input_order INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE sessions ADD COLUMN run_id TEXT;
      ALTER TABLE sessions ADD COLUMN run_count INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE sessions ADD COLUMN interrupt_requested INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE sessions ADD COLUMN latest_input TEXT;
      ALTER TABLE sessions ADD COLUMN latest_answer TEXT;
      ALTER TABLE sessions ADD COLUMN usage TEXT;
    `)
  },
}
