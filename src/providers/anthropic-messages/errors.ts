// Anthropic's error vocabulary → stable codes. The Messages API answers an error as
// `{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"},
// "request_id": "req_…"}`, both as an HTTP body and as an `error` event inside a 200
// stream. The error type decides the code; the HTTP status only when the type is unknown.

import { type ErrorEvent, errorEvent } from '../shared/errors.ts'
import { codeForStatus, jsonFailure } from '../shared/http.ts'
import type { UpstreamErrorCode } from '../types.ts'

const CODES: Readonly<Record<string, UpstreamErrorCode>> = {
  invalid_request_error: 'upstream_rejected', // 400
  authentication_error: 'upstream_unauthorized', // 401
  billing_error: 'upstream_rejected', // 402
  permission_error: 'upstream_unauthorized', // 403
  not_found_error: 'upstream_rejected', // 404
  request_too_large: 'upstream_rejected', // 413
  rate_limit_error: 'upstream_rate_limited', // 429
  api_error: 'upstream_unavailable', // 500
  timeout_error: 'upstream_unavailable', // 504
  overloaded_error: 'upstream_unavailable', // 529
}

export interface AnthropicError {
  /** `error.type`, e.g. `overloaded_error`; null when the body does not say. */
  type: string | null
  message: string | null
  requestId: string | null
}

/** The error an Anthropic error object carries (`{type: 'error', error: {...}}` or the inner object). */
export function anthropicError(value: unknown): AnthropicError | null {
  if (typeof value !== 'object' || value === null) return null
  const outer = value as Record<string, unknown>
  const inner =
    typeof outer.error === 'object' && outer.error !== null ? (outer.error as Record<string, unknown>) : null
  if (!inner) return null
  return {
    type: typeof inner.type === 'string' && inner.type !== '' ? inner.type : null,
    message: typeof inner.message === 'string' && inner.message !== '' ? inner.message : null,
    requestId: typeof outer.request_id === 'string' ? outer.request_id : null,
  }
}

/** The stable code of an Anthropic error type; `status` decides for an unknown type. */
export function anthropicErrorCode(type: string | null, status: number | null): UpstreamErrorCode {
  const known = type ? CODES[type] : undefined
  if (known) return known
  return status === null ? 'upstream_rejected' : codeForStatus(status)
}

/** `<type>: <message>`, plus the request id Anthropic support asks for. */
function describe(err: AnthropicError, fallback: string): string {
  const text = err.message ?? fallback
  const typed = err.type ? `${err.type}: ${text}` : text
  return err.requestId ? `${typed} (request ${err.requestId})` : typed
}

/**
 * How a transport reads a non-2xx answer (the `failure` member of the openai-compatible
 * HTTP layer's FailurePolicy): the code from the error type, the message with the status,
 * retried when the code is rate-limited or unavailable (429, 500, 529). Null for a body
 * that is not Anthropic's error JSON: the HTTP layer's defaults apply.
 */
export function anthropicFailure(status: number, text: string) {
  return jsonFailure(status, text, (body) => {
    const err = anthropicError(body)
    return (
      err && {
        code: anthropicErrorCode(err.type, status),
        text: describe(err, `the upstream answered HTTP ${status}`),
      }
    )
  })
}

/** The event for an `error` event inside a 200 stream. */
export function streamErrorEvent(data: Record<string, unknown>): ErrorEvent {
  const err = anthropicError(data) ?? { type: null, message: null, requestId: null }
  return errorEvent(anthropicErrorCode(err.type, null), describe(err, 'the upstream reported an error'))
}
