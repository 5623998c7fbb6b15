// A quota limit's trail and the rules clients show readings by (protocol 3, "Quota read
// path"): how far back a trail is read, when a reading is stale, how a span reads. Only types
// of the schemas and a structural client, so the web page uses it as the terminal client does.
import type { QuotaReading } from '../schemas/server.ts'

export const TRAIL_PAGE_ROWS = 200
export const TRAIL_MAX_PAGES = 5
const DAY_S = 86_400
const WEEK_S = 7 * DAY_S
export const STALE_AFTER_MS = 30 * 60_000

/** How far back a limit's trail is read: its window, clamped to one day … one week. */
export function trailSeconds(r: Pick<QuotaReading, 'window_seconds'>): number {
  return Math.min(WEEK_S, Math.max(DAY_S, r.window_seconds ?? DAY_S))
}

export function isStale(r: Pick<QuotaReading, 'observed_at' | 'reset_at_ms'>, now = Date.now()): boolean {
  const observed = Date.parse(r.observed_at)
  return now - observed > STALE_AFTER_MS || (r.reset_at_ms !== null && now >= r.reset_at_ms)
}

/**
 * What reading a trail needs of a client: GET /server with its history query. Both
 * src/client's HearthClient and the web page's client fit it.
 */
export interface TrailReader {
  call(
    op: 'server.get',
    input: { query: Record<string, string | number | undefined> },
  ): Promise<{ body: { quota_history?: { items: QuotaReading[]; next?: string | null } | null } }>
}

export interface Trail {
  /** Oldest first. */
  readings: QuotaReading[]
  /** The start asked for: now minus the trail's window. */
  since: number
  /** True when five pages did not reach `since`: the oldest readings were left out. */
  capped: boolean
  /** How far back the readings held reach (ms before now); the window when not capped. */
  spanMs: number
  pages: number
}

/** One limit's trail, read newest first in at most five pages of 200. */
export async function readTrail(client: TrailReader, r: QuotaReading, now = Date.now()): Promise<Trail> {
  const since = now - trailSeconds(r) * 1000
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
        limit: TRAIL_PAGE_ROWS,
        next,
      },
    })
    pages++
    newestFirst.push(...(body.quota_history?.items ?? []))
    next = body.quota_history?.next ?? undefined
  } while (next && pages < TRAIL_MAX_PAGES)
  const capped = next !== undefined
  const readings = newestFirst.reverse()
  const oldest = readings.length ? Date.parse(readings[0].observed_at) : now
  return { readings, since, capped, spanMs: capped ? now - oldest : now - since, pages }
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

/** What a trail covers: `last 7d`, or `last 2d 3h (capped at 1000 readings; window 7d)`. */
export function trailLabel(t: Trail, now = Date.now()): string {
  const window = spanText(now - t.since)
  if (!t.capped) return `last ${window}`
  return `last ${spanText(t.spanMs)} (capped at ${t.readings.length} readings; window ${window})`
}

/** The distinct reset times a trail went through (and the next one), for a chart's marks. */
export function resetsOf(trail: { readings: QuotaReading[] }, latest: QuotaReading): number[] {
  const all = new Set<number>()
  for (const r of [...trail.readings, latest]) if (r.reset_at_ms !== null) all.add(r.reset_at_ms)
  return [...all].sort((a, b) => a - b)
}
