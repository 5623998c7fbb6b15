// Quota readings seeded into a temp home's state.db before its daemon starts, for tests of
// the clients against the real daemon's read path: the store is opened as the daemon opens
// it (openStore, every migration) and the rows go into `quota_readings` as the poller would
// record them, oldest first (ids follow observation time, as polling makes them).
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { openStore } from '../../src/store/db.ts'

export interface SeedReading {
  account?: string
  provider?: string
  plan?: string | null
  limit_id?: string
  limit_label?: string | null
  used_percent?: number | null
  window_label?: string | null
  window_seconds?: number | null
  reset_at_ms?: number | null
  scope?: string | null
  status?: string | null
  error?: string | null
  /** When it was read (epoch ms). */
  observed: number
}

/** A codex session-limit reading of a@example.test unless `r` says otherwise. */
export function seedRow(r: SeedReading) {
  return {
    account: 'a@example.test',
    provider: 'codex',
    plan: 'plus',
    limit_id: 'primary',
    limit_label: 'session',
    used_percent: 10,
    window_label: '5h',
    window_seconds: 18_000,
    reset_at_ms: r.observed + 3_600_000,
    scope: null,
    status: null,
    error: null,
    ...r,
  }
}

/** Inserts `readings` into HOME/state.db (created and migrated when new), oldest first. */
export function seedQuota(home: string, readings: SeedReading[]): void {
  mkdirSync(home, { recursive: true })
  const db = openStore(join(home, 'state.db'))
  try {
    const insert = db.prepare(`
      INSERT INTO quota_readings (account, provider, plan, limit_id, limit_label, used_percent,
        window_label, window_seconds, reset_at_ms, scope, status, error, observed_at_ms, source)
      VALUES (@account, @provider, @plan, @limit_id, @limit_label, @used_percent, @window_label,
        @window_seconds, @reset_at_ms, @scope, @status, @error, @observed, 'poll')`)
    const rows = readings.map(seedRow).sort((a, b) => a.observed - b.observed)
    db.transaction(() => {
      for (const row of rows) insert.run(row)
    })()
  } finally {
    db.close()
  }
}

/**
 * One limit's trail: a reading every `everyMs` from `fromMs` to `toMs` (both included),
 * the percentage of each given by `percent(i)`.
 */
export function trailRows(
  fields: Omit<SeedReading, 'observed' | 'used_percent'>,
  fromMs: number,
  toMs: number,
  everyMs: number,
  percent: (i: number) => number | null,
): SeedReading[] {
  const count = Math.floor((toMs - fromMs) / everyMs) + 1
  return Array.from({ length: count }, (_, i) => ({
    ...fields,
    observed: toMs - (count - 1 - i) * everyMs,
    used_percent: percent(i),
  }))
}
