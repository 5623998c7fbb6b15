// WAL checkpoints in quiet moments. A checkpoint copies the WAL into state.db and syncs it;
// SQLite's automatic one runs inside whichever commit crosses the threshold, so that request
// (and the whole event loop) waits for the copy and two fsyncs: ~20 ms per 1,000 pages on
// the development VM, where a session create writes ~20 pages. Here a timer notices when
// the connection has stopped writing and checkpoints then; the automatic checkpoint stays
// as a backstop for writing that never pauses, at a higher threshold so it interrupts
// sustained load less often (docs/performance.md, Sessions).
import type { Db } from './db.ts'

/** Backstop: the automatic checkpoint's threshold in pages (SQLite's default is 1,000). */
export const WAL_AUTOCHECKPOINT_PAGES = 4000

export interface IdleCheckpointOptions {
  /** How often to look for writes (ms). */
  pollMs?: number
  /** Quiet time after the last write before checkpointing (ms). */
  idleMs?: number
}

export interface IdleCheckpoints {
  /** Checkpoints run so far. */
  readonly count: number
  stop: () => void
}

/**
 * Checkpoints (PASSIVE: never waits for readers or blocks the writer) once `idleMs` passed
 * without a write on this connection. Writes are seen through total_changes(), which counts
 * every row this connection inserted, updated or deleted. The timer does not keep the
 * process alive and ends by itself when the database is closed.
 */
export function startIdleCheckpoints(db: Db, o: IdleCheckpointOptions = {}): IdleCheckpoints {
  const pollMs = o.pollMs ?? 100
  const idleMs = o.idleMs ?? 250
  const changes = db.prepare('SELECT total_changes()').pluck()
  let seen = changes.get() as number
  let pending = false
  let quietSince = 0
  let count = 0
  const timer = setInterval(() => {
    if (!db.open) return clearInterval(timer)
    const now = performance.now()
    const total = changes.get() as number
    if (total !== seen) {
      seen = total
      pending = true
      quietSince = now
      return
    }
    if (!pending || now - quietSince < idleMs) return
    pending = false
    try {
      db.pragma('wal_checkpoint(PASSIVE)')
      count++
    } catch {
      // Busy or closing: the next write schedules another attempt, and the automatic
      // checkpoint remains.
    }
  }, pollMs)
  timer.unref()
  return {
    get count() {
      return count
    },
    stop: () => clearInterval(timer),
  }
}
