// A GitHub Copilot subscription: accounts sign in with GitHub's device flow (or a signed-in
// GitHub CLI lends its token) and steps go to Copilot's OpenAI-compatible API, each model on
// the wire Copilot serves it on.
import { NO_CACHE_HINTS, type ProviderDescriptor } from '../descriptor.ts'
import { copilotDiscovery } from './discovery.ts'
import { quota } from './quota.ts'
import { COPILOT_DEFAULTS, signIn } from './signin.ts'

export const copilot: ProviderDescriptor = {
  id: 'copilot',
  extension: { version: 1, description: 'GitHub Copilot sign-in', requires: ['models'] },
  // models.dev's id for the models a Copilot subscription serves; the account's own list
  // (Copilot's /models, cached an hour) is what a copilot profile lists.
  catalogue: { provider: 'github-copilot', discover: copilotDiscovery },
  // Copilot takes no cache hints; it caches prompt prefixes by itself.
  cache: [{ host: '', policy: NO_CACHE_HINTS }],
  profile: { needsEndpoint: false, needsModel: false },
  replaysReasoningText: false,
  quota,
  signIn: {
    ...signIn,
    settings: COPILOT_DEFAULTS,
    // A 401 expires the Copilot token handed out: the next step exchanges the GitHub token
    // again, and a GitHub token the person revoked then reads signed out.
    unauthorized: 'expire',
  },
}
