// The `chatgpt` transport: one step against the Codex backend of a ChatGPT
// subscription (`POST {endpoint}/codex/responses`, Responses SSE). The body is the shared
// Responses encoding with the backend's rules forced on top; decoding, retries, timeouts
// and abort are the openai-compatible layer's. A refused token ends the step with
// `upstream_unauthorized` and a message ending in `run /login`; a used-up plan (429
// `usage_limit_reached` / `usage_not_included`) is not retried and says when it resets.
import { openaiDecoder, streamStep } from '../openai-compatible/transport.ts'
import { responsesBody } from '../openai-responses/encode.ts'
import { type ErrorEvent, errorEvent, redact } from '../shared/errors.ts'
import { type FailurePolicy, retryAfter } from '../shared/http.ts'
import { userAgent } from '../shared/user-agent.ts'
import type {
  EncodedRequest,
  NeutralEvent,
  NeutralRequest,
  StreamOptions,
  Transport,
  TransportProfile,
} from '../types.ts'
import { CHATGPT_ENDPOINT, CHATGPT_ORIGINATOR } from './constants.ts'
import { tokenClaims } from './jwt.ts'

export const ACCOUNT_HEADER = 'chatgpt-account-id'
export const SESSION_HEADER = 'session_id'
const RESPONSES_PATH = '/codex/responses'
/** Headers the transport owns; a profile's extra headers cannot replace them. */
const OWNED = new Set(['authorization', 'accept', 'content-type'])
const USAGE_LIMIT = new Set(['usage_limit_reached', 'usage_not_included'])
const LOGIN_ADVICE = 'run /login'

export { userAgent }

/** `{endpoint}/codex/responses`; an empty endpoint is the ChatGPT backend. Throws on a non-URL. */
export function chatgptUrl(endpoint: string): string {
  const base = (endpoint.trim() || CHATGPT_ENDPOINT).replace(/\/+$/, '')
  const url = base.endsWith(RESPONSES_PATH)
    ? base
    : base.endsWith('/codex')
      ? `${base}/responses`
      : `${base}${RESPONSES_PATH}`
  return new URL(url).toString()
}

/** The session id of a step: the daemon's `session_id` header, else the request's. */
function sessionIdOf(profile: TransportProfile, req: NeutralRequest): string {
  const given = headerOf(profile, SESSION_HEADER)
  return given ?? req.session_id
}

function headerOf(profile: TransportProfile, name: string): string | undefined {
  for (const [key, value] of Object.entries(profile.headers ?? {})) {
    if (key.toLowerCase() === name && value !== '') return value
  }
  return undefined
}

/**
 * The Responses body with the backend's rules: not stored, streamed, parallel tool calls
 * chosen automatically, low verbosity, encrypted reasoning included and replayed (the
 * `reasoning` items kept with earlier answers of this model, before them), the session as
 * the cache key, the system text as `instructions`, tools with `strict: null`, no
 * `max_output_tokens`.
 */
export function chatgptBody(profile: TransportProfile, req: NeutralRequest): Record<string, unknown> {
  const body = responsesBody(profile, req, { replayEncrypted: true })
  const tools = Array.isArray(body.tools) ? body.tools : []
  body.instructions = req.system ?? ''
  body.tools = tools.map((tool: Record<string, unknown>) => ({ ...tool, strict: null }))
  body.tool_choice = 'auto'
  body.parallel_tool_calls = true
  body.store = false
  body.stream = true
  body.include = ['reasoning.encrypted_content']
  body.prompt_cache_key = sessionIdOf(profile, req)
  body.text = { verbosity: 'low' }
  if (body.reasoning && typeof body.reasoning === 'object')
    body.reasoning = { ...body.reasoning, summary: 'auto' }
  delete body.max_output_tokens
  return body
}

/** The HTTP request for one step. Throws only on an endpoint that is not a URL. */
export function encode(profile: TransportProfile, req: NeutralRequest): EncodedRequest {
  const url = chatgptUrl(profile.endpoint)
  const sessionId = sessionIdOf(profile, req)
  const headers: Record<string, string> = {
    'openai-beta': 'responses=experimental',
    originator: CHATGPT_ORIGINATOR,
    'user-agent': userAgent(),
    [SESSION_HEADER]: sessionId,
  }
  const accountId = tokenClaims(undefined, profile.api_key).account_id
  if (accountId) headers[ACCOUNT_HEADER] = accountId
  for (const [name, value] of Object.entries(profile.headers ?? {})) {
    const key = name.toLowerCase()
    if (!OWNED.has(key)) headers[key] = value
  }
  headers[SESSION_HEADER] = sessionId
  if (profile.api_key) headers.authorization = `Bearer ${profile.api_key}`
  headers.accept = 'text/event-stream'
  headers['content-type'] = 'application/json'
  return { url, headers, body: JSON.stringify(chatgptBody(profile, req)) }
}

/** How long a used-up account is set aside when the backend says nothing about its reset. */
export const USAGE_LIMIT_FALLBACK_MS = 5 * 60_000

/**
 * A 429 that says the plan is used up (or has no Codex usage): not retried; its message
 * says when it resets, and `untilMs` is that reset (epoch ms) for the account's limit mark.
 * The reset comes from the error body (`resets_at`, unix seconds, or `resets_in_seconds`),
 * else from the latest reset of a limit window the headers report as used up
 * (`x-codex-primary-used-percent: 100` with `x-codex-primary-reset-at`), else Retry-After,
 * else {@link USAGE_LIMIT_FALLBACK_MS} from now.
 */
