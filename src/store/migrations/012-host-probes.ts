import type { Migration } from './index.ts'

/**
 * The outcome of each host's last probe (docs/hosts.md). A probe interrupted by a restart
 * left `probing`: the next start reads it as never finished (`started_at` without
 * `checked_at` is shown as `unreachable` with a note, see hosts/service.ts).
 */
export const m012HostProbes: Migration = {
  version: 12,
  name: 'host-probes',
  up(db) {
    db.exec(`
      CREATE TABLE host_probes (
        host TEXT PRIMARY KEY NOT NULL,
        state TEXT NOT NULL,
        started_at TEXT,
        checked_at TEXT,
        detail TEXT,
        system TEXT,
        hearth TEXT
      ) STRICT, WITHOUT ROWID;
    `)
  },
}
