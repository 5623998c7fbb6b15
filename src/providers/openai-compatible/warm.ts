// A new kernel's warm-up steps for the OpenAI wires: one Responses and one Chat Completions
// step through this transport (src/kernel/warm.ts runs them).
import type { TransportProfile, WarmStep } from '../types.ts'
import { openaiCompatible } from './transport.ts'

const step =
  (protocol: TransportProfile['protocol']): WarmStep =>
  (url, request, opts) =>
    openaiCompatible.stream(
      { endpoint: `${url}/v1`, protocol, model: 'warm', api_key: 'warm' },
      request,
      opts,
    )

export const warmSteps: readonly WarmStep[] = [step('responses'), step('chat_completions')]
