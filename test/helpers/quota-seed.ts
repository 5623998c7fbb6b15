// Stored quota readings for tests: rows recorded into a home's state.db through the store,
// opened as the daemon opens it (migrations applied), before the daemon starts.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { ReadingRow } from '../../src/quota/readings.ts'
import { QuotaStore } from '../../src/quota/store.ts'
import { migrate, openDatabase } from '../../src/store/db.ts'

/** A reading of a limit as the poller would record it; `observed_at_ms` is required. */
export function readingRow(fields: Partial<ReadingRow> & { observed_at_ms: number }): ReadingRow {
  return {
    account: 'a@example.test',
    provider: 'codex',
    plan: 'plus',
    limit_id: 'primary',
    limit_label: 'Session',
    used_percent: 10,
    window_label: '5h',
    window_seconds: 18_000,
    reset_at_ms: fields.observed_at_ms + 3_600_000,
    scope: null,
    status: 'none',
    error: null,
    source: 'poll',
    ...fields,
  }
}

/** A failed poll that reported no limits (limit id ''). */
export function failureRow(fields: Partial<ReadingRow> & { observed_at_ms: number }): ReadingRow {
  return readingRow({
    limit_id: '',
    limit_label: null,
    used_percent: null,
    window_label: null,
    window_seconds: null,
    reset_at_ms: null,
    status: null,
    error: 'Unauthorized (401)',
    ...fields,
  })
}

/**
 * Records `polls` into `<home>/state.db`, one transaction per poll in the order given (row
 * ids follow it). The home must not have a daemon running.
 */
export function seedQuota(home: string, polls: readonly (readonly ReadingRow[])[]): void {
  mkdirSync(home, { recursive: true })
  const db = openDatabase(join(home, 'state.db'))
  try {
    migrate(db)
    // A clock far ahead of the rows would prune them: seeding keeps what it is given.
    const store = new QuotaStore(db, { retentionMs: Number.MAX_SAFE_INTEGER })
    for (const rows of polls) store.record(rows)
  } finally {
    db.close()
  }
}
