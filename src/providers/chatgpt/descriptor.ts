// A ChatGPT Plus or Pro subscription: accounts sign in (Codex OAuth) and steps go to the
// ChatGPT backend on the Responses wire.
import { CACHE_SESSION_KEY, type ProviderDescriptor } from '../descriptor.ts'
import { CHATGPT_CALLBACK_PORT, CHATGPT_CLIENT_ID, CHATGPT_ISSUER } from './constants.ts'
import { quota } from './quota.ts'
import { signIn } from './signin.ts'

export const chatgpt: ProviderDescriptor = {
  id: 'chatgpt',
  extension: { version: 1, description: 'ChatGPT subscription sign-in', requires: ['openai-compatible'] },
  catalogue: { provider: 'openai' },
  // The Codex backend takes `prompt_cache_key` as the Responses API does.
  cache: [{ host: '', policy: CACHE_SESSION_KEY }],
  profile: { needsEndpoint: false, needsModel: false },
  replaysReasoningText: false,
  quota,
  signIn: {
    ...signIn,
    settings: { issuer: CHATGPT_ISSUER, client_id: CHATGPT_CLIENT_ID, callback_port: CHATGPT_CALLBACK_PORT },
    // A refused token is dead: the account is removed, even when a profile is bound to it.
    unauthorized: 'remove',
  },
}
