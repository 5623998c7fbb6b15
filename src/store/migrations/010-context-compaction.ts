import type { Migration } from './index.ts'

/**
 * Context inspection and compaction. A compaction is a history entry of kind `compaction`
 * (its summary and the positions it covers travel with the entry, so a fork copies them);
 * the partial index finds a session's latest one without reading its history. The session
 * keeps the compaction strategy it chose (null follows the `compaction` settings), and
 * `context_requests` records each model request a session sent (bounded per session).
 */
export const m010ContextCompaction: Migration = {
  version: 10,
  name: 'context-compaction',
  up(db) {
    db.exec(`
      CREATE INDEX entries_compactions ON entries(session_id, position) WHERE kind = 'compaction';
      ALTER TABLE sessions ADD COLUMN compaction_strategy TEXT;

      CREATE TABLE context_requests (
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        run_id TEXT,
        purpose TEXT NOT NULL, -- turn, compaction
        sent_at TEXT NOT NULL,
        record TEXT NOT NULL, -- JSON: what the request held (never its text)
        PRIMARY KEY (session_id, seq)
      ) STRICT, WITHOUT ROWID;
    `)
  },
}
