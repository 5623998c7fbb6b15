// One streamed step on the Anthropic Messages wire, shared by every provider that speaks it
// (`claude` with a subscription token, `bedrock` through Amazon's endpoints). The provider
// builds the request (URL, its own auth headers or signature, its body rules); this module
// adds the wire's fixed headers, reads Anthropic's error answers, and decodes the stream.
// HTTP (retries, timeouts, abort) is the openai-compatible layer's, not a copy of it.

import { type PreparedRequest, type StepOptions, streamStep } from '../openai-compatible/transport.ts'
import type { ErrorEvent } from '../shared/errors.ts'
import { type FailurePolicy, layeredPolicy } from '../shared/http.ts'
import type { EncodedRequest, NeutralEvent, StreamOptions } from '../types.ts'
import { decodeMessages } from './decode.ts'
import { anthropicFailure } from './errors.ts'
import { messagesWhole } from './whole.ts'

/** The API version every Messages request names (Anthropic's only stable one). */
export const ANTHROPIC_VERSION = '2023-06-01'

/** The path of the Messages endpoint below a base URL (`{base}/v1/messages`). */
export const MESSAGES_PATH = '/v1/messages'

/** Headers every Messages request carries; a provider adds its auth and beta flags. */
export function messagesHeaders(): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'text/event-stream',
    'anthropic-version': ANTHROPIC_VERSION,
  }
}

/**
 * Anthropic's error JSON decides a failed answer's code and message; a provider's own
 * policy (a usage-limit reading, a token refusal) is asked first and wins where it answers.
 * A 200 with a whole Message in JSON is read as its stream (whole.ts).
 */
export function messagesFailurePolicy(own: FailurePolicy = {}): FailurePolicy {
  return layeredPolicy(anthropicFailure, own, messagesWhole)
}

/**
 * One step: `build` gives the request (called once; it may throw on an unusable endpoint,
 * which ends the step `upstream_rejected`; an asynchronous one names its secret), `secret`
 * is redacted from every message.
 * Never throws; ends with exactly one `done` or `error`.
 */
export interface MessagesStepOptions extends StepOptions {
  /** Renames each called tool: a provider whose wire names differ from those it offered. */
  toolName?: (wire: string) => string
}

export function messagesStep(
  build: () => EncodedRequest | Promise<PreparedRequest>,
  opts: StreamOptions,
  secret: string | null,
  step: MessagesStepOptions = {},
): AsyncGenerator<NeutralEvent> {
  const adjust = step.adjust ?? ((event: ErrorEvent) => event)
  const { toolName } = step
  const decoder = toolName
    ? (bytes: AsyncIterable<Uint8Array>) => decodeMessages(bytes, toolName)
    : decodeMessages
  return streamStep(build, decoder, opts, secret, {
    policy: messagesFailurePolicy(step.policy),
    adjust,
  })
}
