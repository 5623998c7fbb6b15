import type { Migration } from './index.ts'

/**
 * Characters an entry sends in a model request, measured from its content (`c`); content
 * that is not JSON counts nothing rather than failing the insert.
 */
export const SENT_CHARS = (
  c: string,
  kind: string,
) => `CASE WHEN NOT json_valid(${c}) THEN 0 ELSE CASE ${kind}
    WHEN 'user' THEN COALESCE(length(json_extract(${c}, '$.text')), 0)
    WHEN 'assistant' THEN COALESCE(length(json_extract(${c}, '$.text')), 0)
      + CASE WHEN json_array_length(${c}, '$.tool_calls') > 0 THEN length(json_extract(${c}, '$.tool_calls')) ELSE 0 END
      + COALESCE(length(json_extract(${c}, '$.replay')), 0)
    WHEN 'tool_result' THEN COALESCE(length(json_extract(${c}, '$.output')), 0)
    ELSE 0 END END`
export const IMAGES = (c: string) =>
  `CASE WHEN json_valid(${c}) THEN COALESCE(json_array_length(${c}, '$.images'), 0) ELSE 0 END`

/**
 * Context inspection and compaction.
 *
 * - A compaction is a history entry of kind `compaction` (its summary and the positions it
 *   covers travel with the entry, so a fork copies them); the partial index finds a
 *   session's latest one without reading its history.
 * - `entry_sizes` holds what each entry sends (characters, images), filled by triggers on
 *   every insert (whichever code inserts, forks included) and backfilled here, so a context
 *   estimate sums small rows instead of parsing every entry's JSON.
 * - The group index answers a session's next display group (MAX(grp)) without reading every
 *   entry: grp sits after the content in each row, so a scan read every entry's text.
 * - The session keeps the compaction strategy it chose (null follows the `compaction`
 *   settings), and `context_requests` records each model request a session sent.
 */
export const m010ContextCompaction: Migration = {
  version: 10,
  name: 'context-compaction',
  up(db) {
    db.exec(`
      CREATE INDEX entries_compactions ON entries(session_id, position) WHERE kind = 'compaction';
      CREATE INDEX entries_by_group ON entries(session_id, grp);
      ALTER TABLE sessions ADD COLUMN compaction_strategy TEXT;

      CREATE TABLE entry_sizes (
        session_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        grp INTEGER NOT NULL,
        kind TEXT NOT NULL,
        chars INTEGER NOT NULL,
        images INTEGER NOT NULL,
        PRIMARY KEY (session_id, position)
      ) STRICT, WITHOUT ROWID;
      CREATE TRIGGER entry_sizes_insert AFTER INSERT ON entries BEGIN
        INSERT OR REPLACE INTO entry_sizes (session_id, position, grp, kind, chars, images)
        VALUES (NEW.session_id, NEW.position, NEW.grp, NEW.kind, ${SENT_CHARS('NEW.content', 'NEW.kind')}, ${IMAGES('NEW.content')});
      END;
      CREATE TRIGGER entry_sizes_delete AFTER DELETE ON entries BEGIN
        DELETE FROM entry_sizes WHERE session_id = OLD.session_id AND position = OLD.position;
      END;
      INSERT INTO entry_sizes (session_id, position, grp, kind, chars, images)
        SELECT session_id, position, grp, kind, ${SENT_CHARS('content', 'kind')}, ${IMAGES('content')} FROM entries;

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
