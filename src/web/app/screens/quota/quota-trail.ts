// A limit's trail (protocol 3, "Quota read path"): its readings read back as far as its
// window (one day at least, a week at most) in at most five pages of 200, newest first, as
// src/client/quota.ts reads them.
import type { QuotaReading } from '../../../../schemas/server.ts'
import type { ApiClient } from '../../api/client.ts'

const DAY_S = 86_400
const WEEK_S = 7 * DAY_S
const PAGE_ROWS = 200
const MAX_PAGES = 5

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
