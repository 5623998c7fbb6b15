// OpenAI-compatible servers, reached with the profile's API key at the endpoint it names, on
// the Responses or Chat Completions wire. A stored profile without an extension is one.
import { CACHE_SESSION_KEY, type ProviderDescriptor } from '../descriptor.ts'
import { quota } from './quota.ts'

export const openaiCompatible: ProviderDescriptor = {
  id: 'openai-compatible',
  extension: {
    version: 1,
    description: 'API-key profiles for OpenAI-compatible servers',
    requires: ['models'],
  },
  // Known only by its host: any server may speak the wire.
  catalogue: { provider: null, byHost: { 'api.openai.com': 'openai', 'openrouter.ai': 'openrouter' } },
  // OpenAI's Responses API caches prompt prefixes by itself; `prompt_cache_key` routes
  // requests that share a prefix to the same cache (`prompt_cache_retention`, in_memory or
  // 24h, extends its life on some models). Another server gets no hints: an unknown field
  // can be a 400 there.
  cache: [{ host: 'api.openai.com', policy: CACHE_SESSION_KEY }],
  profile: { needsEndpoint: true, needsModel: true },
  // Chat Completions' `reasoning_content` beside an assistant message's `tool_calls`
  // (openai-chat/encode.ts decides where it goes; the Responses encoder leaves it out).
  replaysReasoningText: true,
  // Its profiles' usage is polled when the endpoint's host has a feed (quota.ts).
  quota,
  signIn: null,
}
