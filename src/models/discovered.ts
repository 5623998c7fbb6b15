// A provider's own model list (its descriptor's `catalogue.discover`, Copilot's models
// endpoint) as GET /models reads it: the cached list, listed again when stale with a
// credential of the profile (its bound account, else the pool's first, else one the
// sign-in lends). With no list yet the request waits for the listing; with a stale one it
// answers the cached list and the listing runs on. A listing that cannot be had (no
// credential, refused, unreachable) keeps the cache, and is not tried again for a while.
import type { ModelDiscovery } from '../providers/descriptor.ts'
import { providerOf } from '../providers/registry.ts'
import type { DiscoveredList, DiscoveryDeps } from './service.ts'

/** How long after a listing that could not be had the next request may try again. */
export const RETRY_AFTER_FAILURE_MS = 10_000

const failedAt = new Map<string, number>()

export async function discoveredList(
  d: DiscoveryDeps | undefined,
  extension: string | null,
  accountId: string | null,
): Promise<DiscoveredList | null> {
  const discover = extension === null ? undefined : providerOf(extension)?.catalogue.discover
  if (!d || !discover || extension === null) return null
  const key = `${d.home}\0${extension}\0${accountId ?? ''}`
  const last = failedAt.get(key)
  if (discover.stale(d.home) && (last === undefined || Date.now() - last >= RETRY_AFTER_FAILURE_MS)) {
    const listing = relist(d, discover, extension, accountId).then((ok) => {
      if (ok) failedAt.delete(key)
      else failedAt.set(key, Date.now())
    })
    if (discover.cached(d.home) === null) await listing
  }
  return discover.cached(d.home)
}

async function relist(
  d: DiscoveryDeps,
  discover: ModelDiscovery,
  extension: string,
  accountId: string | null,
): Promise<boolean> {
  try {
    const credential = await d.credential(extension, accountId)
    return credential !== null && (await discover.refresh(d.home, credential))
  } catch {
    return false
  }
}
