// Header parsing for content negotiation and the loopback guards.

interface MediaRange {
  type: string
  q: number
}

function parseList(header: string): MediaRange[] {
  return header
    .split(',')
    .map((part) => {
      const [type, ...params] = part.trim().split(';')
      let q = 1
      for (const p of params) {
        const [k, v] = p.trim().split('=')
        if (k.toLowerCase() === 'q') q = Number(v)
      }
      return { type: type.trim().toLowerCase(), q: Number.isFinite(q) ? q : 0 }
    })
    .filter((r) => r.type.length > 0)
}

// Whether an Accept header admits `mediaType` (absent Accept admits everything). The most
// specific matching range decides (RFC 9110 §12.5.1): `application/json;q=0, */*` refuses JSON.
export function accepts(accept: string | undefined, mediaType: string): boolean {
  if (!accept) return true
  const type = mediaType.toLowerCase()
  const [major] = type.split('/')
  let best: MediaRange | undefined
  let bestRank = -1
  for (const r of parseList(accept)) {
    // A produced range such as image/* (the type depends on the resource) matches any
    // accepted subtype of its major type.
    const exact = r.type === type || (type.endsWith('/*') && r.type.startsWith(`${major}/`))
    const rank = exact ? 2 : r.type === `${major}/*` ? 1 : r.type === '*/*' ? 0 : -1
    if (rank > bestRank || (rank === bestRank && best !== undefined && r.q > best.q)) {
      best = r
      bestRank = rank
    }
  }
  return best !== undefined && bestRank >= 0 && best.q > 0
}

/** Whether Accept-Encoding admits `coding` (explicitly or through *). */
export function acceptsEncoding(acceptEncoding: string | undefined, coding: string): boolean {
  if (!acceptEncoding) return false
  const list = parseList(acceptEncoding)
  const named = list.find((r) => r.type === coding)
  if (named) return named.q > 0
  const star = list.find((r) => r.type === '*')
  return star !== undefined && star.q > 0
}

/** Whether Accept-Encoding admits zstd (explicitly or through *). */
export function acceptsZstd(acceptEncoding: string | undefined): boolean {
  return acceptsEncoding(acceptEncoding, 'zstd')
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]'])

/** Host must be a loopback name carrying exactly the daemon's port (DNS-rebinding guard). */
export function hostAllowed(host: string | undefined, port: number): boolean {
  if (!host) return false
  const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(host.trim().toLowerCase())
  if (!m) return false
  return LOOPBACK_NAMES.has(m[1]) && Number(m[2]) === port
}

/** An Origin header, when present, must name a loopback host (any port). */
export function originAllowed(origin: string | undefined): boolean {
  if (origin === undefined) return true
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false
  return LOOPBACK_NAMES.has(url.hostname) || url.hostname === '::1'
}

/** The media type of a Content-Type header, lower-cased, without parameters. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined
  return contentType.split(';')[0].trim().toLowerCase()
}
