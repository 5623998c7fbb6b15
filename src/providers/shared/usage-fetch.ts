// What every usage feed of the usage core shares (src/usage-core/, docs/quota.md "The usage
// core"): the feed's shape, the failure it throws, and the one HTTP call it makes, bounded
// by a timeout. A feed reads its credential from the environment (the variables CodexBar
// reads), calls its vendor's usage endpoint and maps the answer onto CodexBar's report.
import type { TSchema } from 'typebox'
import { Check } from 'typebox/value'
import type { RateWindow, UsageSnapshot } from '../../quota/report.ts'

export type Env = Readonly<Record<string, string | undefined>>

/**
 * The core's exit codes for a feed's failure: CORE_EXIT of src/quota/report.ts (CodexBar's:
 * 1 failure, 3 parse, 4 timeout), restated because providers import nothing of quota at run
 * time (the poller imports providers; test/usage-core checks the two agree).
 */
export const FAILURE = { failed: 1, parse: 3, timeout: 4 } as const

/** A feed's failure: its message is shown as the report's error (never with a credential in it). */
export class UsageFailure extends Error {
  readonly code: number
  constructor(message: string, code: number = FAILURE.failed) {
    super(message)
    this.code = code
  }
}

/** Bounds on the vendor calls of one run of the core. */
export interface CallLimits {
  /** One call's limit. */
  callMs: number
  /** Epoch ms past which no call may run (the whole run's limit). */
  deadline: number
}

export interface UsageFeed {
  /** The feed id (`usage --provider <id>`). */
  id: string
  /** Where it reads usage: `oauth` (a sign-in's token) or `api` (an API key). */
  source: 'oauth' | 'api'
  /** The credentials of `env` that must never be printed (they are scrubbed from every message). */
  secrets(env: Env): string[]
  fetch(env: Env, limits: CallLimits): Promise<UsageSnapshot | FeedAnswer>
}

/** A feed's usage with the account's name when the vendor's answer gives one (the report's `account`). */
export interface FeedAnswer {
  usage: UsageSnapshot
  account: string | null
}

/** The answer of one call: its status, headers and body text. */
export interface Answer {
  status: number
  headers: Headers
  text: string
}

export interface Call {
  method?: 'GET' | 'POST'
  headers: Record<string, string>
  body?: unknown
  /** The vendor's name in messages ("Codex", "Claude OAuth" …). */
  vendor: string
}

/** One request, bounded by the limits; network failures and timeouts become UsageFailures. */
export async function call(url: string, req: Call, limits: CallLimits): Promise<Answer> {
  const ms = Math.max(1, Math.min(limits.callMs, limits.deadline - Date.now()))
  const headers = { ...req.headers }
  if (req.body !== undefined) headers['Content-Type'] = 'application/json'
  try {
    const res = await fetch(url, {
      method: req.method ?? 'GET',
      headers,
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      signal: AbortSignal.timeout(ms),
    })
    return { status: res.status, headers: res.headers, text: await res.text() }
  } catch (err) {
    const name = (err as Error).name
    if (name === 'TimeoutError' || name === 'AbortError')
      throw new UsageFailure(`${req.vendor} usage request timed out after ${ms} ms.`, FAILURE.timeout)
    throw new UsageFailure(`${req.vendor} network error: ${causeOf(err)}`)
  }
}

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause
  return cause?.code ?? cause?.message ?? (err as Error).message
}

/** The body as JSON checked against `schema`, or a parse failure naming the vendor. */
export function parseJson<T>(text: string, schema: TSchema, vendor: string): T {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new UsageFailure(`Could not parse ${vendor} usage response: not JSON.`, FAILURE.parse)
  }
  return checkShape<T>(value, schema, vendor)
}

/** The value when it fits `schema`, or a parse failure naming the vendor. */
export function checkShape<T>(value: unknown, schema: TSchema, vendor: string): T {
  if (!Check(schema, value))
    throw new UsageFailure(`Could not parse ${vendor} usage response: unexpected shape.`, FAILURE.parse)
  return value as T
}

/** A short, one-line excerpt of an error body for a message. */
export function excerpt(text: string, max = 200): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max)}…` : line
}

/** Epoch seconds or milliseconds (told apart by size) or an RFC 3339 string as CodexBar's ISO 8601 (no fraction). */
export function isoOf(value: number | string | null | undefined): string | undefined {
  let ms: number
  if (typeof value === 'number') ms = value > 1e12 ? value : value * 1000
  else if (typeof value === 'string' && value.trim()) ms = Date.parse(value)
  else return undefined
  if (!Number.isFinite(ms) || ms <= 0) return undefined
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')
}

/** A window with only the fields known (CodexBar omits the absent ones). */
export function windowOf(
  usedPercent: number,
  windowMinutes?: number | null,
  resetsAt?: string,
  resetDescription?: string,
): RateWindow {
  const w: RateWindow = { usedPercent }
  if (windowMinutes !== undefined && windowMinutes !== null) w.windowMinutes = windowMinutes
  if (resetsAt !== undefined) w.resetsAt = resetsAt
  if (resetDescription !== undefined) w.resetDescription = resetDescription
  return w
}

/** CodexBar's identity fields, both in `identity` and (flattened) on the snapshot. */
export function withIdentity(
  usage: UsageSnapshot,
  providerID: string,
  accountEmail: string | null,
  loginMethod: string | null,
): UsageSnapshot {
  const identity = { providerID, accountEmail, accountOrganization: null, loginMethod }
  const out: UsageSnapshot = { ...usage, updatedAt: isoOf(Date.now()), identity }
  if (accountEmail !== null) out.accountEmail = accountEmail
  if (loginMethod !== null) out.loginMethod = loginMethod
  return out
}

/** CodexBar's id slug: lower case, runs of other characters as one dash, no dash at the ends. */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
}

/** A trimmed string, or null for anything else or an empty one. */
export function nonEmpty(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null
}

/** The base URL of an endpoint: the test override when set, else the vendor's; no trailing slash. */
export function baseOf(env: Env, override: string, vendorBase: string): string {
  return (env[override]?.trim() || vendorBase).replace(/\/+$/, '')
}
