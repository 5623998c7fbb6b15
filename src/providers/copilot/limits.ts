// How Copilot's API says no (docs/providers.md, "copilot"), read into the stable codes:
//
// - 402 (or any status) with `{"error": {"code": "quota_exceeded"}}`: the account's premium
//   requests are used up ("You have no quota"). Not retried; the account is set aside until
//   Retry-After, else until the allowance renews (the first day of the next month, 00:00 UTC).
// - 429: a rate limit, retried as any 429; the account is set aside until Retry-After (or a
//   minute when the answer names no time), with the limit `x-ratelimit-exceeded` names.
// - 400/403 naming a model Copilot does not serve this account (`model_not_supported`, a
//   model disabled by a policy): the request's fault, said plainly.
// - 401 (and any other 403): the token was refused; the transport adds `run /login`.
import type { FailurePolicy } from '../shared/http.ts'
import { retryAfter } from '../shared/http.ts'

/** How long a rate-limited account is set aside when the answer names no time. */
export const RATE_LIMIT_FALLBACK_MS = 60_000

type Failure = ReturnType<NonNullable<FailurePolicy['failure']>>

/** The `error` object of a Copilot (OpenAI-style) error body, or the body itself. */
function errorOf(text: string): Record<string, unknown> | null {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return null
  }
  if (typeof body !== 'object' || body === null) return null
  const inner = (body as Record<string, unknown>).error
  return typeof inner === 'object' && inner !== null
    ? (inner as Record<string, unknown>)
    : (body as Record<string, unknown>)
}

const textOf = (v: unknown): string => (typeof v === 'string' ? v.trim() : '')

/** The first moment of the next calendar month, UTC: when monthly premium requests renew. */
export function nextMonthUtc(now: number): number {
  const d = new Date(now)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
}

/** A used-up premium-request allowance, with when it renews. */
export function quotaExceeded(status: number, text: string, headers: Headers, now = Date.now()): Failure {
  const error = errorOf(text)
  if (status !== 402 && textOf(error?.code) !== 'quota_exceeded') return null
  const wait = retryAfter(headers, now)
  const until = wait === null ? nextMonthUtc(now) : now + wait
  const said = textOf(error?.message)
  return {
    code: 'upstream_rate_limited',
    message: `HTTP ${status}: the Copilot premium requests of this account are used up${said ? ` (${said})` : ''}; they renew at ${new Date(until).toISOString()}`,
    retryable: false,
    limitedUntilMs: until,
  }
}

/** A rate limit: retried as any 429; the account's limit mark comes from Retry-After. */
function rateLimited(status: number, text: string, headers: Headers, now: number): Failure {
  if (status !== 429) return null
  const wait = retryAfter(headers, now)
  const said = textOf(errorOf(text)?.message) || 'rate limited'
  const key = headers.get('x-ratelimit-exceeded')
  return {
    message: `HTTP 429: ${said}${key ? ` (limit ${key})` : ''}`,
    limitedUntilMs: now + (wait ?? RATE_LIMIT_FALLBACK_MS),
  }
}

const MODEL_REFUSAL = /model.*(?:not (?:supported|enabled|available)|disabled|policy)|policy.*model/i

/** A model Copilot does not serve this account: not its plan, or disabled by a policy. */
function modelRefused(status: number, text: string, model: string): Failure {
  if (status !== 400 && status !== 403) return null
  const error = errorOf(text)
  const said = textOf(error?.message)
  if (textOf(error?.code) !== 'model_not_supported' && !MODEL_REFUSAL.test(said)) return null
  return {
    code: 'upstream_rejected',
    message: `HTTP ${status}: Copilot does not serve the model ${model} to this account (${said || 'model not supported'}); enable it in the account's Copilot settings on GitHub, or choose another model`,
    retryable: false,
  }
}

/** The failure policy of a step asking for `model`. */
export function copilotPolicy(model: string): FailurePolicy {
  return {
    failure(status, text, headers) {
      const now = Date.now()
      return (
        quotaExceeded(status, text, headers, now) ??
        modelRefused(status, text, model) ??
        rateLimited(status, text, headers, now)
      )
    },
  }
}
