import type { Migration } from './index.ts'

/**
 * Tools and approvals: approval requests (durable, decided by inputs of kind `approval`),
 * the session's approval policy (null follows the `tools` settings) and the tools it
 * allowed for the rest of the session, what blocks its run now, and the kind of an input.
 */
export const m009Approvals: Migration = {
  version: 9,
  name: 'approvals',
  up(db) {
    db.exec(`
      CREATE TABLE approvals (
        id TEXT PRIMARY KEY NOT NULL,
        session_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        call_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        summary TEXT NOT NULL,
        effect TEXT NOT NULL,
        arguments TEXT NOT NULL,
        state TEXT NOT NULL, -- pending, allowed, denied, expired
        created_at TEXT NOT NULL,
        decided_at TEXT,
        decided_by TEXT -- the input that decided it; null when it expired
      ) STRICT;
      CREATE INDEX approvals_pending ON approvals(session_id) WHERE state = 'pending';

      ALTER TABLE sessions ADD COLUMN approval_policy TEXT;
      ALTER TABLE sessions ADD COLUMN tool_allows TEXT NOT NULL DEFAULT '[]';
      ALTER TABLE sessions ADD COLUMN blocking_reason TEXT;
      ALTER TABLE inputs ADD COLUMN kind TEXT NOT NULL DEFAULT 'message';
    `)
  },
}
