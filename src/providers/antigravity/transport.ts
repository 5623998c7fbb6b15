// The `antigravity` transport: a Gemini step inside the Cloud Code Assist envelope. The
// request body is the shared Gemini codec's (gemini/encode.ts), wrapped as
// `{project, model, request: {...body, sessionId}, requestType: "agent", userAgent:
// "antigravity", requestId}` and posted to `{base}/v1internal:streamGenerateContent?alt=sse`
// (the vendor's hosts in order, see `antigravityBases` in hosts.ts);
// each SSE chunk is `{response: GenerateContentResponse, traceId}` and the shared decoder
// reads its `response`. On top of the codec:
//
// - tool schemas are flattened (schema.ts) and declared as `parameters`, which every model
//   behind the backend (Gemini, Claude, gpt-oss) takes; Claude models get call ids;
// - thought signatures are kept in an `antigravity.parts` entry and replayed to the same
//   model only (replay.ts);
// - failures are read from Google's error body (errors.ts): a 429 carries when the meter
//   may be used again (`limited_until_ms`, from RetryInfo or the quota reset, else one
//   minute); a 401 ends with `run /login` (the daemon marks the token expired); an account
//   that needs verification names the page.
//
// The daemon passes the account's access token (`api_key`), its project (`project`) and the
// user agent (`headers['user-agent']`, `antigravity/hub/<version>`).
import { randomBytes } from 'node:crypto'
import { GeminiDecoder } from '../gemini/decode.ts'
import { EffortError } from '../gemini/models.ts'
import { geminiFailurePolicy, geminiHeaders } from '../gemini/transport.ts'
import { streamStep } from '../openai-compatible/transport.ts'
import { decodeWith, type FrameDecoder } from '../shared/decode-stream.ts'
import { type ErrorEvent, errorEvent } from '../shared/errors.ts'
import type { FailurePolicy } from '../shared/http.ts'
import { retryAfter } from '../shared/http.ts'
import type { SseFrame } from '../shared/sse.ts'
import type {
  NeutralEvent,
  NeutralRequest,
  NeutralTool,
  StreamOptions,
  Transport,
  TransportProfile,
} from '../types.ts'
import { CLIENT_METADATA, CLOUD_CODE_BASE_URL, VERSION_FALLBACK } from './constants.ts'
import { decodeGoogleError, verificationUrl } from './errors.ts'
import { antigravityBases } from './hosts.ts'
import { meterOf } from './meters.ts'
import { antigravityRequestBody, PartsRecorder } from './replay.ts'
import { flattenSchema } from './schema.ts'
import { userAgentOf } from './version.ts'

/** A 429 that names no reset keeps the meter limited this long. */
export const DEFAULT_LIMIT_MS = 60_000
/** A 429 whose reset is this close is retried; a later one ends the step at once. */
const RETRY_WITHIN_MS = 10_000

export function antigravityUrl(base: string): string {
  return new URL(
    `${(base || CLOUD_CODE_BASE_URL).replace(/\/+$/, '')}/v1internal:streamGenerateContent?alt=sse`,
  ).toString()
}

function declare(tool: NeutralTool): Record<string, unknown> {
  return { name: tool.name, description: tool.description, parameters: flattenSchema(tool.parameters) }
}

/** The envelope around the Gemini request. */
export function antigravityEnvelope(project: string, req: NeutralRequest): Record<string, unknown> {
  const body = antigravityRequestBody(req, { callIds: req.model.startsWith('claude-'), declare })
  return {
    project,
    model: req.model,
    request: { ...body, sessionId: req.session_id },
    requestType: 'agent',
    userAgent: 'antigravity',
    requestId: `agent-${Date.now()}-${randomBytes(6).toString('hex')}`,
  }
}

/** How the backend's failures read: meters, refused tokens, verification. */
export function antigravityPolicy(model: string, now: () => number = Date.now): FailurePolicy {
  return {
    failure(status, text, headers) {
      const error = decodeGoogleError(text)
      const detail = error.message ?? error.status ?? `the backend answered HTTP ${status}`
      const verify = verificationUrl(error)
      if (verify)
        return {
          code: 'upstream_unauthorized',
          message: `HTTP ${status}: Google asks to verify this Antigravity account: open ${verify} and then run /login`,
          retryable: false,
        }
      if (status === 401)
        return {
          code: 'upstream_unauthorized',
          message: `HTTP 401: ${detail}; the Antigravity sign-in was refused, run /login`,
          retryable: false,
        }
      if (status !== 429) return null
      const wait =
        error.resetAtMs !== null ? error.resetAtMs - now() : (error.retryAfterMs ?? retryAfter(headers))
      const until = now() + (wait !== null && wait > 0 ? wait : DEFAULT_LIMIT_MS)
      const meter = meterOf(model) ?? 'the model'
      return {
        code: 'upstream_rate_limited',
        message: `HTTP 429: ${detail} (${meter} quota; usable again at ${new Date(until).toISOString()})`,
        retryable: wait !== null && wait > 0 && wait <= RETRY_WITHIN_MS,
        limitedUntilMs: until,
      }
    },
  }
}

