// One streamed step on the Gemini wire (`streamGenerateContent?alt=sse`), shared by every
// provider that speaks it (`vertex` directly; the Cloud Code Assist backend inside its
// envelope, whose chunks `unwrap` opens). The provider builds the request (URL, its auth,
// its body rules); this module reads Google's error answers and decodes the stream. HTTP
// (retries, timeouts, abort) is the openai-compatible layer's.

import { type PreparedRequest, type StepOptions, streamStep } from '../openai-compatible/transport.ts'
import type { ErrorEvent } from '../shared/errors.ts'
import { type FailurePolicy, layeredPolicy } from '../shared/http.ts'
import type { EncodedRequest, NeutralEvent, StreamOptions } from '../types.ts'
import { decodeGemini, type GeminiDecoderOptions } from './decode.ts'
import { geminiFailure } from './errors.ts'
import { geminiWhole } from './whole.ts'

/** Headers every Gemini stream request carries; a provider adds its auth. */
export function geminiHeaders(): Record<string, string> {
  return { 'content-type': 'application/json', accept: 'text/event-stream' }
}

/**
 * Google's error JSON decides a failed answer's code and message; a provider's own policy
 * (a per-meter rate limit, a refused token) is asked first and wins where it answers. A
 * 200 in JSON is read as a whole answer (whole.ts).
 */
export function geminiFailurePolicy(own: FailurePolicy = {}): FailurePolicy {
  return layeredPolicy(geminiFailure, own, geminiWhole)
}

/**
 * One step: `build` gives the request (called once; it may throw on an unusable URL, which
 * ends the step `upstream_rejected`; an asynchronous one names its secret), `secret` is
 * redacted from every message. Never throws; ends with exactly one `done` or `error`.
 */
export function geminiStep(
  build: () => EncodedRequest | Promise<PreparedRequest>,
  opts: StreamOptions,
  secret: string | null,
  step: StepOptions & GeminiDecoderOptions = {},
): AsyncGenerator<NeutralEvent> {
  const adjust = step.adjust ?? ((event: ErrorEvent) => event)
  const decoder = { unwrap: step.unwrap }
  return streamStep(build, (bytes) => decodeGemini(bytes, decoder), opts, secret, {
    policy: geminiFailurePolicy(step.policy),
    adjust,
  })
}
