// Reading quota as clients show it (protocol 3, "Quota read path" and "Limits → Quota
// polling"): the latest reading per account and limit from GET /server, and one limit's
// trail read back as far as its window (at least a day, at most a week) from at most five
// pages of 200 rows. A capped trail keeps the newest readings (pages come newest first) and
// says how far back it really reaches. A reading is stale when older than 30 minutes or
// past its reset.

import type { AccountDescriptor } from '../schemas/auth.ts'
import { QUOTA_FEEDS } from '../schemas/extensions.ts'
import type { QuotaReading } from '../schemas/server.ts'
import type { HearthClient } from './client.ts'

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

/** The latest readings (GET /server `quota`); null while the daemon records none. */
export async function latestQuota(client: HearthClient): Promise<QuotaReading[] | null> {
  const { body } = await client.call('server.get')
  return body.quota
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
export async function readTrail(client: HearthClient, r: QuotaReading, now = Date.now()): Promise<Trail> {
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

/**
 * The readings of the account a profile of `extension` signs in with: the one the profile
 * is bound to, else the selected account, else the first; matched by e-mail, label or id.
 * With no account list (or none of that provider), the profile's own readings (a copilot
 * profile polled on the GitHub CLI files them under its name), else the feed's readings
 * when they are of one account only. An API-key profile's readings carry the profile's name as their account
 * (its feed is named by its host, which only the daemon knows).
 */
export function readingsOfAccountInUse(
  readings: QuotaReading[],
  extension: string,
  accounts: AccountDescriptor[],
  boundAccountId: string | null = null,
  profileName?: string,
): QuotaReading[] {
  const feed = QUOTA_FEEDS[extension]
  if (!feed) {
    const oauthFeeds = new Set(Object.values(QUOTA_FEEDS))
    return readings.filter(
      (r) => r.account === profileName && r.limit_id !== '' && !oauthFeeds.has(r.provider),
    )
  }
  const ofFeed = readings.filter((r) => r.provider === feed && r.limit_id !== '')
  const mine = accounts.filter((a) => a.provider === extension)
  const inUse =
    (boundAccountId ? mine.find((a) => a.id === boundAccountId) : undefined) ??
    mine.find((a) => a.selected) ??
    mine[0]
  if (!inUse) {
    const own = ofFeed.filter((r) => r.account === profileName)
    if (own.length > 0) return own
    return new Set(ofFeed.map((r) => r.account)).size === 1 ? ofFeed : []
  }
  const names = new Set([inUse.email, inUse.label, inUse.id].filter((x): x is string => !!x))
  return ofFeed.filter((r) => names.has(r.account))
}

/** The trails of `readings` (their limits; failures without one have none), `parallel` at a time. */
export async function readTrails(
  client: HearthClient,
  readings: QuotaReading[],
  now = Date.now(),
  parallel = 3,
): Promise<Map<QuotaReading, Trail | Error>> {
  const limits = readings.filter((r) => r.limit_id !== '')
  const trails = new Map<QuotaReading, Trail | Error>()
  let next = 0
  const worker = async () => {
    while (next < limits.length) {
      const r = limits[next++]
      trails.set(r, await readTrail(client, r, now).catch((err: Error) => err))
    }
  }
  await Promise.all(Array.from({ length: parallel }, worker))
  return trails
}
