// A new kernel's warm-up turns for the OpenAI wires: one Responses and one Chat Completions
// turn through this transport (src/kernel/warm.ts runs them).
import type { TransportProfile, WarmStep } from '../types.ts'
import { openaiCompatible } from './transport.ts'

const turn =
  (protocol: TransportProfile['protocol']): WarmStep =>
  (url, request, opts) =>
    openaiCompatible.stream(
      { endpoint: `${url}/v1`, protocol, model: 'warm', api_key: 'warm' },
      request,
      opts,
    )

export const warmSteps: readonly WarmStep[] = [turn('responses'), turn('chat_completions')]
