// The `chatgpt` transport: one model turn against the Codex backend of a ChatGPT
// subscription (`POST {endpoint}/codex/responses`, Responses SSE). The body is the shared
// Responses encoding with the backend's rules forced on top; decoding, retries, timeouts
// and abort are the openai-compatible layer's. A refused token ends the turn with
// `upstream_unauthorized` and a message ending in `run /login`; a used-up plan (429
// `usage_limit_reached` / `usage_not_included`) is not retried and says when it resets.
import { arch, platform, release } from 'node:os'
import { VERSION } from '../../build-info.ts'
import { responsesBody } from '../openai-compatible/encode-responses.ts'
import { type ErrorEvent, errorEvent, redact } from '../openai-compatible/errors.ts'
import type { FailurePolicy } from '../openai-compatible/http.ts'
import { streamTurn } from '../openai-compatible/transport.ts'
import type {
  EncodedRequest,
  NeutralEvent,
  NeutralRequest,
  StreamOptions,
  Transport,
  TransportProfile,
} from '../types.ts'
import { CHATGPT_ORIGINATOR } from './constants.ts'
import { tokenClaims } from './jwt.ts'

export const CHATGPT_ENDPOINT = 'https://chatgpt.com/backend-api'
export const ACCOUNT_HEADER = 'chatgpt-account-id'
export const SESSION_HEADER = 'session_id'
const RESPONSES_PATH = '/codex/responses'
/** Headers the transport owns; a profile's extra headers cannot replace them. */
const OWNED = new Set(['authorization', 'accept', 'content-type'])
const USAGE_LIMIT = new Set(['usage_limit_reached', 'usage_not_included'])
const LOGIN_ADVICE = 'run /login'

/** `hearth/<version> (<platform> <release>; <arch>)`. */
export function userAgent(): string {
  return `hearth/${VERSION} (${platform()} ${release()}; ${arch()})`
}

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

/** The session id of a turn: the daemon's `session_id` header, else the request's. */
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
 * chosen automatically, low verbosity, encrypted reasoning included for replay, the
 * session as the cache key, the system text as `instructions`, tools without `strict`,
 * no `max_output_tokens`.
 */
export function chatgptBody(profile: TransportProfile, req: NeutralRequest): Record<string, unknown> {
  const body = responsesBody(profile, req)
  const tools = Array.isArray(body.tools) ? body.tools : []
  body.instructions = req.system ?? ''
  body.tools = tools.map((tool: Record<string, unknown>) => {
    const { strict: _strict, ...rest } = tool
    return rest
  })
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

/** The HTTP request for one turn. Throws only on an endpoint that is not a URL. */
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

/** A 429 that says the plan is used up (or has no Codex usage): not retried, says when it resets. */
export function usageLimitMessage(status: number, text: string, now = Date.now()): string | null {
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
  const resets = resetTime(error, now)
  return resets ? `${head}; resets at ${resets}` : head
}

function resetTime(error: Record<string, any>, now: number): string | null {
  const at = Number(error.resets_at)
  if (Number.isFinite(at) && at > 0) return new Date(at > 1e12 ? at : at * 1000).toISOString()
  const inSeconds = Number(error.resets_in_seconds)
  if (Number.isFinite(inSeconds) && inSeconds >= 0) return new Date(now + inSeconds * 1000).toISOString()
  return null
}

const POLICY: FailurePolicy = {
  failure(status, text) {
    if (status !== 429) return null
    const message = usageLimitMessage(status, text)
    return message ? { code: 'upstream_rate_limited', message, retryable: false } : null
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
  yield* streamTurn(() => encode(profile, req), 'responses', opts, token, {
    policy: POLICY,
    adjust: (event) => finish(event, token),
  })
}

export const chatgpt: Transport = { stream }
