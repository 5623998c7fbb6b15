import type { Migration } from './index.ts'

/** Daemon-wide values that must survive restarts (e.g. the continuation signing key). */
export const m001Meta: Migration = {
  version: 1,
  name: 'meta',
  up(db) {
    db.exec(`CREATE TABLE meta (
      key TEXT PRIMARY KEY NOT NULL,
      value BLOB NOT NULL
    ) STRICT`)
  },
}
