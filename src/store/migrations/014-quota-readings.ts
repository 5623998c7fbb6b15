import type { Migration } from './index.ts'

/**
 * Provider usage readings as the quota poller recorded them, raw: one row per account and
 * limit of each report (docs/quota.md). `id` orders them (history pages are keyed by it);
 * the trail index serves both one limit's trail and the latest reading of each limit, and
 * carries the observed time so that a trail read since a time is filtered in the index
 * alone. The observed index lets retention delete old readings without a scan.
 */
export const m014QuotaReadings: Migration = {
  version: 14,
  name: 'quota-readings',
  up(db) {
    db.exec(`
      CREATE TABLE quota_readings (
        id INTEGER PRIMARY KEY,
        account TEXT NOT NULL,
        provider TEXT NOT NULL,
        plan TEXT,
        limit_id TEXT NOT NULL,
        limit_label TEXT,
        used_percent REAL,
        window_label TEXT,
        window_seconds INTEGER,
        reset_at_ms INTEGER,
        scope TEXT,
        status TEXT,
        error TEXT,
        observed_at_ms INTEGER NOT NULL,
        source TEXT NOT NULL DEFAULT 'poll'
      ) STRICT;
      CREATE INDEX quota_readings_trail ON quota_readings (provider, account, limit_id, id, observed_at_ms);
      CREATE INDEX quota_readings_observed ON quota_readings (observed_at_ms);
    `)
  },
}
