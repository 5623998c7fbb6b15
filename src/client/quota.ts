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
import { readTrail, type Trail } from './quota-trail.ts'

export {
  isStale,
  readTrail,
  resetsOf,
  STALE_AFTER_MS,
  spanText,
  TRAIL_MAX_PAGES,
  TRAIL_PAGE_ROWS,
  type Trail,
  trailLabel,
  trailSeconds,
} from './quota-trail.ts'

/** The latest readings (GET /server `quota`); null while the daemon records none. */
export async function latestQuota(client: HearthClient): Promise<QuotaReading[] | null> {
  const { body } = await client.call('server.get')
  return body.quota
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
