import type { Migration } from './index.ts'

/**
 * The session tree, its event log, visits, the search index and tombstones.
 * `events` is the durable log every stream replays from: (session_id, generation, seq).
 */
export const m002Sessions: Migration = {
  version: 2,
  name: 'sessions',
  up(db) {
    db.exec(`
      CREATE TABLE families (
        root_id TEXT PRIMARY KEY NOT NULL,
        revision INTEGER NOT NULL,
        deleting TEXT -- id of the session whose subtree deletion runs; gates new members
      ) STRICT;

      CREATE TABLE sessions (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        parent_id TEXT REFERENCES sessions(id),
        root_id TEXT NOT NULL REFERENCES families(root_id),
        depth INTEGER NOT NULL,
        name TEXT NOT NULL,
        automatic_name TEXT NOT NULL,
        workspace TEXT NOT NULL,
        provider_profile TEXT NOT NULL,
        model TEXT NOT NULL,
        effort TEXT,
        pinned INTEGER NOT NULL DEFAULT 0,
        pin_order INTEGER,
        archived INTEGER NOT NULL DEFAULT 0,
        opens INTEGER NOT NULL DEFAULT 0,
        selection TEXT NOT NULL,
        catalog_revision TEXT,
        revision INTEGER NOT NULL,
        desired_revision INTEGER NOT NULL,
        loaded_revision INTEGER,
        creation TEXT NOT NULL,
        created_at TEXT NOT NULL,
        activity_ms INTEGER NOT NULL,
        phase TEXT NOT NULL DEFAULT 'idle',
        workspace_change TEXT,
        preview_text TEXT NOT NULL DEFAULT '',
        transcript_count INTEGER NOT NULL DEFAULT 0,
        generation INTEGER NOT NULL DEFAULT 1,
        seq INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE INDEX sessions_by_parent ON sessions(parent_id, activity_ms DESC, id DESC);
      CREATE INDEX sessions_by_root ON sessions(root_id, activity_ms DESC, id DESC);
      CREATE INDEX sessions_by_activity ON sessions(activity_ms DESC, id DESC);
      CREATE INDEX sessions_by_opens ON sessions(opens DESC, activity_ms DESC, id DESC);

      CREATE TABLE events (
        session_id TEXT NOT NULL,
        generation INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        at TEXT NOT NULL,
        payload TEXT NOT NULL,
        PRIMARY KEY (session_id, generation, seq)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE visits (
        session_id TEXT NOT NULL,
        visit_id TEXT NOT NULL,
        visited_at TEXT NOT NULL,
        opens INTEGER NOT NULL,
        PRIMARY KEY (session_id, visit_id)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE entries (
        session_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        kind TEXT NOT NULL,
        created_at TEXT NOT NULL,
        content TEXT NOT NULL,
        PRIMARY KEY (session_id, position)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE deleted_sessions (
        id TEXT PRIMARY KEY NOT NULL,
        deleted_at TEXT NOT NULL
      ) STRICT, WITHOUT ROWID;

      CREATE VIRTUAL TABLE session_search USING fts5(name, preview, content='', contentless_delete=1, tokenize='trigram');
    `)
  },
}
