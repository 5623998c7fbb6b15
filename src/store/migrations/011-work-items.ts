import { IMAGES, SENT_CHARS } from './010-context-compaction.ts'
import type { Migration } from './index.ts'

/** A note's characters: its text, which the model reads with the user message it precedes. */
const NOTE_OR_SENT = (c: string, kind: string) =>
  `CASE WHEN ${kind} = 'note' THEN COALESCE(length(json_extract(${c}, '$.text')), 0) ELSE ${SENT_CHARS(c, kind)} END`

/**
 * Extensions `work` and `paperclips`: work items per workspace, the notes queued for a
 * session's next run, and clips (newest first by `seq`).
 *
 * - An item's `revision` counts its edits (the ETag); `seq` orders a workspace's items
 *   oldest first and is the listing's keyset.
 * - A parent must be an item of the same workspace; an item with children cannot be
 *   deleted, so the foreign key never dangles.
 * - `session_notes` holds notes waiting for their session's next run, which takes them into
 *   its history (kind `note`) in the transaction that starts it. The model reads a note
 *   with the user message after it, so `entry_sizes` counts it as part of that run's user
 *   text (the trigger is made again with that one case added).
 */
export const m011WorkItems: Migration = {
  version: 11,
  name: 'work-items-and-paperclips',
  up(db) {
    db.exec(`
      CREATE TABLE work_items (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        workspace TEXT NOT NULL,
        title TEXT NOT NULL,
        notes TEXT NOT NULL,
        parent_id TEXT REFERENCES work_items(id),
        session_id TEXT,
        run_id TEXT,
        status TEXT NOT NULL,
        revision INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX work_items_by_workspace ON work_items(workspace, seq);
      CREATE INDEX work_items_by_parent ON work_items(parent_id) WHERE parent_id IS NOT NULL;

      CREATE TABLE session_notes (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL,
        source TEXT NOT NULL,
        text TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX session_notes_by_session ON session_notes(session_id, seq);

      CREATE TABLE paperclips (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        text TEXT NOT NULL,
        label TEXT,
        workspace TEXT,
        session_id TEXT,
        created_at TEXT NOT NULL
      );

      DROP TRIGGER entry_sizes_insert;
      CREATE TRIGGER entry_sizes_insert AFTER INSERT ON entries BEGIN
        INSERT OR REPLACE INTO entry_sizes (session_id, position, grp, kind, chars, images)
        VALUES (NEW.session_id, NEW.position, NEW.grp, CASE NEW.kind WHEN 'note' THEN 'user' ELSE NEW.kind END,
          ${NOTE_OR_SENT('NEW.content', 'NEW.kind')}, ${IMAGES('NEW.content')});
      END;
    `)
  },
}
