// One daemon per home. The lock is an exclusive SQLite lock on HOME/daemon.lock, which
// SQLite takes with a POSIX advisory lock: the kernel drops it when the holder dies, even
// by kill -9, so a stale lock is taken over by simply acquiring it, with no pid guessing
// and no window where two starters both think they won.
import { chmodSync } from 'node:fs'
import Database from 'better-sqlite3'

export interface DaemonLock {
  release: () => void
}

export function tryAcquireDaemonLock(path: string): DaemonLock | undefined {
  const db = new Database(path, { timeout: 0 })
  chmodSync(path, 0o600)
  try {
    db.pragma('locking_mode = EXCLUSIVE')
    // The file holds no data worth a journal or a sync; only the lock on it matters.
    db.pragma('journal_mode = OFF')
    db.pragma('synchronous = OFF')
    // A write transaction takes the exclusive lock; in EXCLUSIVE locking mode it is kept
    // after commit until the connection closes.
    db.exec('BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS holder (started_at TEXT); COMMIT')
  } catch (err) {
    db.close()
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return undefined
    throw err
  }
  return { release: () => db.close() }
}
