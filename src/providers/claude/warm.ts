// A new kernel's warm-up step for the Messages wire (claude, bedrock): claude's request
// through the shared Messages step, its base URL given as the test hook would (a claude
// profile never names plain http). src/kernel/warm.ts runs it.
import { messagesStep } from '../anthropic-messages/transport.ts'
import type { TransportProfile, WarmStep } from '../types.ts'
import { BASE_URL_ENV } from './constants.ts'
import { encode } from './request.ts'

const PROFILE: TransportProfile = {
  endpoint: '',
  protocol: 'chat_completions',
  model: 'warm',
  api_key: 'warm',
}

export const warmSteps: readonly WarmStep[] = [
  (url, request, opts) => messagesStep(() => encode(PROFILE, request, { [BASE_URL_ENV]: url }), opts, 'warm'),
]
