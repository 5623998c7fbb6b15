import type { Migration } from './index.ts'

/** The first non-blank line of a message, white space folded, at most 60 characters. */
function nameOf(text: string): string {
  const clean = (l: string) => l.replace(/[\u0000-\u001f\u007f\s]+/g, ' ').trim()
  const line =
    text
      .slice(0, 4096)
      .split(/\r?\n/)
      .map(clean)
      .find((l) => l !== '') ?? ''
  const points = [...line]
  return points.length <= 60 ? line : `${points.slice(0, 59).join('').trimEnd()}…`
}

function textOf(content: string): string | undefined {
  try {
    const text = (JSON.parse(content) as { text?: unknown })?.text
    return typeof text === 'string' ? text : undefined
  } catch {
    return undefined // not written by hearth: left unnamed
  }
}

/**
 * What session reads show that rows did not hold:
 * - `preview_truncated`: whether the preview is a cut. Previews were cut at 200 UTF-16 units
 *   without a record of it; one that long is taken to be a cut.
 * - `automatic_name` of sessions that had an exchange before names were derived from it:
 *   from the first user message (the daemon's rule, except that a long line is cut without
 *   looking for a word boundary).
 * - creation kind `forked`, the protocol's word, where `fork` was stored (the rows and the
 *   `session.created` event their streams replay).
 */
export const m008SessionReads: Migration = {
  version: 8,
  name: 'session-reads',
  up(db) {
    db.exec(`
      ALTER TABLE sessions ADD COLUMN preview_truncated INTEGER NOT NULL DEFAULT 0;
      UPDATE sessions SET preview_truncated = 1 WHERE length(preview_text) >= 200;
      UPDATE events SET payload = json_set(payload, '$.creation.submitted.kind', 'forked')
        WHERE kind = 'session.created'
          AND session_id IN (SELECT id FROM sessions
            WHERE json_valid(creation) AND json_extract(creation, '$.submitted.kind') = 'fork')
          AND json_valid(payload) AND json_extract(payload, '$.creation.submitted.kind') = 'fork';
      UPDATE sessions SET creation = json_set(creation, '$.submitted.kind', 'forked')
        WHERE json_valid(creation) AND json_extract(creation, '$.submitted.kind') = 'fork';
    `)
    const unnamed = db
      .prepare(
        `SELECT s.id, e.content FROM sessions s JOIN entries e ON e.session_id = s.id
         WHERE s.automatic_name = '' AND e.position =
           (SELECT MIN(position) FROM entries WHERE session_id = s.id AND kind = 'user')`,
      )
      .all() as { id: string; content: string }[]
    const name = db.prepare('UPDATE sessions SET automatic_name = ? WHERE id = ?')
    for (const u of unnamed) {
      const text = textOf(u.content)
      if (text !== undefined) name.run(nameOf(text), u.id)
    }
  },
}
