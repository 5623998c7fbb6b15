// A new kernel's warm-up step for the Gemini wire (vertex, antigravity): the shared codec
// and step, without the ADC exchange (which would read the user's credentials).
// src/kernel/warm.ts runs it.

import { geminiBody } from '../gemini/encode.ts'
import { geminiHeaders, geminiStep } from '../gemini/transport.ts'
import type { WarmStep } from '../types.ts'
import { vertexUrl } from './transport.ts'

const MODEL = 'gemini-2.5-flash'

export const warmSteps: readonly WarmStep[] = [
  (url, request, opts) => {
    const body = JSON.stringify(geminiBody({ ...request, model: MODEL }))
    const build = () => ({
      url: vertexUrl('warm', 'global', MODEL, 'streamGenerateContent', url),
      headers: { ...geminiHeaders(), authorization: 'Bearer warm' },
      body,
    })
    return geminiStep(build, opts, 'warm')
  },
]
