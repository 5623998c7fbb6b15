// Failure vocabulary shared by the HTTP layer and the decoders: a typed fault the body
// stream throws (so a decoder can turn it into the right `error` event), the mapping of
// vendor error codes to stable codes, and the redaction that keeps keys out of messages.

import { CodedError } from '../../util/coded-error.ts'
import type { NeutralEvent, UpstreamErrorCode } from '../types.ts'

export type ErrorEvent = Extract<NeutralEvent, { type: 'error' }>

/** Thrown by a guarded body stream: a timeout, an abort or a dropped connection. */
export class UpstreamFault extends CodedError<UpstreamErrorCode> {
  override readonly name = 'UpstreamFault'
}

export function errorEvent(
  code: UpstreamErrorCode,
  message: string,
  status: number | null = null,
): ErrorEvent {
  return { type: 'error', code, message, status }
}

/** The event for anything a byte source threw while a decoder was reading it. */
export function faultEvent(err: unknown): ErrorEvent {
  if (err instanceof UpstreamFault) return errorEvent(err.code, err.message)
  return errorEvent(
    'upstream_dropped',
    `the connection ended before the response was complete (${describe(err)})`,
  )
}

const RATE_LIMITED = new Set([
  'rate_limit_exceeded',
  'rate_limit_error',
  'insufficient_quota',
  'usage_limit_reached',
])
const UNAVAILABLE = new Set([
  'server_error',
  'overloaded',
  'overloaded_error',
  'service_unavailable',
  'api_error',
])
const UNAUTHORIZED = new Set(['invalid_api_key', 'authentication_error', 'unauthorized', 'permission_denied'])

/**
 * The stable code for an error the upstream reported inside a 200 stream (`error` or
 * `response.failed` events, a chat chunk carrying `error`), from its `code` or `type`.
 */
export function codeForStreamError(code: unknown, type: unknown): UpstreamErrorCode {
  for (const c of [code, type]) {
    if (typeof c !== 'string') continue
    if (RATE_LIMITED.has(c)) return 'upstream_rate_limited'
    if (UNAVAILABLE.has(c)) return 'upstream_unavailable'
    if (UNAUTHORIZED.has(c)) return 'upstream_unauthorized'
  }
  return 'upstream_rejected'
}

/** A readable message from an upstream error object (`{message, code}` or `{error: {...}}`). */
export function streamErrorMessage(obj: Record<string, any> | null | undefined, fallback: string): string {
  const inner = obj && typeof obj.error === 'object' && obj.error !== null ? obj.error : obj
  const message = inner?.message
  const code = inner?.code ?? inner?.type
  if (typeof message === 'string' && message !== '')
    return typeof code === 'string' ? `${code}: ${message}` : message
  return typeof code === 'string' ? code : fallback
}

/** Replaces every occurrence of the secret (and of its bearer form) in a message. */
export function redact(message: string, secret: string | null): string {
  if (!secret || secret.length < 4) return message
  return message.split(secret).join('[redacted]')
}

export function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause
    const causeText = cause instanceof Error ? ((cause as { code?: string }).code ?? cause.message) : null
    return causeText ? `${err.message}: ${causeText}` : err.message
  }
  return String(err)
}
