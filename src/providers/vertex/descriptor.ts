// Gemini-family models on Google Vertex AI, with the user's Application Default Credentials.
import { NO_CACHE_HINTS, type ProviderDescriptor } from '../descriptor.ts'

export const vertex: ProviderDescriptor = {
  id: 'vertex',
  extension: { version: 1, description: 'Gemini-family models on Google Vertex AI', requires: ['models'] },
  // One vendor whatever the (regional) host.
  catalogue: { provider: 'google-vertex' },
  // Gemini 2.5 and later cache implicitly; explicit CachedContent objects are a separate,
  // billed resource.
  cache: [{ host: '', policy: NO_CACHE_HINTS }],
  profile: { needsEndpoint: false, needsModel: true },
  // Gemini's thought parts go back with the answer they belong to.
  replaysReasoningText: true,
  quota: null,
  signIn: null,
}
