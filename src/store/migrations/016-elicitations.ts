import type { Migration } from './index.ts'

/**
 * Questions MCP servers ask the person (docs/mcp.md): durable like approvals, answered by
 * inputs of kind `elicitation`. `params` holds the form's requested schema, or the URL and
 * the server's elicitation id; the answer's content is in the input that gave it.
 */
export const m016Elicitations: Migration = {
  version: 16,
  name: 'elicitations',
  up(db) {
    db.exec(`
      CREATE TABLE elicitations (
        id TEXT PRIMARY KEY NOT NULL,
        session_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        call_id TEXT NOT NULL,
        server TEXT NOT NULL,
        mode TEXT NOT NULL, -- form, url
        message TEXT NOT NULL,
        params TEXT NOT NULL,
        state TEXT NOT NULL, -- pending, accepted, declined, cancelled, expired
        created_at TEXT NOT NULL,
        answered_at TEXT,
        answered_by TEXT -- the input that answered it; null when it expired
      ) STRICT;
      CREATE INDEX elicitations_pending ON elicitations(session_id) WHERE state = 'pending';
    `)
  },
}
