// The quota readings as the screen groups and marks them (the same rules as
// src/client/quota.ts): the latest readings by account, a reading stale when older than 30
// minutes or past its reset, the resets a trail went through.
import type { QuotaReading } from '../../../../schemas/server.ts'

export const STALE_AFTER_MS = 30 * 60_000

export function isStale(r: Pick<QuotaReading, 'observed_at' | 'reset_at_ms'>, now: number): boolean {
  return now - Date.parse(r.observed_at) > STALE_AFTER_MS || (r.reset_at_ms !== null && now >= r.reset_at_ms)
}

export interface AccountLimits {
  key: string
  provider: string
  account: string
  plan: string | null
  limits: QuotaReading[]
  /** A failed poll that reported no limits, when it is the account's latest word. */
  failure: QuotaReading | undefined
}

/** The latest readings grouped by account, each account's limits shortest window first. */
export function byAccount(readings: QuotaReading[]): AccountLimits[] {
  const out = new Map<string, AccountLimits>()
  for (const r of readings) {
    const key = `${r.provider}\u0000${r.account}`
    const a = out.get(key) ?? {
      key,
      provider: r.provider,
      account: r.account,
      plan: r.plan,
      limits: [],
      failure: undefined,
    }
    if (r.limit_id === '') a.failure = r
    else a.limits.push(r)
    out.set(key, a)
  }
  for (const a of out.values())
    a.limits.sort((x, y) => (x.window_seconds ?? Infinity) - (y.window_seconds ?? Infinity))
  return [...out.values()]
}

/** A readable length of time: 45m, 5h 10m, 3d 4h. */
export function spanText(ms: number): string {
  const m = Math.max(0, Math.round(ms / 60_000))
  if (m < 60) return `${m}m`
  const h = Math.floor(m / 60)
  if (h < 24) return m % 60 ? `${h}h ${m % 60}m` : `${h}h`
  const d = Math.floor(h / 24)
  return h % 24 ? `${d}d ${h % 24}h` : `${d}d`
}

/** The distinct reset times a trail went through (and the next one), for the chart's marks. */
export function resetsOf(trail: { readings: QuotaReading[] }, latest: QuotaReading): number[] {
  const all = new Set<number>()
  for (const r of [...trail.readings, latest]) if (r.reset_at_ms !== null) all.add(r.reset_at_ms)
  return [...all].sort((a, b) => a - b)
}
