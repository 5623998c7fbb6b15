// A new kernel's warm-up turn for the Gemini wire (vertex, antigravity): the shared codec
// and turn, without the ADC exchange (which would read the user's credentials).
// src/kernel/warm.ts runs it.

import { geminiBody } from '../gemini/encode.ts'
import { geminiHeaders, geminiTurn } from '../gemini/transport.ts'
import type { WarmTurn } from '../types.ts'
import { vertexUrl } from './transport.ts'

const MODEL = 'gemini-2.5-flash'

export const warmTurns: readonly WarmTurn[] = [
  (url, request, opts) => {
    const body = JSON.stringify(geminiBody({ ...request, model: MODEL }))
    const build = () => ({
      url: vertexUrl('warm', 'global', MODEL, 'streamGenerateContent', url),
      headers: { ...geminiHeaders(), authorization: 'Bearer warm' },
      body,
    })
    return geminiTurn(build, opts, 'warm')
  },
]