/**
 * Every refused-token message ends in `run /login`; a rate limit that came inside the
 * stream (no body to read a reset from) still limits the meter, for the default minute.
 */
function advise(event: ErrorEvent): ErrorEvent {
  if (event.code === 'upstream_rate_limited' && event.limited_until_ms === undefined)
    return { ...event, limited_until_ms: Date.now() + DEFAULT_LIMIT_MS }
  if (event.code !== 'upstream_unauthorized' || /run \/login$/.test(event.message)) return event
  return {
    ...event,
    message: `${event.message.replace(/[\s.;:]+$/, '')}; the Antigravity sign-in was refused, run /login`,
  }
}

/** The step: the shared Gemini step itself (no extra async step per delta), or its refusal. */
function stream(
  profile: TransportProfile,
  req: NeutralRequest,
  opts: StreamOptions,
): AsyncGenerator<NeutralEvent> {
  const access = profile.api_key ?? ''
  const project = profile.project?.trim() ?? ''
  if (access === '' || project === '') {
    const what = access === '' ? 'not signed in to Antigravity' : 'the Antigravity account has no project'
    return only(errorEvent('upstream_unauthorized', `${what}; run /login`))
  }
  const model = req.model || profile.model
  let envelope: Record<string, unknown>
  try {
    envelope = antigravityEnvelope(project, { ...req, model })
  } catch (err) {
    if (!(err instanceof EffortError)) throw err
    return only(errorEvent('effort_unsupported', err.message))
  }
  const headers: Record<string, string> = {
    ...geminiHeaders(),
    authorization: `Bearer ${access}`,
    'user-agent':
      profile.headers?.['user-agent'] ??
      userAgentOf(process.env.HEARTH_ANTIGRAVITY_VERSION?.trim() || VERSION_FALLBACK),
    'client-metadata': JSON.stringify(CLIENT_METADATA),
  }
  if (model.startsWith('claude-') && req.effort) headers['anthropic-beta'] = 'interleaved-thinking-2025-05-14'
  const build = () => {
    const [url, ...fallbackUrls] = antigravityBases(profile.endpoint).map(antigravityUrl)
    return { url, fallbackUrls, headers, body: JSON.stringify(envelope) }
  }
  const decoder = new SignedPartsDecoder()
  return streamStep(build, (bytes) => decodeWith(bytes, decoder), opts, access, {
    policy: geminiFailurePolicy(antigravityPolicy(model)),
    adjust: advise,
  })
}

async function* only(event: NeutralEvent): AsyncGenerator<NeutralEvent> {
  yield event
}

/**
 * The shared Gemini decoder reading the envelope's `response`, with the answer's signed
 * parts recorded as it streams: their `antigravity.parts` entry goes just before the
 * answer's usage and `done` (which come only at its end). Done inside the decoder, not by
 * re-yielding the stream, so a delta crosses no extra async step.
 */
class SignedPartsDecoder implements FrameDecoder {
  readonly #gemini = new GeminiDecoder({ unwrap: (chunk) => chunk.response })
  readonly #recorder = new PartsRecorder()
  #signed = false

  get finished(): boolean {
    return this.#gemini.finished
  }

  frame(frame: SseFrame): NeutralEvent[] {
    return this.#record(this.#gemini.frame(frame))
  }

  end(): NeutralEvent[] {
    return this.#record(this.#gemini.end())
  }

  #record(events: NeutralEvent[]): NeutralEvent[] {
    for (let i = 0; i < events.length; i++) {
      const event = events[i]
      if ((event.type === 'usage' || event.type === 'done') && !this.#signed) {
        this.#signed = true
        const entry = this.#recorder.entry(this.#gemini.signatures)
        if (entry) {
          events.splice(i, 0, entry)
          i++
        }
      }
      this.#recorder.see(event)
    }
    return events
  }
}

export const antigravity: Transport = { stream }

/** The transport the kernel finds by this folder's name (../transports.ts). */
export { antigravity as transport }
