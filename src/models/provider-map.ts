// Which catalogue provider describes the models behind an extension and endpoint. The
// subscription and cloud extensions each talk to one vendor whatever their host (Bedrock and
// Vertex hosts are regional); an openai-compatible endpoint is known only by its host.

/** Extensions whose models one catalogue provider describes, wherever the endpoint points. */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  chatgpt: 'openai',
  claude: 'anthropic',
  antigravity: 'google',
  bedrock: 'amazon-bedrock',
  vertex: 'google-vertex',
}

/** openai-compatible endpoints whose host names a catalogue provider. */
const COMPAT_HOSTS: Readonly<Record<string, string>> = {
  'api.openai.com': 'openai',
  'openrouter.ai': 'openrouter',
}

export const COMPAT = 'openai-compatible'

/** The extension names a profile may carry (NAMES.md); `provider=` takes these too. */
export function isExtension(name: string): boolean {
  return name === COMPAT || Object.hasOwn(BY_EXTENSION, name)
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
  if (Object.hasOwn(BY_EXTENSION, extension)) return BY_EXTENSION[extension]
  if (extension !== COMPAT) return null
  const host = hostOf(endpoint)
  return host !== null && Object.hasOwn(COMPAT_HOSTS, host) ? COMPAT_HOSTS[host] : null
}
