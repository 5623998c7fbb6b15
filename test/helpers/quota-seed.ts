// Stored quota readings for tests: rows recorded into a home's state.db through the store,
// opened as the daemon opens it (migrations applied), before the daemon starts. The clients'
// tests describe readings more briefly (SeedReading, seedReadings), seed the same fixture
// (quotaFixture) and start a daemon on such a home (startQuotaDaemon).
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ReadingRow } from '../../src/quota/readings.ts'
import { QuotaStore } from '../../src/quota/store.ts'
import { migrate, openDatabase } from '../../src/store/db.ts'
import { freePort } from '../auth/oidc-peer.ts'
import type { FakeChatgptBackend } from '../fakes/chatgpt-backend.ts'
import { startDaemon, type TestDaemon, tempHome } from './daemon.ts'

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

/** Records `readings` into HOME/state.db in one poll, oldest first (ids follow observation time). */
export function seedReadings(home: string, readings: SeedReading[]): void {
  const rows = [...readings]
    .sort((a, b) => a.observed - b.observed)
    .map(({ observed, ...r }) =>
      // The clients' fixture names its limits in lower case and reports no status.
      readingRow({ limit_label: 'session', status: null, ...r, observed_at_ms: observed }),
    )
  seedQuota(home, [rows])
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

const MIN = 60_000
const HOUR = 60 * MIN
const DAY = 24 * HOUR

/**
 * The readings the clients' tests seed, relative to `now`:
 * - a@example.test (codex, plus): `session` (5h) every 30 minutes for a day, the last 42 %
 *   a minute ago; `weekly` (7d) every 10 minutes for eight days (more than five pages of 200
 *   reach), the last 60 % forty minutes ago (stale by age);
 * - b@example.test (codex): one `session` reading two hours ago with no percentage and its
 *   reset passed (stale, unknown);
 * - c@example.test (claude): a failed poll five minutes ago, no limits.
 */
export function quotaFixture(now: number): SeedReading[] {
  const session = trailRows({ reset_at_ms: now + 2 * HOUR }, now - MIN - DAY, now - MIN, 30 * MIN, (i) =>
    i === 48 ? 42 : (i * 7) % 100,
  )
  const weeklyEnd = now - 40 * MIN
  const weekly = trailRows(
    {
      limit_id: 'secondary',
      limit_label: 'weekly',
      window_label: '7d',
      window_seconds: 604_800,
      reset_at_ms: now + 3 * DAY,
    },
    weeklyEnd - 8 * DAY,
    weeklyEnd,
    10 * MIN,
    (i) => (i === 8 * 144 ? 60 : 20 + (i % 144) * 0.4),
  )
  const unknown: SeedReading = {
    account: 'b@example.test',
    observed: now - 2 * HOUR,
    used_percent: null,
    reset_at_ms: now - HOUR,
  }
  const failed: SeedReading = {
    account: 'c@example.test',
    provider: 'claude',
    plan: null,
    limit_id: '',
    limit_label: null,
    used_percent: null,
    window_label: null,
    window_seconds: null,
    reset_at_ms: null,
    error: 'token expired',
    observed: now - 5 * MIN,
  }
  return [...session, ...weekly, unknown, failed]
}

export interface QuotaHomeOptions {
  readings?: SeedReading[]
  /** extensions.json `quota.enabled`. */
  polling?: boolean
  /** A profile `sub` (the default) of this fake ChatGPT backend, signing in through it. */
  chatgpt?: FakeChatgptBackend
}

/**
 * A real daemon on a temp home holding `readings`. Its usage core is a path that does not
 * exist, so the daemon's own polls (of an account a test signs in) record nothing.
 */
export async function startQuotaDaemon(o: QuotaHomeOptions = {}): Promise<TestDaemon> {
  const home = tempHome('hearth-quota-')
  mkdirSync(home, { recursive: true })
  if (o.chatgpt)
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        providers: {
          default_profile: 'sub',
          profiles: { sub: { extension: 'chatgpt', endpoint: o.chatgpt.backendUrl, model: 'gpt-5.1-codex' } },
          sign_in: { chatgpt: { issuer: o.chatgpt.url, callback_port: await freePort() } },
        },
      }),
    )
  if (o.polling === false)
    writeFileSync(join(home, 'extensions.json'), JSON.stringify({ quota: { enabled: false } }))
  if (o.readings) seedReadings(home, o.readings)
  return startDaemon({ home, env: { HEARTH_USAGE_CORE: join(home, 'no-usage-core') } })
}
