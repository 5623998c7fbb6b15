// A Claude Pro or Max subscription: accounts sign in (the Claude Code OAuth client) and
// steps go to the Anthropic Messages API.
import { CACHE_BREAKPOINTS, type ProviderDescriptor } from '../descriptor.ts'
import { CLAUDE_CALLBACK_PORT, CLAUDE_CLIENT_ID } from './constants.ts'
import { isClaudeFamilyModel } from './families.ts'
import { quota } from './quota.ts'
import { signIn } from './signin.ts'

export const claude: ProviderDescriptor = {
  id: 'claude',
  extension: { version: 1, description: 'Claude subscription sign-in', requires: ['models'] },
  // A subscription serves six model families only (families.ts).
  catalogue: { provider: 'anthropic', lists: isClaudeFamilyModel },
  // Anthropic Messages caches only up to `cache_control: {type: "ephemeral"}` breakpoints,
  // at most 4 per request, each living 5 minutes (default) or 1 hour (`ttl: "1h"`).
  cache: [{ host: '', policy: CACHE_BREAKPOINTS }],
  profile: { needsEndpoint: false, needsModel: false, check: checkProfile },
  replaysReasoningText: false,
  quota,
  signIn: {
    ...signIn,
    settings: { client_id: CLAUDE_CLIENT_ID, callback_port: CLAUDE_CALLBACK_PORT },
    // A 401 expires the access token handed out; an account without a refresh token is then skipped.
    unauthorized: 'expire',
  },
}

/**
 * A claude profile speaks `chat_completions` at the profile level (Messages on the wire),
 * and its endpoint, when it names one, is HTTPS: only the HEARTH_CLAUDE_BASE_URL hook may
 * point a step at a plain http server.
 */
function checkProfile(p: Readonly<Record<string, unknown>>): string | null {
  if (p.protocol !== undefined && p.protocol !== null && p.protocol !== 'chat_completions')
    return 'a claude profile uses protocol chat_completions'
  if (typeof p.endpoint === 'string' && !/^https:\/\//i.test(p.endpoint))
    return 'a claude endpoint must be https://'
  return null
}
