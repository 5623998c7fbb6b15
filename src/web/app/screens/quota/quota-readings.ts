// The latest quota readings as the screen groups them: by account, each account's limits
// shortest window first. (Staleness, spans and trails are src/client/quota-trail.ts's.)
import type { QuotaReading } from '../../../../schemas/server.ts'

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
