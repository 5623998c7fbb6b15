// One POST to an OAuth token endpoint (a code exchange or a refresh), shared by the sign-in
// plugins. A 2xx JSON object comes back; anything else is a SignInError with a stable code
// and a message that never carries the code, the verifier or a token of the request.
import { describe, redact } from './errors.ts'
import { SignInError } from './sign-in-plugin.ts'

/** Vendor error codes that mean the refresh token can never be used again. */
const DEAD_REFRESH = new Set([
  'invalid_grant',
  'refresh_token_expired',
  'refresh_token_reused',
  'refresh_token_invalidated',
])
const DESCRIPTION_LIMIT = 300

export interface TokenPost {
  /** The provider's name in messages, e.g. `ChatGPT`. */
  provider: string
  contentType: 'application/json' | 'application/x-www-form-urlencoded'
  body: string
  signal: AbortSignal
  /** Values to cut out of any message (code, verifier, tokens). */
  secrets: (string | undefined)[]
  what: 'sign-in' | 'token refresh'
}

/**
 * POSTs to the token endpoint. Refusals: a refresh refused with a dead-token code or 401 is
 * `invalid_grant` (the message ends `sign in again`); another refusal takes the body's
 * `error` (or `error.code`/`error.type`), else `server_error` (5xx) or
 * `token_request_failed`; a 2xx without a JSON object is `invalid_response`; no
 * connection is `unreachable`; an aborted signal rethrows the abort.
 */
export async function postToken(
  fetchFn: typeof globalThis.fetch,
  url: string,
  init: TokenPost,
): Promise<Record<string, unknown>> {
  const clean = (message: string) => init.secrets.reduce<string>((m, s) => redact(m, s ?? null), message)
  let res: Response
  let text: string
  try {
    res = await fetchFn(url, {
      method: 'POST',
      headers: { 'content-type': init.contentType, accept: 'application/json' },
      body: init.body,
      signal: init.signal,
    })
    text = await res.text()
  } catch (err) {
    if (init.signal.aborted) throw err
    throw new SignInError('unreachable', clean(`could not reach ${originOf(url)}: ${describe(err)}`))
  }
  let body: unknown = null
  try {
    body = JSON.parse(text)
  } catch {
    // reported below
  }
  const obj =
    typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, any>) : {}
  if (res.ok) {
    if (body === obj) return obj
    throw new SignInError(
      'invalid_response',
      `the ${init.provider} ${init.what} answered HTTP ${res.status} without a JSON object`,
    )
  }
  const inner = typeof obj.error === 'object' && obj.error !== null ? obj.error : null
  const vendorCode = str(inner ? (inner.code ?? inner.type) : obj.error)
  let description = str(inner ? inner.message : obj.error_description) ?? str(obj.message)
  if (description && description.length > DESCRIPTION_LIMIT)
    description = `${description.slice(0, DESCRIPTION_LIMIT)}…`
  const dead =
    init.what === 'token refresh' && ((vendorCode && DEAD_REFRESH.has(vendorCode)) || res.status === 401)
  const code = dead
    ? 'invalid_grant'
    : (vendorCode ?? (res.status >= 500 ? 'server_error' : 'token_request_failed'))
  const detail = description ?? vendorCode ?? 'refused'
  const advice = dead ? '; sign in again' : ''
  throw new SignInError(
    code,
    clean(`the ${init.provider} ${init.what} failed: ${detail} (HTTP ${res.status})${advice}`),
  )
}

function originOf(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return 'the token endpoint'
  }
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}
