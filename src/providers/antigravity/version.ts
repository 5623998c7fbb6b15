// The Antigravity version the backend is told (`User-Agent: antigravity/hub/<version>`):
// the backend refuses versions it no longer supports, so hearth follows the vendor's update
// manifest. HEARTH_ANTIGRAVITY_VERSION wins when set; without either, a known version.
import { VERSION_FALLBACK, VERSION_MANIFEST_URL } from './constants.ts'

const VERSION = /^\d+\.\d+\.\d+$/
/** A failed manifest read is retried after this long; a good one is kept for the process. */
const RETRY_MS = 10 * 60_000
const TIMEOUT_MS = 3000

export function userAgentOf(version: string): string {
  return `antigravity/hub/${version}`
}

/** The version a manifest's text names: its JSON `version`, else its first `x.y.z` word. */
export function versionInManifest(text: string): string | null {
  try {
    const value = JSON.parse(text)
    if (typeof value?.version === 'string' && VERSION.test(value.version)) return value.version
  } catch {
    // plain text
  }
  for (const word of text.split(/[\s"',;:=<>()[\]{}]+/)) {
    const bare = word.replace(/^v/, '')
    if (VERSION.test(bare)) return bare
  }
  return null
}

export interface VersionSource {
  env?: NodeJS.ProcessEnv
  fetch?: typeof globalThis.fetch
  manifestUrl?: string
  now?: () => number
}

let cached: { version: string; until: number } | null = null

/** The version to send, read from the environment or the manifest (cached). */
export async function antigravityVersion(source: VersionSource = {}): Promise<string> {
  const env = source.env ?? process.env
  const pinned = env.HEARTH_ANTIGRAVITY_VERSION?.trim()
  if (pinned) return pinned
  const now = (source.now ?? Date.now)()
  if (cached && cached.until > now) return cached.version
  const fetchFn = source.fetch ?? globalThis.fetch
  let version: string | null = null
  try {
    const res = await fetchFn(source.manifestUrl ?? VERSION_MANIFEST_URL, {
      signal: AbortSignal.timeout(TIMEOUT_MS),
    })
    if (res.ok) version = versionInManifest(await res.text())
  } catch {
    // unreachable: the known version below
  }
  cached = version
    ? { version, until: Number.POSITIVE_INFINITY }
    : { version: VERSION_FALLBACK, until: now + RETRY_MS }
  return cached.version
}

/** Forgets the cached version (tests). */
export function forgetVersion(): void {
  cached = null
}
