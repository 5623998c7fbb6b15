// Which catalogue provider describes the models behind an extension and endpoint, as each
// provider's descriptor says (`catalogue`): the subscription and cloud extensions each talk
// to one vendor whatever their host (Bedrock and Vertex hosts are regional); an
// openai-compatible endpoint is known only by its host.
import { providerOf } from '../providers/registry.ts'

/** The extension names a profile may carry (NAMES.md); `provider=` takes these too. */
export function isExtension(name: string): boolean {
  return providerOf(name) !== undefined
}

/**
 * A host in its comparable form: lower case, no trailing dot, no port. Takes a bare host, a
 * host:port, or a whole URL (its hostname is used).
 */
export function normalizeHost(value: string): string {
  let host = value.trim().toLowerCase()
  if (host.includes('://')) {
    try {
      host = new URL(host).hostname
    } catch {
      return host
    }
  } else {
    host = host.replace(/^([^:[\]]+):\d+$/, '$1') // host:port, not an IPv6 literal
  }
  return host.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '')
}

/** The hostname of an endpoint URL, or null when it is empty or not a URL. */
export function hostOf(endpoint: string | null): string | null {
  if (!endpoint) return null
  try {
    return normalizeHost(new URL(endpoint).hostname)
  } catch {
    return null
  }
}

/** The catalogue provider id for an extension and endpoint, or null when none is known. */
export function catalogueProviderOf(extension: string, endpoint: string | null): string | null {
  const catalogue = providerOf(extension)?.catalogue
  if (!catalogue) return null
  if (catalogue.provider !== null) return catalogue.provider
  const host = hostOf(endpoint)
  const byHost = catalogue.byHost ?? {}
  return host !== null && Object.hasOwn(byHost, host) ? byHost[host] : null
}
