// The status line's quota item: the latest readings (GET /server `quota`) of the account the
// open session's profile signs in with. Read after the session opens and after each run;
// nothing is shown while there is no reading (today the daemon records none: one request).

import type { HearthClient } from '../client/client.ts'
import { profilesOf } from '../client/profiles.ts'
import { isStale, latestQuota, readingsOfAccountInUse } from '../client/quota.ts'
import { byWindow } from '../client/quota-view.ts'
import { DEFAULT_EXTENSION } from '../schemas/extensions.ts'
import type { QuotaReading } from '../schemas/server.ts'
import type { SessionRead } from '../schemas/session-read.ts'

/** `quota 5h 42%, 7d 60% (stale)` (shortest window first), or undefined without a reading. */
export function quotaStatusText(readings: QuotaReading[], now = Date.now()): string | undefined {
  const shown = readings.filter((r) => r.limit_id !== '' && r.used_percent !== null).sort(byWindow)
  if (shown.length === 0) return undefined
  const items = shown.map(
    (r) => `${r.window_label ?? r.limit_label ?? r.limit_id} ${Math.round(r.used_percent ?? 0)}%`,
  )
  return `quota ${items.join(', ')}${shown.some((r) => isStale(r, now)) ? ' (stale)' : ''}`
}

export class QuotaStatus {
  text: string | undefined
  readonly #client: () => HearthClient
  readonly #changed: () => void
  #reading = 0

  constructor(client: () => HearthClient, changed: () => void) {
    this.#client = client
    this.#changed = changed
  }

  /** Reads the quota of the account `session` uses; errors leave the item as it was. */
  async refresh(session: SessionRead | undefined): Promise<void> {
    if (!session) return
    const mine = ++this.#reading
    try {
      const client = this.#client()
      const latest = await latestQuota(client)
      let text: string | undefined
      if (latest && latest.length > 0) {
        const [profiles, { body: auth }] = await Promise.all([profilesOf(client), client.call('auth.get')])
        const profile = profiles[session.provider_profile]
        const extension = profile?.extension ?? DEFAULT_EXTENSION
        text = quotaStatusText(
          readingsOfAccountInUse(
            latest,
            extension,
            auth.accounts,
            profile?.account_id ?? null,
            session.provider_profile,
          ),
        )
      }
      if (mine !== this.#reading || text === this.text) return
      this.text = text
      this.#changed()
    } catch {
      // the item stays as it was; the next run reads again
    }
  }
}
