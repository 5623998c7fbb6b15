// Google's error vocabulary → stable codes. Google APIs answer an error as
// `{"error": {"code": 429, "message": "…", "status": "RESOURCE_EXHAUSTED", "details": […]}}`
// (google.rpc.Status), as an HTTP body and, rarely, as a chunk of a 200 stream; a stream
// request without `alt=sse` wraps it in an array. The `status` string decides the code;
// the HTTP status only when it is missing or unknown.
import { type ErrorEvent, errorEvent } from '../shared/errors.ts'
import { codeForStatus, jsonFailure } from '../shared/http.ts'
import type { UpstreamErrorCode } from '../types.ts'

const CODES: Readonly<Record<string, UpstreamErrorCode>> = {
  INVALID_ARGUMENT: 'upstream_rejected', // 400
  FAILED_PRECONDITION: 'upstream_rejected', // 400 (e.g. billing not enabled, region)
  OUT_OF_RANGE: 'upstream_rejected', // 400
  NOT_FOUND: 'upstream_rejected', // 404 (model or project)
  ALREADY_EXISTS: 'upstream_rejected', // 409
  ABORTED: 'upstream_rejected', // 409
  CANCELLED: 'upstream_rejected', // 499
  UNAUTHENTICATED: 'upstream_unauthorized', // 401
  PERMISSION_DENIED: 'upstream_unauthorized', // 403
  RESOURCE_EXHAUSTED: 'upstream_rate_limited', // 429
  INTERNAL: 'upstream_unavailable', // 500
  UNKNOWN: 'upstream_unavailable', // 500
  UNAVAILABLE: 'upstream_unavailable', // 503
  DEADLINE_EXCEEDED: 'upstream_unavailable', // 504
}

export interface GoogleError {
  status: string | null
  message: string | null
  /** The `code` inside the body (the HTTP status it stands for). */
  httpCode: number | null
}

/** The error a Google error body carries (`{error: {...}}`, or an array holding one). */
export function googleError(value: unknown): GoogleError | null {
  const outer = Array.isArray(value) ? value[0] : value
  if (typeof outer !== 'object' || outer === null) return null
  const inner = (outer as Record<string, unknown>).error
  if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) return null
  const e = inner as Record<string, unknown>
  return {
    status: typeof e.status === 'string' && e.status !== '' ? e.status : null,
    message: typeof e.message === 'string' && e.message !== '' ? e.message : null,
    httpCode: typeof e.code === 'number' ? e.code : null,
  }
}

export function googleErrorCode(err: GoogleError, status: number | null): UpstreamErrorCode {
  const known = err.status ? CODES[err.status] : undefined
  if (known) return known
  const http = status ?? err.httpCode
  return http === null ? 'upstream_rejected' : codeForStatus(http)
}

function describe(err: GoogleError, fallback: string): string {
  const text = err.message ?? fallback
  return err.status ? `${err.status}: ${text}` : text
}

/**
 * How a transport reads a non-2xx answer (a FailurePolicy `failure`): the code from the
 * body's `status`, the message with the HTTP status, retried when rate-limited or
 * unavailable. Null for a body that is not Google's error JSON: the HTTP layer's defaults.
 */
export function geminiFailure(status: number, text: string) {
  return jsonFailure(status, text, (body) => {
    const err = googleError(body)
    return (
      err && {
        code: googleErrorCode(err, status),
        text: describe(err, `the upstream answered HTTP ${status}`),
      }
    )
  })
}

/** The event for an error object inside a 200 stream. */
export function streamErrorEvent(err: GoogleError): ErrorEvent {
  return errorEvent(googleErrorCode(err, null), describe(err, 'the upstream reported an error'))
}
