// state.db: the daemon is its single writer. WAL lets readers (storage reports, streams)
// run beside the writer; synchronous=NORMAL is safe in WAL for everything that may be
// replayed, and writes that acknowledge a client raise it to FULL for their transaction.

import Database from 'better-sqlite3'
import { startIdleCheckpoints, WAL_AUTOCHECKPOINT_PAGES } from './checkpoints.ts'
import { checkNumbering, MIGRATIONS, type Migration } from './migrations/index.ts'

export type Db = Database.Database

export function openDatabase(path: string): Db {
  const db = new Database(path, { timeout: 5000 })
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('foreign_keys = ON')
  db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`) // see checkpoints.ts
  // 2 MB of page cache, not better-sqlite3's 16 MB: listings walk indexes a page at a time and
  // the rest comes from the OS cache in microseconds (docs/performance.md, Memory).
  db.pragma('cache_size = -2000')
  return db
}

/**
 * Runs `fn` with `synchronous = FULL`: a transaction it commits is fsynced, so what a client
 * is answered about survives power loss (kill -9 alone needs only WAL and NORMAL).
 */
export function fullySynced<T>(db: Db, fn: () => T): T {
  db.pragma('synchronous = FULL')
  try {
    return fn()
  } finally {
    db.pragma('synchronous = NORMAL')
  }
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number
}

/** The file was written by a newer hearth: this one must not touch it. */
export class SchemaTooNewError extends Error {
  readonly found: number
  readonly supported: number
  constructor(found: number, supported: number) {
    super(
      `state.db is at schema version ${found}, newer than this hearth supports (${supported}); upgrade hearth`,
    )
    this.name = 'SchemaTooNewError'
    this.found = found
    this.supported = supported
  }
}

/**
 * Applies every migration newer than the file, each in its own transaction (the migration
 * and the user_version bump commit together or not at all), forward only. `target` stops
 * early, for tests that build a database as an older hearth left it.
 */
export function migrate(
  db: Db,
  migrations: readonly Migration[] = MIGRATIONS,
  target = migrations.length,
): number {
  checkNumbering(migrations)
  if (!Number.isInteger(target) || target < 0 || target > migrations.length) {
    throw new RangeError(`migration target ${target} is outside 0..${migrations.length}`)
  }
  const current = schemaVersion(db)
  if (current > migrations.length) throw new SchemaTooNewError(current, migrations.length)
  for (const m of migrations.slice(current, target)) {
    try {
      db.transaction(() => {
        m.up(db)
        db.pragma(`user_version = ${m.version}`)
      })()
    } catch (err) {
      throw new Error(`state.db migration ${m.version} (${m.name}) failed: ${(err as Error).message}`, {
        cause: err,
      })
    }
  }
  return schemaVersion(db)
}

/** The daemon's store: opened, migrated, checkpointed when writes pause. */
export function openStore(path: string): Db {
  const db = openDatabase(path)
  migrate(db)
  startIdleCheckpoints(db)
  return db
}

/** A value in the meta table, created by `make` the first time it is asked for. */
export function metaValue(db: Db, key: string, make: () => Buffer): Buffer {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: Buffer } | undefined
  if (row) return row.value
  const value = make()
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(key, value)
  return value
}