export function usageLimit(
  status: number,
  text: string,
  headers: Headers = new Headers(),
  now = Date.now(),
): { message: string; untilMs: number } | null {
  let body: any
  try {
    body = JSON.parse(text)
  } catch {
    return null
  }
  const error = typeof body?.error === 'object' && body.error !== null ? body.error : body
  const kind = [error?.code, error?.type].find((c) => typeof c === 'string' && USAGE_LIMIT.has(c))
  if (!kind) return null
  const plan =
    typeof error.plan_type === 'string' && error.plan_type !== '' ? ` (${error.plan_type} plan)` : ''
  const head =
    kind === 'usage_not_included'
      ? `HTTP ${status}: the ChatGPT plan does not include Codex usage${plan}`
      : `HTTP ${status}: usage limit reached${plan}`
  const resets = bodyReset(error, now) ?? headerReset(headers, now)
  // A plan without Codex usage has nothing that resets; the mark still sets it aside a while.
  const shown = kind === 'usage_not_included' ? null : resets
  const message = shown === null ? head : `${head}; resets at ${new Date(shown).toISOString()}`
  return { message, untilMs: resets ?? now + USAGE_LIMIT_FALLBACK_MS }
}

/** The message alone (see {@link usageLimit}). */
export function usageLimitMessage(status: number, text: string, now = Date.now()): string | null {
  return usageLimit(status, text, new Headers(), now)?.message ?? null
}

function bodyReset(error: Record<string, any>, now: number): number | null {
  const at = Number(error.resets_at)
  if (Number.isFinite(at) && at > 0) return at > 1e12 ? at : at * 1000
  const inSeconds = Number(error.resets_in_seconds)
  if (Number.isFinite(inSeconds) && inSeconds >= 0) return now + inSeconds * 1000
  return null
}

const USED_PERCENT = /^x-(.+)-(primary|secondary)-used-percent$/

/** The latest reset of the header-reported limit windows that are used up, else Retry-After. */
function headerReset(headers: Headers, now: number): number | null {
  let latest: number | null = null
  for (const [name, value] of headers) {
    const m = USED_PERCENT.exec(name)
    if (!m || !(Number(value) >= 100)) continue
    const prefix = `x-${m[1]}-${m[2]}`
    const at = Number(headers.get(`${prefix}-reset-at`) ?? Number.NaN)
    const after = Number(headers.get(`${prefix}-reset-after-seconds`) ?? Number.NaN)
    const reset =
      Number.isFinite(at) && at > 0
        ? at * 1000
        : Number.isFinite(after) && after >= 0
          ? now + after * 1000
          : null
    if (reset !== null && (latest === null || reset > latest)) latest = reset
  }
  if (latest !== null) return latest
  const waitMs = retryAfter(headers, now)
  return waitMs === null ? null : now + waitMs
}

const POLICY: FailurePolicy = {
  failure(status, text, headers) {
    if (status !== 429) return null
    const limit = usageLimit(status, text, headers)
    return limit
      ? {
          code: 'upstream_rate_limited',
          message: limit.message,
          retryable: false,
          limitedUntilMs: limit.untilMs,
        }
      : null
  },
}

/** A refused sign-in says what to do; every message is scrubbed of the token. */
function finish(event: ErrorEvent, token: string | null): ErrorEvent {
  let message = redact(event.message, token)
  if (event.code === 'upstream_unauthorized' && !message.endsWith(LOGIN_ADVICE)) {
    message = `${message.replace(/[\s.;:]+$/, '')}; the ChatGPT sign-in was refused, ${LOGIN_ADVICE}`
  }
  return { ...event, message }
}

async function* stream(
  profile: TransportProfile,
  req: NeutralRequest,
  opts: StreamOptions,
): AsyncGenerator<NeutralEvent> {
  const token = profile.api_key
  if (!token) {
    yield errorEvent('upstream_unauthorized', `not signed in to ChatGPT; ${LOGIN_ADVICE}`)
    return
  }
  // Encrypted reasoning the backend can no longer verify (another workspace signed in, say)
  // would fail every later step of the session: the step is sent once more without it.
  let unverifiable = false
  const policy: FailurePolicy = {
    failure(status, text, headers) {
      unverifiable = status === 400 && errorCodeOf(text) === UNVERIFIABLE_REASONING
      return POLICY.failure?.(status, text, headers) ?? null
    },
  }
  const step = (r: NeutralRequest) =>
    streamStep(
      () => encode(profile, r),
      openaiDecoder(
        'responses',
        r.tools.map((t) => t.name),
      ),
      opts,
      token,
      { policy, adjust: (event) => finish(event, token) },
    )
  for await (const event of step(req)) {
    if (event.type === 'error' && unverifiable && hasEncryptedReasoning(req)) {
      yield* step(withoutEncryptedReasoning(req))
      return
    }
    yield event
  }
}

const UNVERIFIABLE_REASONING = 'invalid_encrypted_content'

function errorCodeOf(text: string): unknown {
  try {
    return JSON.parse(text)?.error?.code
  } catch {
    return undefined
  }
}

const hasEncryptedReasoning = (req: NeutralRequest) =>
  req.messages.some((m) => m.role === 'assistant' && m.content.some((p) => p.type === 'encrypted_reasoning'))

function withoutEncryptedReasoning(req: NeutralRequest): NeutralRequest {
  return {
    ...req,
    messages: req.messages.map((m) =>
      m.role === 'assistant'
        ? { ...m, content: m.content.filter((p) => p.type !== 'encrypted_reasoning') }
        : m,
    ),
  }
}

export const chatgpt: Transport = { stream }

/** The transport the kernel finds by this folder's name (../transports.ts). */
export { chatgpt as transport }
