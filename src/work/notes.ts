// Notes for a session: short texts an extension leaves for the session's next run (a work
// item deleted, say). A note waits in `session_notes` until the session's next run takes it
// into its history as an entry of kind `note`, just before that run's user messages, in the
// transaction that starts the run (runs/start.ts); the model reads it with them.

import type { Statement } from 'better-sqlite3'
import { HearthError } from '../schemas/problems.ts'
import type { WorkNotification } from '../schemas/work.ts'
import { type Db, fullySynced } from '../store/db.ts'

/** Longest note text kept. */
export const NOTE_MAX_CHARS = 4096

export interface NoteQueue {
  db: Db
  now: () => number
  /** Throws session_not_found / session_deleted unless the session exists. */
  requireSession: (id: string) => void
}

/** Queues `text` for `sessionId`, committed with an fsync; says why when it cannot. */
export function queueNote(q: NoteQueue, sessionId: string, text: string, source = 'work'): WorkNotification {
  try {
    q.requireSession(sessionId)
    const insert = q.db.prepare(
      'INSERT INTO session_notes (session_id, source, text, created_at) VALUES (?, ?, ?, ?)',
    )
    fullySynced(q.db, () =>
      insert.run(sessionId, source, text.slice(0, NOTE_MAX_CHARS), new Date(q.now()).toISOString()),
    )
    return { state: 'queued', code: null, detail: null }
  } catch (err) {
    if (err instanceof HearthError) return { state: 'failed', code: err.code, detail: err.message }
    return { state: 'failed', code: 'internal', detail: 'The note could not be written' }
  }
}

export interface TakenNote {
  source: string
  text: string
  created_at: string
}

/**
 * Takes every note waiting for `sessionId`, oldest first (inside the caller's transaction).
 * `sql` gives the statements prepared once (SessionsCore.sql): every run's start asks.
 */
export function takeNotes(sql: (text: string) => Statement, sessionId: string): TakenNote[] {
  const notes = sql(
    'SELECT source, text, created_at FROM session_notes WHERE session_id = ? ORDER BY seq',
  ).all(sessionId) as TakenNote[]
  if (notes.length > 0) sql('DELETE FROM session_notes WHERE session_id = ?').run(sessionId)
  return notes
}
