// The `openai-compatible` transport: API-key profiles for servers that speak OpenAI's
// Responses or Chat Completions streaming formats. `encode` and `decode` are pure codecs;
// `stream` adds HTTP (retries, timeouts, abort) and never throws.

import { ChatDecoder } from '../openai-chat/decode.ts'
import { chatBody } from '../openai-chat/encode.ts'
import { ResponsesDecoder } from '../openai-responses/decode.ts'
import { responsesBody } from '../openai-responses/encode.ts'
import { decodeWith } from '../shared/decode-stream.ts'
import { describe, type ErrorEvent, errorEvent, faultEvent } from '../shared/errors.ts'
import { type FailurePolicy, openStream } from '../shared/http.ts'
import type {
  EncodedRequest,
  NeutralEvent,
  NeutralRequest,
  StreamOptions,
  Transport,
  TransportProfile,
} from '../types.ts'
import { joinEndpoint } from './url.ts'

export type Protocol = TransportProfile['protocol']

/** The HTTP request for one step. Throws only on an endpoint that is not a URL. */
export function encode(profile: TransportProfile, req: NeutralRequest): EncodedRequest {
  const responses = profile.protocol === 'responses'
  const url = joinEndpoint(profile.endpoint, responses ? '/responses' : '/chat/completions')
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'text/event-stream',
  }
  if (profile.api_key) headers.authorization = `Bearer ${profile.api_key}`
  for (const [name, value] of Object.entries(profile.headers ?? {})) headers[name.toLowerCase()] = value
  const body = responses ? responsesBody(profile, req) : chatBody(profile, req)
  return { url, headers, body: JSON.stringify(body) }
}

/**
 * The upstream's event-stream bytes → neutral events, ending with exactly one `done` or
 * `error`. `toolNames`: the tools the request offered.
 */
export function decode(
  bytes: AsyncIterable<Uint8Array>,
  protocol: Protocol,
  toolNames: readonly string[] = [],
): AsyncGenerator<NeutralEvent> {
  const machine = protocol === 'responses' ? new ResponsesDecoder(toolNames) : new ChatDecoder(toolNames)
  return decodeWith(bytes, machine)
}

/** What a provider that reuses this transport's HTTP layer may adjust. */
export interface StepOptions {
  /** Overrides the status mapping and retry decision of failed responses. */
  policy?: FailurePolicy
  /** Rewrites each error event (a provider adds its own advice, redacts its token). */
  adjust?: (event: ErrorEvent) => ErrorEvent
}

/** A wire's stream decoder: the response body's bytes → neutral events ending in `done` or `error`. */
export type BodyDecoder = (bytes: AsyncIterable<Uint8Array>) => AsyncIterable<NeutralEvent>

/** The decoder of an OpenAI wire (`toolNames`: the tools the request offered). */
export function openaiDecoder(protocol: Protocol, toolNames: readonly string[] = []): BodyDecoder {
  return (bytes) => decode(bytes, protocol, toolNames)
}

/**
 * A request that needs I/O before it can be made (a token exchange): the request and the
 * secret its messages redact, or the error event that ends the step instead.
 */
export type PreparedRequest = { request: EncodedRequest; secret: string | null } | ErrorEvent

/**
 * One streamed step on any wire: encode (an endpoint that is not a URL is
 * `upstream_rejected`), POST with retries and timeouts, decode with the wire's decoder.
 * `build` may be asynchronous (it then names the secret itself); a provider returns this
 * generator as it is, so each delta crosses no async step of its own. Never throws; ends
 * with exactly one `done` or `error`.
 */
export async function* streamStep(
  build: () => EncodedRequest | Promise<PreparedRequest>,
  decodeBody: BodyDecoder,
  opts: StreamOptions,
  secret: string | null,
  step: StepOptions = {},
): AsyncGenerator<NeutralEvent> {
  const adjust = step.adjust ?? ((e: ErrorEvent) => e)
  let encoded: EncodedRequest
  try {
    const built = build()
    if (built instanceof Promise) {
      const prepared = await built
      if ('type' in prepared) {
        yield prepared
        return
      }
      encoded = prepared.request
      secret = prepared.secret
    } else encoded = built
  } catch (err) {
    yield errorEvent('upstream_rejected', `the profile's endpoint is not a usable URL: ${describe(err)}`)
    return
  }
  let opened: Awaited<ReturnType<typeof openStream>>
  try {
    opened = await openStream(encoded, opts, secret, step.policy)
  } catch (err) {
    yield adjust(faultEvent(err))
    return
  }
  if (!opened.ok) {
    yield adjust(opened.error)
    return
  }
  try {
    yield { type: 'start' }
    for await (const event of decodeBody(opened.body)) yield event.type === 'error' ? adjust(event) : event
  } finally {
    opened.close()
  }
}

function stream(
  profile: TransportProfile,
  req: NeutralRequest,
  opts: StreamOptions,
): AsyncGenerator<NeutralEvent> {
  const decoder = openaiDecoder(
    profile.protocol,
    req.tools.map((t) => t.name),
  )
  return streamStep(() => encode(profile, req), decoder, opts, profile.api_key)
}

export const openaiCompatible: Transport = { stream }

/** The transport the kernel finds by this folder's name (../transports.ts). */
export { openaiCompatible as transport }
