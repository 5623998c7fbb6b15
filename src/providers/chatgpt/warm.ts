// A new kernel's warm-up step for the ChatGPT backend (src/kernel/warm.ts runs it).
import type { WarmStep } from '../types.ts'
import { chatgpt } from './transport.ts'

export const warmSteps: readonly WarmStep[] = [
  (url, request, opts) =>
    chatgpt.stream({ endpoint: url, protocol: 'responses', model: 'warm', api_key: 'warm' }, request, opts),
]
