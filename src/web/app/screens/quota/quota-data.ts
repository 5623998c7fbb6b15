// The quota readings as the screen draws them (protocol 3, "Quota read path"): the latest
// reading of each account's limits from GET /server, and each limit's trail read back as far
// as its window (one day at least, a week at most) in at most five pages of 200, newest first
// (the same rules as src/client/quota.ts). A reading is stale when older than 30 minutes or
// past its reset.
import type { QuotaReading } from '../../../../schemas/server.ts'
import type { ApiClient } from '../../api/client.ts'

const DAY_S = 86_400
const WEEK_S = 7 * DAY_S
const PAGE_ROWS = 200
const MAX_PAGES = 5
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

export interface Trail {
  /** Oldest first. */
  readings: QuotaReading[]
  since: number
  /** Five pages did not reach `since`: the oldest readings are left out. */
  capped: boolean
}

export async function readTrail(client: ApiClient, r: QuotaReading, now: number): Promise<Trail> {
  const since = now - Math.min(WEEK_S, Math.max(DAY_S, r.window_seconds ?? DAY_S)) * 1000
  const newestFirst: QuotaReading[] = []
  let next: string | undefined
  let pages = 0
  do {
    const { body } = await client.call('server.get', {
      query: {
        include: 'quota_history',
        quota_provider: r.provider,
        quota_account: r.account,
        quota_limit: r.limit_id,
        quota_since: new Date(since).toISOString(),
        limit: PAGE_ROWS,
        ...(next ? { next } : {}),
      },
    })
    pages++
    newestFirst.push(...(body.quota_history?.items ?? []))
    next = body.quota_history?.next ?? undefined
  } while (next && pages < MAX_PAGES)
  return { readings: newestFirst.reverse(), since, capped: next !== undefined }
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
export function resetsOf(trail: Trail, latest: QuotaReading): number[] {
  const all = new Set<number>()
  for (const r of [...trail.readings, latest]) if (r.reset_at_ms !== null) all.add(r.reset_at_ms)
  return [...all].sort((a, b) => a - b)
}
