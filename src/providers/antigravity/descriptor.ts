// Google Antigravity: accounts sign in with Google, and steps go to the Cloud Code Assist
// backend on the Gemini wire (Gemini, Claude and gpt-oss models).
import { NO_CACHE_HINTS, type ProviderDescriptor } from '../descriptor.ts'
import { meterOf } from './meters.ts'
import { quota } from './quota.ts'
import { signIn } from './signin.ts'

export const antigravity: ProviderDescriptor = {
  id: 'antigravity',
  extension: { version: 1, description: 'Google Antigravity sign-in', requires: ['models'] },
  catalogue: { provider: 'google' },
  // Gemini behind Code Assist caches implicitly.
  cache: [{ host: '', policy: NO_CACHE_HINTS }],
  profile: { needsEndpoint: false, needsModel: false },
  replaysReasoningText: false,
  quota,
  signIn: {
    ...signIn,
    // A 401 expires the access token handed out; a revoked refresh token then signs the
    // account out (auth/pool.ts).
    unauthorized: 'expire',
    // The backend meters its quota per model family: a 429 limits that meter only, and the
    // pool is ordered by the meter of the run's model.
    meterOf,
  },
}
