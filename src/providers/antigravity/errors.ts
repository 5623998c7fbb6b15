// Google error bodies, decoded from the raw response text before anything is cut for
// display: a JSON body (`{"error": {code, message, status, details: [...]}}`), or SSE `data:`
// lines each carrying such JSON. The decoded values are walked as data, never searched with
// a pattern over formatted text, so a verification URL is found whole wherever the backend
// puts it (an ErrorInfo's metadata, a Help link, an ineligible tier's `validationUrl`).
import { GOOGLE_ACCOUNTS_URL } from './constants.ts'

export interface GoogleError {
  /** `error.message`, else the first message-like string in the body. */
  message: string | null
  /** `error.status`, e.g. `PERMISSION_DENIED`, `RESOURCE_EXHAUSTED`. */
  status: string | null
  /** ErrorInfo `reason` values and tier `reasonCode` values, in body order. */
  reasons: string[]
  /** A `VALIDATION_REQUIRED` reason anywhere in the body. */
  validationRequired: boolean
  /** The first usable verification page the body names (https on accounts.google.com), or null. */
  verifyUrl: string | null
  /** When the limit resets, ms from now (RetryInfo `retryDelay`, ErrorInfo `quotaResetDelay`). */
  retryAfterMs: number | null
  /** When the limit resets, epoch ms (ErrorInfo `quotaResetTimeStamp`). */
  resetAtMs: number | null
}

const URL_KEYS = new Set([
  'validation_url',
  'validationurl',
  'verify_url',
  'verifyurl',
  'verification_url',
  'verificationurl',
  'url',
])
const MESSAGE_KEYS = new Set(['message', 'reasonmessage', 'error_description', 'description'])

/** The JSON values of a raw body: the body itself, or each SSE `data:` line. */
export function bodyValues(raw: string): unknown[] {
  const parse = (text: string): unknown[] => {
    try {
      return [JSON.parse(text)]
    } catch {
      return []
    }
  }
  const whole = parse(raw.trim())
  if (whole.length > 0) return whole
  return raw.split(/\r?\n/).flatMap((line) => (line.startsWith('data:') ? parse(line.slice(5).trim()) : []))
}

/** A verification page a person can be sent to: an https URL on accounts.google.com. */
export function usableVerifyUrl(value: string): string | null {
  try {
    const url = new URL(value.trim())
    return url.protocol === 'https:' && url.hostname === 'accounts.google.com' ? url.toString() : null
  } catch {
    return null
  }
}

/** Parses a protobuf Duration as JSON writes it (`"3.5s"`); null when it is not one. */
export function durationMs(value: unknown): number | null {
  if (typeof value !== 'string' || !value.endsWith('s')) return null
  const seconds = Number(value.slice(0, -1))
  return Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds * 1000) : null
}

export function decodeGoogleError(raw: string): GoogleError {
  const out: GoogleError = {
    message: null,
    status: null,
    reasons: [],
    validationRequired: false,
    verifyUrl: null,
    retryAfterMs: null,
    resetAtMs: null,
  }
  const seen = new Set<unknown>()
  const walk = (value: unknown, key: string): void => {
    if (typeof value === 'string') readString(out, key.toLowerCase(), value)
    if (typeof value !== 'object' || value === null || seen.has(value)) return
    seen.add(value)
    if (Array.isArray(value)) for (const item of value) walk(item, key)
    else for (const [k, v] of Object.entries(value)) walk(v, k)
  }
  for (const value of bodyValues(raw)) {
    const error = isObject(value) && isObject(value.error) ? value.error : null
    if (error && typeof error.message === 'string' && out.message === null) out.message = error.message
    if (error && typeof error.status === 'string' && out.status === null) out.status = error.status
    walk(value, '')
  }
  return out
}

function readString(out: GoogleError, key: string, value: string): void {
  if (value === 'VALIDATION_REQUIRED') out.validationRequired = true
  if ((key === 'reason' || key === 'reasoncode') && !out.reasons.includes(value)) out.reasons.push(value)
  if (URL_KEYS.has(key) && out.verifyUrl === null) out.verifyUrl = usableVerifyUrl(value)
  if (MESSAGE_KEYS.has(key) && out.message === null && value !== '') out.message = value
  if (key === 'retrydelay' || key === 'quotaresetdelay') {
    const ms = durationMs(value)
    if (ms !== null && out.retryAfterMs === null) out.retryAfterMs = ms
  }
  if (key === 'quotaresettimestamp' && out.resetAtMs === null) {
    const at = Date.parse(value)
    if (Number.isFinite(at)) out.resetAtMs = at
  }
}

/**
 * The page a person must open when the account needs verification: the body's own URL, the
 * Google Accounts page only when a VALIDATION_REQUIRED error names no usable one, and null
 * when the body asks for no verification.
 */
export function verificationUrl(error: GoogleError): string | null {
  if (!error.validationRequired) return null
  return error.verifyUrl ?? GOOGLE_ACCOUNTS_URL
}

/** Cuts a text for display, after it has been decoded. */
export function clip(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
