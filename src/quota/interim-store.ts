// INTERIM: the two store methods the poller uses (record, latestOf) and readingsOf, at their
// simplest over migration 14's table, so the poller runs in the daemon and its tests before
// the store lands. src/quota/store.ts (QuotaStore) and src/quota/readings.ts (readingsOf)
// replace this file: services.ts and the poller's tests import those instead, and this file
// goes.
import type { Db } from '../store/db.ts'
import type { UsageReport } from './report.ts'

/** One row of `quota_readings` (without its id). */
export interface ReadingRow {
  account: string
  provider: string
  plan: string | null
  limit_id: string
  limit_label: string | null
  used_percent: number | null
  window_label: string | null
  window_seconds: number | null
  reset_at_ms: number | null
  scope: string | null
  status: string | null
  error: string | null
  observed_at_ms: number
  source: 'poll'
}

type Window = { usedPercent: number; windowMinutes?: number | null; resetsAt?: string | null }

/** One row per limit of the report; a report with an error and no limits is one row under ''. */
export function readingsOf(account: string, report: UsageReport, observedAtMs: number): ReadingRow[] {
  const usage = report.usage ?? null
  const base = {
    account,
    provider: report.provider,
    plan: usage?.identity?.loginMethod ?? usage?.loginMethod ?? null,
    scope: null,
    status: report.status?.indicator ?? null,
    error: report.error?.message ?? null,
    observed_at_ms: observedAtMs,
    source: 'poll' as const,
  }
  const row = (id: string, label: string | null, w: Window, known = true): ReadingRow => {
    const reset = w.resetsAt ? Date.parse(w.resetsAt) : Number.NaN
    const minutes = w.windowMinutes ?? null
    return {
      ...base,
      limit_id: id,
      limit_label: label,
      used_percent: known ? w.usedPercent : null,
      window_label: minutes === null ? null : `${minutes}m`,
      window_seconds: minutes === null ? null : minutes * 60,
      reset_at_ms: Number.isFinite(reset) ? reset : null,
    }
  }
  const rows: ReadingRow[] = []
  for (const id of ['primary', 'secondary', 'tertiary'] as const) {
    const w = usage?.[id]
    if (w) rows.push(row(id, id, w))
  }
  for (const n of usage?.extraRateWindows ?? [])
    rows.push(row(n.id, n.title, n.window, n.usageKnown !== false))
  if (rows.length === 0 && report.error) {
    rows.push({
      ...base,
      limit_id: '',
      limit_label: null,
      used_percent: null,
      window_label: null,
      window_seconds: null,
      reset_at_ms: null,
    })
  }
  return rows
}

const COLUMNS = [
  'account',
  'provider',
  'plan',
  'limit_id',
  'limit_label',
  'used_percent',
  'window_label',
  'window_seconds',
  'reset_at_ms',
  'scope',
  'status',
  'error',
  'observed_at_ms',
  'source',
] as const

export class InterimQuotaStore {
  readonly #db: Db

  constructor(db: Db) {
    this.#db = db
  }

  /** Records one poll's rows in one transaction. */
  record(rows: readonly ReadingRow[]): void {
    const insert = this.#db.prepare(
      `INSERT INTO quota_readings (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((c) => `@${c}`).join(', ')})`,
    )
    this.#db.transaction(() => {
      for (const r of rows) insert.run(r)
    })()
  }

  /** The latest reading of each limit of one account. */
  latestOf(provider: string, account: string): ReadingRow[] {
    return this.#db
      .prepare(
        `SELECT ${COLUMNS.join(', ')} FROM quota_readings WHERE id IN (
           SELECT MAX(id) FROM quota_readings WHERE provider = ? AND account = ? GROUP BY limit_id)`,
      )
      .all(provider, account) as ReadingRow[]
  }
}
