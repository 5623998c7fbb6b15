// What each of Google's `FinishReason` and `BlockedReason` values means for a step. Only
// STOP (an answer, or calls) and MAX_TOKENS (an answer cut at the output limit, as every
// wire reports `length`) end a step normally; every other reason is a failure with its own
// code, so a filtered answer, a call the model garbled or a blocked prompt is never
// recorded as a successful step, and no call of such an answer ever runs.
//
// Values: the GenerateContentResponse reference (ai.google.dev/api/generate-content,
// cloud.google.com Vertex AI `Candidate.FinishReason`, `PromptFeedback.BlockedReason`) and
// the enums of Google's own SDK (googleapis/js-genai `src/types.ts`). A value added later
// reads as `upstream_stopped` (a finish) or `upstream_blocked` (a prompt block).
import type { StopReason, UpstreamErrorCode } from '../types.ts'

export type FinishOutcome = { stop: StopReason } | { code: UpstreamErrorCode; message: string }

const blocked = (why: string): FinishOutcome => ({
  code: 'upstream_blocked',
  message: `Gemini's filters stopped the answer (${why})`,
})
const badCall = (why: string): FinishOutcome => ({
  code: 'upstream_tool_call_invalid',
  message: `Gemini stopped the answer: ${why}; no call was run`,
})
const stopped = (why: string): FinishOutcome => ({
  code: 'upstream_stopped',
  message: `Gemini stopped the answer: ${why}`,
})

/** Every `finishReason` Google documents, with the step's outcome. */
export const FINISH_OUTCOMES: Readonly<Record<string, FinishOutcome>> = {
  STOP: { stop: 'stop' },
  MAX_TOKENS: { stop: 'length' },
  SAFETY: blocked('SAFETY: the answer may be unsafe'),
  RECITATION: blocked('RECITATION: the answer recited protected material'),
  BLOCKLIST: blocked('BLOCKLIST: the answer holds blocklisted terms'),
  PROHIBITED_CONTENT: blocked('PROHIBITED_CONTENT: the answer may hold prohibited content'),
  SPII: blocked('SPII: the answer may hold sensitive personal information'),
  IMAGE_SAFETY: blocked('IMAGE_SAFETY: a generated image may be unsafe'),
  IMAGE_PROHIBITED_CONTENT: blocked('IMAGE_PROHIBITED_CONTENT: a generated image may be prohibited'),
  IMAGE_RECITATION: blocked('IMAGE_RECITATION: a generated image recited protected material'),
  MALFORMED_FUNCTION_CALL: badCall(
    'MALFORMED_FUNCTION_CALL, the model wrote a function call that does not parse',
  ),
  UNEXPECTED_TOOL_CALL: badCall('UNEXPECTED_TOOL_CALL, the model called a tool the request did not offer'),
  TOO_MANY_TOOL_CALLS: badCall(
    'TOO_MANY_TOOL_CALLS, the model made more calls than Gemini allows in one answer',
  ),
  MISSING_THOUGHT_SIGNATURE: {
    code: 'upstream_rejected',
    message:
      'Gemini refused the request: MISSING_THOUGHT_SIGNATURE, a replayed call lacks its thought signature',
  },
  LANGUAGE: stopped('LANGUAGE, the answer would be in a language the model does not support'),
  OTHER: stopped('OTHER, no reason given'),
  FINISH_REASON_UNSPECIFIED: stopped('FINISH_REASON_UNSPECIFIED, no reason given'),
  IMAGE_OTHER: stopped('IMAGE_OTHER, image generation stopped'),
  NO_IMAGE: stopped('NO_IMAGE, the model made no image'),
  MALFORMED_RESPONSE: stopped('MALFORMED_RESPONSE, the model produced an answer Gemini could not read'),
}

/** The outcome of a candidate's `finishReason`. */
export function finishOutcome(reason: string): FinishOutcome {
  return (
    (Object.hasOwn(FINISH_OUTCOMES, reason) ? FINISH_OUTCOMES[reason] : undefined) ??
    stopped(`${reason} (a reason hearth does not know)`)
  )
}

/** Every `promptFeedback.blockReason` Google documents; each blocks the prompt. */
export const BLOCK_REASONS: readonly string[] = [
  'BLOCK_REASON_UNSPECIFIED', // the Gemini API's spelling
  'BLOCKED_REASON_UNSPECIFIED', // Vertex AI's
  'SAFETY',
  'OTHER',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'IMAGE_SAFETY',
  'MODEL_ARMOR',
  'JAILBREAK',
]

/** A prompt that `promptFeedback.blockReason` says was blocked: no answer was made. */
export function blockedPrompt(reason: string): FinishOutcome {
  return {
    code: 'upstream_blocked',
    message: `Gemini's filters blocked the prompt (${reason}); no answer was made`,
  }
}
