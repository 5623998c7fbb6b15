// Which prompt-cache policy applies to an extension and host. What the vendors support:
// - OpenAI Responses caches prompt prefixes by itself; `prompt_cache_key` routes requests
//   that share a prefix to the same cache, and `prompt_cache_retention` (in_memory, 24h)
//   extends its life on some models. The Codex backend (chatgpt) takes the key as well.
// - Anthropic Messages caches only up to `cache_control: {type: "ephemeral"}` breakpoints,
//   at most 4 per request, each living 5 minutes (default) or 1 hour (`ttl: "1h"`).
//   Bedrock's Messages route for Claude takes the same breakpoints.
// - Gemini 2.5 and later cache implicitly (Vertex, the Gemini API, Code Assist behind
//   antigravity); explicit CachedContent objects are a separate, billed resource.
// An unknown OpenAI-compatible server gets no hints: an unknown field can be a 400 there.
import type { CachePolicy } from '../schemas/models.ts'
import { hostOf, normalizeHost } from './provider-map.ts'

export interface CacheRule {
  /** "" matches any extension. */
  extension: string
  /** "" matches any host. */
  host: string
  policy: CachePolicy
}

const NO_HINTS: CachePolicy = {
  mode: 'implicit',
  key: null,
  retention: null,
  ttl_seconds: null,
  breakpoints: null,
}
const BREAKPOINTS: CachePolicy = { ...NO_HINTS, mode: 'explicit', ttl_seconds: 300, breakpoints: 4 }
const SESSION_KEY: CachePolicy = { ...NO_HINTS, key: 'session' }

export const BUILT_IN_RULES: readonly CacheRule[] = [
  { extension: '', host: '', policy: NO_HINTS },
  { extension: 'openai-compatible', host: 'api.openai.com', policy: SESSION_KEY },
  { extension: 'chatgpt', host: '', policy: SESSION_KEY },
  { extension: 'claude', host: '', policy: BREAKPOINTS },
  { extension: 'bedrock', host: '', policy: BREAKPOINTS },
  { extension: 'vertex', host: '', policy: NO_HINTS },
  { extension: 'antigravity', host: '', policy: NO_HINTS },
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

/** When the prompt a turn cached goes cold: its tokens and the time they expire. */
export interface CacheFade {
  tokens: number
  expires_at: string
}

export interface CacheUsage {
  cache_ttl_seconds: number | null
  cache_fade: CacheFade[]
}

/**
 * What a turn's usage says of the prompt cache it left warm, read with the cache policy
 * its extension and host match. Only an explicit policy states a lifetime (Anthropic's
 * breakpoints live `ttl_seconds` from their last read or write); an implicit cache lives
 * as long as the provider likes, and `off` caches nothing: both give null and no fade.
 * Nothing is claimed when the turn neither read nor wrote cached tokens.
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

/** The policy of a turn's extension and endpoint (user rules first, as matchCachePolicy). */
export function turnCachePolicy(
  userRules: readonly CacheRule[],
  extension: string,
  endpoint: string | null,
): CachePolicy {
  return matchCachePolicy(userRules, extension, hostOf(endpoint) ?? '').rule.policy
}
