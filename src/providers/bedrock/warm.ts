// A new kernel's warm-up step for Bedrock: the Messages wire signed with SigV4 by made-up
// keys, sent to the warm-up server through its base-URL hook. The kernel's own environment
// (and so the user's AWS files) is never read for it. src/kernel/warm.ts runs it.
import type { WarmStep } from '../types.ts'
import { BASE_URL_HOOK, bedrockTransport } from './transport.ts'

export const warmSteps: readonly WarmStep[] = [
  (url, request, opts) =>
    bedrockTransport({
      env: () => ({
        [BASE_URL_HOOK]: url,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'AKIDWARMUP',
        AWS_SECRET_ACCESS_KEY: 'warm-up',
      }),
    }).stream({ endpoint: '', protocol: 'chat_completions', model: 'warm', api_key: null }, request, opts),
]
