// Where a bedrock step goes: `{baseUrl}/anthropic/v1/messages` on one of Amazon Bedrock's
// two endpoint kinds, the runtime (`bedrock-runtime.<region>.amazonaws.com`, SigV4 service
// `bedrock`) or mantle (`bedrock-mantle.<region>.api.aws`, service `bedrock-mantle`). A
// profile's endpoint must be exactly such an HTTPS host: embedded credentials, a port, a
// path other than `/`, a query string or a fragment are refused, before any credential
// is read and already when the profile is saved. Pure functions: no files, no network.

export type EndpointKind = 'runtime' | 'mantle'

export const MESSAGES_PATH = '/anthropic/v1/messages'

/** The SigV4 service name of each kind (its own action namespace). */
export const SIGNING_SERVICE: Readonly<Record<EndpointKind, string>> = {
  runtime: 'bedrock',
  mantle: 'bedrock-mantle',
}

/** A checked endpoint: its origin (`https://host`), kind and the region its host names. */
export interface BedrockEndpoint {
  origin: string
  kind: EndpointKind
  region: string
}

/** A region as it appears in a host name: `us-east-1`, `us-gov-west-1`, `eu-central-2`. */
const REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/

const HOSTS: ReadonlyArray<{ kind: EndpointKind; pattern: RegExp }> = [
  // Commercial, GovCloud and FIPS runtime hosts, and the China partition's `.com.cn`.
  { kind: 'runtime', pattern: /^bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$/ },
  { kind: 'mantle', pattern: /^bedrock-mantle\.([a-z0-9-]+)\.api\.aws$/ },
]

export class EndpointError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'EndpointError'
  }
}

export function isRegion(value: string): boolean {
  return value.length <= 32 && REGION.test(value)
}

/** The kind and region a host names, or null for any other host. */
export function hostKind(host: string): { kind: EndpointKind; region: string } | null {
  for (const { kind, pattern } of HOSTS) {
    const m = pattern.exec(host)
    if (m?.[1] && isRegion(m[1])) return { kind, region: m[1] }
  }
  return null
}

/**
 * Checks a profile's endpoint and returns its origin, kind and region; throws
 * EndpointError saying what is wrong. The raw text is checked as well as the parsed URL:
 * the WHATWG parser drops an explicit `:443`, an empty `?` and an empty `#`, and accepts
 * backslashes and surrounding spaces. A message never repeats the text after `//`, which
 * may hold a password.
 */
export function checkEndpoint(raw: string): BedrockEndpoint {
  const text = raw.replace(/\/+$/, '')
  if (!/^https:\/\//i.test(raw) || raw.trim() !== raw || raw.includes('\\'))
    throw new EndpointError('a bedrock endpoint must be an https:// URL')
  const authority = text.slice('https://'.length).split(/[/?#]/, 1)[0] ?? ''
  if (authority.includes('@')) throw new EndpointError('a bedrock endpoint must not embed credentials')
  if (authority.includes(':')) throw new EndpointError('a bedrock endpoint must not name a port')
  if (text.includes('?')) throw new EndpointError('a bedrock endpoint must not have a query string')
  if (text.includes('#')) throw new EndpointError('a bedrock endpoint must not have a fragment')
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new EndpointError('a bedrock endpoint must be an https:// URL')
  }
  if (url.username || url.password) throw new EndpointError('a bedrock endpoint must not embed credentials')
  if (url.pathname !== '/')
    throw new EndpointError(
      `a bedrock endpoint is a host without a path (hearth adds ${MESSAGES_PATH}); got the path ${url.pathname}`,
    )
  const named = hostKind(url.hostname)
  if (!named)
    throw new EndpointError(
      `${url.hostname} is not a Bedrock endpoint: use bedrock-runtime.<region>.amazonaws.com or bedrock-mantle.<region>.api.aws`,
    )
  return { origin: `https://${url.hostname}`, kind: named.kind, region: named.region }
}

/** The runtime endpoint of a region (the default when a profile names no endpoint). */
export function runtimeEndpoint(region: string): BedrockEndpoint {
  if (!isRegion(region)) throw new EndpointError(`${JSON.stringify(region)} is not an AWS region`)
  return { origin: `https://bedrock-runtime.${region}.amazonaws.com`, kind: 'runtime', region }
}

/**
 * The base URL of the `HEARTH_BEDROCK_BASE_URL` hook: any http(s) URL without credentials,
 * query or fragment (the only way to reach a plain-http loopback server: tests, local
 * proxies). Its path is kept as a prefix; trailing slashes are dropped.
 */
export function hookBase(raw: string): string {
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    throw new EndpointError('HEARTH_BEDROCK_BASE_URL is not a URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new EndpointError('HEARTH_BEDROCK_BASE_URL must be an http:// or https:// URL')
  if (url.username || url.password)
    throw new EndpointError('HEARTH_BEDROCK_BASE_URL must not embed credentials')
  if (url.search || url.hash || raw.includes('?') || raw.includes('#'))
    throw new EndpointError('HEARTH_BEDROCK_BASE_URL must not have a query string or a fragment')
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`
}
