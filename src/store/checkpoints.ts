// WAL checkpoints in quiet moments. A checkpoint copies the WAL into state.db and syncs it;
// SQLite's automatic one runs inside whichever commit crosses the threshold, so that request
// (and the whole event loop) waits for the copy and two fsyncs: ~20 ms per 1,000 pages on
// the development VM, where a session create writes ~20 pages. Here a timer notices when
// the connection has stopped writing and checkpoints then; the automatic checkpoint stays
// as a backstop for writing that never pauses, at a higher threshold so it interrupts
// sustained load less often (docs/performance.md, Sessions).
//
// While writing goes on, the WAL is also flushed to disk on the thread pool each poll: a
// checkpoint starts by syncing the WAL, and that sync (on the event loop) otherwise has to
// write everything since the last checkpoint: ~30 ms of the ~40 ms a 4,000-page backstop
// checkpoint took here. The same flusher makes an admission durable (syncWal): its commit
// does not sync inline, its fdatasync runs here while the event loop goes on
// (inputs/group-commit.ts).
import { closeSync, fdatasync, openSync } from 'node:fs'
import type { Db } from './db.ts'

/**
 * Backstop: the automatic checkpoint's threshold in pages (SQLite's default is 1,000). At
 * 16,000 (a 64 MB WAL) writing that never pauses stops for a checkpoint every ~800 session
 * creates instead of ~200; since pages written again between checkpoints are copied once,
 * each stop took about as long as at 4,000 (14–32 ms against 15–30 here), and create p99
 * over 1,000 creates fell from 6.9–10.5 to 3.5–6.8 ms in four paired runs.
 */
export const WAL_AUTOCHECKPOINT_PAGES = 16_000

/** Each connection's WAL flusher, for flushWal. */
const flushers = new WeakMap<Db, WalFlusher>()

/**
 * Flushes the WAL on the thread pool now (when idle checkpoints run on `db`): the fsynced
 * commit of the next admission then writes only its own pages (a run's end writes ~100
 * that would otherwise wait in the page cache for the next fsync, ~0.4 ms of it here).
 */
export function flushWal(db: Db): void {
  flushers.get(db)?.flush()
}

/**
 * Makes what `db` has committed so far durable: an fdatasync of the WAL, begun after this
 * call, on the thread pool (the event loop goes on meanwhile). Undefined when `db` has no
 * flusher (no idle checkpoints run on it): its commits must then sync themselves.
 */
export function syncWal(db: Db): Promise<void> | undefined {
  return flushers.get(db)?.sync()
}

/** Whether syncWal can sync `db`'s commits (idle checkpoints run on it). */
export function walSyncs(db: Db): boolean {
  return flushers.has(db)
}

export interface IdleCheckpointOptions {
  /** How often to look for writes (ms). */
  pollMs?: number
  /** Quiet time after the last write before checkpointing (ms). */
  idleMs?: number
  /** The clock, read once per poll (ms); performance.now unless a test moves time by hand. */
  now?: () => number
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
  const clock = o.now ?? (() => performance.now())
  const changes = db.prepare('SELECT total_changes()').pluck()
  let seen = changes.get() as number
  let pending = false
  let quietSince = 0
  let count = 0
  const wal = new WalFlusher(`${db.name}-wal`)
  flushers.set(db, wal)
  const timer = setInterval(() => {
    if (!db.open) {
      wal.close()
      return clearInterval(timer)
    }
    const now = clock()
    const total = changes.get() as number
    if (total !== seen) {
      seen = total
      pending = true
      quietSince = now
      wal.flush()
      return
    }
    if (!pending || now - quietSince < idleMs) return
    pending = false
    try {
      const [result] = db.pragma('wal_checkpoint(PASSIVE)') as WalCheckpoint[]
      count++
      if (result.busy === 0 && result.checkpointed === result.log) restartWal(db)
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
    stop: () => {
      clearInterval(timer)
      wal.close()
    },
  }
}

/** What `PRAGMA wal_checkpoint` answers: busy, frames in the WAL, frames copied. */
interface WalCheckpoint {
  busy: number
  log: number
  checkpointed: number
}

/**
 * Starts the WAL over now, while nothing waits. The first commit after a whole WAL was
 * copied restarts it, writing a new WAL header that SQLite syncs on its own: left to the next
 * admission, its fsynced commit would pay two syncs instead of one (strace shows both). A
 * rewrite of user_version with its own value is the smallest write there is (the header
 * page, one frame); it changes no row, so total_changes() does not see it as a write.
 */
function restartWal(db: Db): void {
  const version = db.pragma('user_version', { simple: true }) as number
  db.pragma(`user_version = ${version}`)
}

/**
 * fdatasync of the WAL file on the thread pool, one at a time (one asked for meanwhile
 * runs after it), through a read-only descriptor of its own. Closing a descriptor drops
 * every POSIX lock the process holds on that file, which is why nothing else here opens
 * state.db; SQLite keeps its locks on the database and -shm files, none on the WAL, so
 * this descriptor may come and go.
 */
class WalFlusher {
  readonly #path: string
  #fd: number | undefined
  #busy = false
  #again = false
  #closed = false
  /** Waiting for the flush under way, and for the next one (pages written after it began). */
  #running: Waiter[] = []
  #next: Waiter[] = []

  constructor(path: string) {
    this.#path = path
  }

  /** Resolves once a flush begun after this call has ended; rejects if it failed. */
  sync(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#next.push({ resolve, reject })
      this.flush()
    })
  }

  flush(): void {
    if (this.#closed) {
      this.#settle(this.#next.splice(0), new Error('the store is closed'))
      return
    }
    // Pages written while a flush runs may have missed it: one more follows.
    if (this.#busy) {
      this.#again = true
      return
    }
    if (this.#fd === undefined) {
      try {
        this.#fd = openSync(this.#path, 'r')
      } catch (error) {
        // Not created yet: nothing was committed to it, unless someone waits for a commit.
        this.#settle(this.#next.splice(0), error as Error)
        return
      }
    }
    this.#busy = true
    this.#running = this.#next
    this.#next = []
    fdatasync(this.#fd, (error) => {
      this.#busy = false
      this.#settle(this.#running, error)
      this.#running = []
      if (this.#closed) this.#release()
      if (this.#again || this.#next.length > 0) {
        this.#again = false
        this.flush()
      }
    })
  }

  close(): void {
    this.#closed = true
    if (!this.#busy) {
      this.#release()
      this.#settle(this.#next.splice(0), new Error('the store is closed'))
    }
  }

  #settle(waiters: Waiter[], error: Error | null): void {
    for (const w of waiters) {
      if (error) w.reject(error)
      else w.resolve()
    }
  }

  #release(): void {
    if (this.#fd === undefined) return
    closeSync(this.#fd)
    this.#fd = undefined
  }
}

interface Waiter {
  resolve: () => void
  reject: (error: Error) => void
}
