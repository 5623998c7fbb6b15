// state.db: the daemon is its single writer. WAL lets readers (storage reports, streams)
// run beside the writer; synchronous=NORMAL is safe in WAL for everything that may be
// replayed, and writes that acknowledge a client raise it to FULL for their transaction.
import Database from 'better-sqlite3'
import { MIGRATIONS, type Migration } from './migrations/index.ts'

export type Db = Database.Database

export function openDatabase(path: string): Db {
  const db = new Database(path, { timeout: 5000 })
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('foreign_keys = ON')
  return db
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number
}

/** Applies every migration newer than the file, each in its own transaction, forward only. */
export function migrate(
  db: Db,
  migrations: readonly Migration[] = MIGRATIONS,
  target = migrations.length,
): number {
  const current = schemaVersion(db)
  if (current > migrations.length) {
    throw new Error(
      `state.db is at schema ${current}, newer than this hearth (${migrations.length}); upgrade hearth`,
    )
  }
  for (const m of migrations.slice(current, target)) {
    db.transaction(() => {
      m.up(db)
      db.pragma(`user_version = ${m.version}`)
    })()
  }
  return schemaVersion(db)
}

export function openStore(path: string): Db {
  const db = openDatabase(path)
  migrate(db)
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
