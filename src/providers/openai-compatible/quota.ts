// API-key profiles' usage: a profile whose endpoint host has a usage feed (quota-hosts.ts)
// is polled with its key, handed in the variable that feed reads. Other hosts are skipped.
import type { QuotaFacts } from '../shared/quota.ts'
import { QUOTA_FEED_BY_HOST } from './quota-hosts.ts'

/** The endpoint's host name, lower case, or null when it is no URL. */
function hostOf(endpoint: string): string | null {
  try {
    return new URL(endpoint).hostname.toLowerCase()
  } catch {
    return null
  }
}

export const quota: QuotaFacts = {
  feed: null,
  profileFeed(endpoint, apiKey) {
    const host = hostOf(endpoint)
    const known = host !== null && Object.hasOwn(QUOTA_FEED_BY_HOST, host) ? QUOTA_FEED_BY_HOST[host] : null
    if (!known || apiKey === '') return null
    // Public variables the feed reads beside the key (the region's host), when the host names any.
    return { feed: known.feed, handoff: { env: { ...known.env, [known.keyEnv]: apiKey }, files: {} } }
  },
}
