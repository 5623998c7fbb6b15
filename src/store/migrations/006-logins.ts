import type { Migration } from './index.ts'

/**
 * Sign-in flows. A login's identity and intent survive a restart (an unfinished one then
 * ends as failed with `daemon_restarted`); its PKCE verifier, state and callback never
 * reach this table: they live in the daemon's memory for the flow's five minutes.
 */
export const m006Logins: Migration = {
  version: 6,
  name: 'logins',
  up(db) {
    db.exec(`
      CREATE TABLE logins (
        id TEXT PRIMARY KEY,
        provider TEXT NOT NULL,
        flow TEXT NOT NULL,
        intent TEXT NOT NULL,
        state TEXT NOT NULL,
        url TEXT NOT NULL,
        instructions TEXT NOT NULL,
        progress TEXT NOT NULL,
        accounts TEXT NOT NULL DEFAULT '[]',
        failure TEXT,
        revision INTEGER NOT NULL DEFAULT 1,
        created_ms INTEGER NOT NULL,
        expires_ms INTEGER NOT NULL,
        ended_ms INTEGER -- when it became terminal; pruned fifteen minutes later
      ) STRICT;
      CREATE INDEX logins_unfinished ON logins(state) WHERE ended_ms IS NULL;
      CREATE INDEX logins_ended ON logins(ended_ms) WHERE ended_ms IS NOT NULL;
    `)
  },
}
