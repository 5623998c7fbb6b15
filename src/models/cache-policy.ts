// Which prompt-cache policy applies to an extension and host. The built-in rules are the
// providers' (each descriptor's `cache`, which says what its vendor supports); anything
// else gets no hints: an unknown field can be a 400 on an unknown server.
import { NO_CACHE_HINTS } from '../providers/descriptor.ts'
import { PROVIDERS } from '../providers/registry.ts'
import type { CachePolicy } from '../schemas/models.ts'
import { hostOf, normalizeHost } from './provider-map.ts'

export interface CacheRule {
  /** "" matches any extension. */
  extension: string
  /** "" matches any host. */
  host: string
  policy: CachePolicy
}

export const BUILT_IN_RULES: readonly CacheRule[] = [
  { extension: '', host: '', policy: NO_CACHE_HINTS },
  ...PROVIDERS.flatMap((p) => p.cache.map((rule) => ({ extension: p.id, ...rule }))),
]

export interface CacheMatch {
  rule: CacheRule
  source: 'settings' | 'built-in'
}

/** Host is the narrower selector: a host names one server, an extension a family of them. */
function specificity(rule: CacheRule): number {
  return (rule.host !== '' ? 2 : 0) + (rule.extension !== '' ? 1 : 0)
}

function matches(rule: CacheRule, extension: string, host: string): boolean {
  return (
    (rule.extension === '' || rule.extension === extension) &&
    (rule.host === '' || normalizeHost(rule.host) === host)
  )
}

/** The most specific matching rule; on a tie, the one listed first. */
function best(rules: readonly CacheRule[], extension: string, host: string): CacheRule | undefined {
  let found: CacheRule | undefined
  for (const rule of rules) {
    if (matches(rule, extension, host) && (!found || specificity(rule) > specificity(found))) found = rule
  }
  return found
}

/**
 * User rules (from settings) are consulted first, and any match among them wins over the
 * built-in table, so a user rule for "" / "" turns caching off everywhere. The built-in
 * table ends in a rule for "" / "", so there is always a match.
 */
export function matchCachePolicy(
  userRules: readonly CacheRule[],
  extension: string,
  host: string,
): CacheMatch {
  const h = host === '' ? '' : normalizeHost(host)
  const user = best(userRules, extension, h)
  if (user) return { rule: user, source: 'settings' }
  return { rule: best(BUILT_IN_RULES, extension, h) ?? BUILT_IN_RULES[0], source: 'built-in' }
}

/** When the prompt a step cached goes cold: its tokens and the time they expire. */
export interface CacheFade {
  tokens: number
  expires_at: string
}

export interface CacheUsage {
  cache_ttl_seconds: number | null
  cache_fade: CacheFade[]
}

/**
 * What a step's usage says of the prompt cache it left warm, read with the cache policy
 * its extension and host match. Only an explicit policy states a lifetime (Anthropic's
 * breakpoints live `ttl_seconds` from their last read or write); an implicit cache lives
 * as long as the provider likes, and `off` caches nothing: both give null and no fade.
 * Nothing is claimed when the step neither read nor wrote cached tokens.
 */
export function cacheUsage(
  policy: CachePolicy | null,
  usage: { cached_prompt_tokens: number | null; cache_write_tokens: number | null },
  observedMs: number,
): CacheUsage {
  const tokens = (usage.cached_prompt_tokens ?? 0) + (usage.cache_write_tokens ?? 0)
  const ttl = policy?.mode === 'explicit' ? policy.ttl_seconds : null
  if (ttl === null || tokens <= 0) return { cache_ttl_seconds: null, cache_fade: [] }
  return {
    cache_ttl_seconds: ttl,
    cache_fade: [{ tokens, expires_at: new Date(observedMs + ttl * 1000).toISOString() }],
  }
}

/** The policy of a run's extension and endpoint (user rules first, as matchCachePolicy). */
export function runCachePolicy(
  userRules: readonly CacheRule[],
  extension: string,
  endpoint: string | null,
): CachePolicy {
  return matchCachePolicy(userRules, extension, hostOf(endpoint) ?? '').rule.policy
}
