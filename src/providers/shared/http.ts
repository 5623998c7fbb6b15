// The HTTP half of the transport: POST the encoded request, retry 429/5xx/connect errors
// before the first byte of a 200 body, map statuses to stable codes, and hand back a body
// stream guarded by the idle timeout and the caller's signal. Never throws.

import { setTimeout as sleep } from 'node:timers/promises'
import { HostSequence } from '../hosts.ts'
import type { EncodedRequest, StreamOptions, UpstreamErrorCode } from '../types.ts'
import { codeForStreamError, describe, type ErrorEvent, errorEvent, redact, UpstreamFault } from './errors.ts'
import { postRequest } from './post.ts'

export const DEFAULT_MAX_RETRIES = 3
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000
export const RETRY_BASE_MS = 500
export const RETRY_CAP_MS = 8_000
/** A Retry-After longer than this is not waited for: the step fails at once and says so. */
export const MAX_RETRY_AFTER_MS = 60_000
const ERROR_BODY_LIMIT = 64 * 1024
/** A whole (unstreamed) answer can be long: a tool call with a file's content, say. */
const WHOLE_BODY_LIMIT = 16 * 1024 * 1024

/** Default backoff: the upstream's Retry-After when given, else 500 ms · 2^(n-1), at most 8 s. */
export function defaultRetryDelayMs(attempt: number, retryAfterMs: number | null): number {
  if (retryAfterMs !== null) return retryAfterMs
  return Math.min(RETRY_BASE_MS * 2 ** (attempt - 1), RETRY_CAP_MS)
}

export type Opened =
  | {
      ok: true
      status: number
      body: AsyncIterable<Uint8Array>
      /** Closes the upstream connection if the body was not read to its end. Idempotent. */
      close(): void
    }
  | { ok: false; error: ErrorEvent }

/**
 * How a provider reads its own error answers. `failure` sees a non-2xx status and the body
 * text; a field it returns replaces the default (code from the status, the upstream's
 * message, retried when rate-limited or unavailable). The message is redacted either way.
 */
export interface FailurePolicy {
  /**
   * A wire's reading of a 200 answer in JSON instead of an event stream (a server that
   * ignored the streaming parameter, a proxy that buffered): the event-stream text the
   * wire's decoder reads, or null when `body` is no whole answer of the wire.
   */
  whole?(body: unknown): string | null
  failure?(
    status: number,
    text: string,
    headers: Headers,
  ): { code?: UpstreamErrorCode; message?: string; retryable?: boolean; limitedUntilMs?: number } | null
}

/**
 * A wire's reading of a non-2xx answer from its JSON error body: `read` gives the code and
 * the text of a body it knows, null otherwise (the HTTP layer's defaults then apply). The
 * message carries the HTTP status; rate-limited and unavailable answers are retried.
 */
export function jsonFailure(
  status: number,
  text: string,
  read: (body: unknown) => { code: UpstreamErrorCode; text: string } | null,
): { code: UpstreamErrorCode; message: string; retryable: boolean } | null {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return null
  }
  const found = read(body)
  if (!found) return null
  const { code } = found
  return {
    code,
    message: `HTTP ${status}: ${found.text}`,
    retryable: code === 'upstream_rate_limited' || code === 'upstream_unavailable',
  }
}

/**
 * A wire's reading of its error bodies (`wire`) under a provider's own policy (a usage-limit
 * reading, a refused token): the provider is asked first and its fields win where it answers.
 */
export function layeredPolicy(
  wire: FailurePolicy['failure'],
  own: FailurePolicy = {},
  whole?: FailurePolicy['whole'],
): FailurePolicy {
  return {
    whole: own.whole ?? whole,
    failure(status, text, headers) {
      const mine = own.failure?.(status, text, headers) ?? null
      const base = wire?.(status, text, headers) ?? null
      if (!mine) return base
      return { ...(base ?? {}), ...mine }
    },
  }
}

export async function openStream(
  req: EncodedRequest,
  opts: StreamOptions,
  secret: string | null,
  policy: FailurePolicy = {},
): Promise<Opened> {
  const fetchFn = opts.fetch ?? postRequest
  const maxRetries = opts.maxRetries ?? DEFAULT_MAX_RETRIES
  const delayFor = opts.retryDelayMs ?? defaultRetryDelayMs
  const idleMs = opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS
  const hosts = new HostSequence([req.url, ...(req.fallbackUrls ?? [])])
  for (let attempt = 0; ; attempt++) {
    if (opts.signal.aborted) return { ok: false, error: aborted() }
    const url = hosts.current
    const origin = safeOrigin(url)
    const guard = new Guard(opts.signal, idleMs)
    let failure: {
      error: ErrorEvent
      retryAfterMs: number | null
      retryable: boolean
      /** The answer's status; null when the host could not be reached. */
      status: number | null
    }
    try {
      const res = await fetchFn(url, {
        method: 'POST',
        headers: req.headers,
        body: req.body,
        signal: guard.signal,
      })
      const ok = res.status >= 200 && res.status < 300
      if (ok && isJson(res.headers)) {
        // A server that ignored `stream: true` or reports an error with a 200.
        const text = await readErrorBody(res, guard, WHOLE_BODY_LIMIT)
        guard.dispose()
        const whole = wholeAnswer(text, policy.whole)
        if (whole) return { ok: true, status: res.status, body: whole, close: () => {} }
        return { ok: false, error: notAStream(text, res.status, secret) }
      }
      if (ok && res.body) {
        guard.pause()
        return { ok: true, status: res.status, body: guard.body(res.body), close: () => guard.close() }
      }
      const text = await readErrorBody(res, guard)
      guard.dispose()
      const own = policy.failure?.(res.status, text, res.headers) ?? null
      const message = redact(own?.message ?? upstreamMessage(text, res.status), secret)
      const code = own?.code ?? codeForStatus(res.status)
      const retryable =
        own?.retryable ?? (code === 'upstream_rate_limited' || code === 'upstream_unavailable')
      const retryAfterMs = retryAfter(res.headers)
      const error = errorEvent(code, message, res.status)
      // When the credential may be used again: the provider's own reading, else Retry-After.
      const limitedUntil =
        own?.limitedUntilMs ??
        (code === 'upstream_rate_limited' && retryAfterMs !== null ? Date.now() + retryAfterMs : undefined)
      if (limitedUntil !== undefined) error.limited_until_ms = limitedUntil
      failure = { error, retryAfterMs, retryable, status: res.status }
    } catch (err) {
      guard.dispose()
      if (opts.signal.aborted) return { ok: false, error: aborted() }
      if (guard.timedOut) {
        return {
          ok: false,
          error: errorEvent('upstream_timeout', `no response from ${origin} within ${idleMs} ms`),
        }
      }
      const message = redact(`could not reach ${origin}: ${describe(err)}`, secret)
      failure = {
        error: errorEvent('upstream_unavailable', message),
        retryAfterMs: null,
        retryable: true,
        status: null,
      }
    }
    if (opts.signal.aborted) return { ok: false, error: aborted() }
    if (hosts.moveOn(failure.status)) {
      // The next host gets the request at once; the attempt is not counted.
      attempt--
      continue
    }
    const { error, retryAfterMs, retryable } = failure
    if (!retryable || attempt >= maxRetries) return { ok: false, error }
    if (retryAfterMs !== null && retryAfterMs > MAX_RETRY_AFTER_MS) {
      return {
        ok: false,
        error: { ...error, message: `${error.message} (retry after ${Math.ceil(retryAfterMs / 1000)} s)` },
      }
    }
    try {
      await sleep(Math.max(0, delayFor(attempt + 1, retryAfterMs)), undefined, { signal: opts.signal })
    } catch {
      return { ok: false, error: aborted() }
    }
  }
}

export function codeForStatus(status: number): UpstreamErrorCode {
  if (status === 401 || status === 403) return 'upstream_unauthorized'
  if (status === 429) return 'upstream_rate_limited'
  if (status >= 500) return 'upstream_unavailable'
  return 'upstream_rejected'
}

function aborted(): ErrorEvent {
  return errorEvent('aborted', 'the request was aborted')
}

/**
 * One attempt's abort controller: linked to the caller's signal, and fired by an idle timer
 * that is re-armed by every byte received. It turns read errors into typed faults.
 */
class Guard {
  readonly #ctrl = new AbortController()
  readonly #outer: AbortSignal
  readonly #idleMs: number
  #timer: NodeJS.Timeout | undefined
  readonly #onAbort = () => this.#ctrl.abort(this.#outer.reason)
  timedOut = false

  constructor(outer: AbortSignal, idleMs: number) {
    this.#outer = outer
    this.#idleMs = idleMs
    outer.addEventListener('abort', this.#onAbort, { once: true })
    this.arm()
  }

  get signal(): AbortSignal {
    return this.#ctrl.signal
  }

  arm(): void {
    clearTimeout(this.#timer)
    this.#timer = setTimeout(() => {
      this.timedOut = true
      this.#ctrl.abort(new Error('idle timeout'))
    }, this.#idleMs)
  }

  /** Stops the idle timer while the consumer, not the upstream, holds things up. */
  pause(): void {
    clearTimeout(this.#timer)
  }

  dispose(): void {
    clearTimeout(this.#timer)
    this.#outer.removeEventListener('abort', this.#onAbort)
  }

  /** Ends the attempt: the upstream connection is closed if it is still open. */
  close(): void {
    this.dispose()
    if (!this.#ctrl.signal.aborted) this.#ctrl.abort(new Error('closed'))
  }

  fault(err: unknown): UpstreamFault {
    if (this.#outer.aborted) return new UpstreamFault('aborted', 'the request was aborted')
    if (this.timedOut) return new UpstreamFault('upstream_timeout', `no byte received for ${this.#idleMs} ms`)
    return new UpstreamFault(
      'upstream_dropped',
      `the connection ended before the response was complete (${describe(err)})`,
    )
  }

  async *body(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
    const reader = stream.getReader()
    let finished = false
    try {
      while (true) {
        let chunk: Awaited<ReturnType<typeof reader.read>>
        this.arm()
        try {
          chunk = await reader.read()
        } catch (err) {
          throw this.fault(err)
        } finally {
          this.pause()
        }
        if (chunk.done) {
          finished = true
          return
        }
        yield chunk.value
      }
    } finally {
      if (!finished) await reader.cancel().catch(() => {})
      this.close()
    }
  }
}

async function readErrorBody(res: Response, guard: Guard, limit = ERROR_BODY_LIMIT): Promise<string> {
  if (!res.body) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    for await (const chunk of guard.body(res.body)) {
      chunks.push(chunk)
      size += chunk.byteLength
      if (size >= limit) break
    }
  } catch {
    // A body that stalls or drops still leaves the status to report.
  }
  return new TextDecoder().decode(Buffer.concat(chunks)).slice(0, limit)
}

/** The upstream's own error message (`{error: {message}}`, `{message}`, or plain text). */
export function upstreamMessage(text: string, status: number): string {
  const fallback = `the upstream answered HTTP ${status}`
  const trimmed = text.trim()
  if (trimmed === '') return fallback
  try {
    const body = JSON.parse(trimmed)
    const inner = typeof body?.error === 'object' && body.error !== null ? body.error : body
    if (typeof inner?.message === 'string' && inner.message !== '') return `HTTP ${status}: ${inner.message}`
    if (typeof body?.error === 'string' && body.error !== '') return `HTTP ${status}: ${body.error}`
    if (typeof body?.detail === 'string' && body.detail !== '') return `HTTP ${status}: ${body.detail}`
  } catch {
    // not JSON: use the text
  }
  return `HTTP ${status}: ${trimmed.length > 500 ? `${trimmed.slice(0, 500)}…` : trimmed}`
}

/** Retry-After in milliseconds from `retry-after-ms`, `retry-after` seconds, or an HTTP date. */
export function retryAfter(headers: Headers, now = Date.now()): number | null {
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '')
  if (Number.isFinite(ms) && ms >= 0) return Math.round(ms)
  const value = headers.get('retry-after')
  if (value === null || value.trim() === '') return null
  const seconds = Number(value.trim())
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.round(seconds * 1000) : null
  const date = Date.parse(value)
  return Number.isNaN(date) ? null : Math.max(0, date - now)
}

function isJson(headers: Headers): boolean {
  return /^application\/(?:[\w.+-]*\+)?json\b/i.test(headers.get('content-type') ?? '')
}

/**
 * A whole answer from a server that ignored the streaming parameter, as the frames the
 * decoders read: the wire's own reading first (`whole`), else a chat completion
 * (`choices[].message`) as one last chunk, or a Responses response (`object: "response"`
 * with `output`) as its `response.completed` event; null for any other JSON.
 */
function wholeAnswer(text: string, whole?: FailurePolicy['whole']): AsyncIterable<Uint8Array> | null {
  let body: any = null
  try {
    body = JSON.parse(text)
  } catch {
    return null
  }
  const frames = whole?.(body) ?? openaiWhole(body)
  if (frames === null) return null
  const frame = new TextEncoder().encode(frames)
  return (async function* () {
    yield frame
  })()
}

/** A whole chat completion or Responses response as the frames the OpenAI decoders read. */
function openaiWhole(body: any): string | null {
  if (Array.isArray(body?.choices) && body.choices.some((c: any) => c?.message))
    return `data: ${JSON.stringify(body)}\n\ndata: [DONE]\n\n`
  if (body?.object === 'response' && Array.isArray(body.output) && body.status !== 'failed') {
    const type = body.status === 'incomplete' ? 'response.incomplete' : 'response.completed'
    return `data: ${JSON.stringify({ type, response: body })}\n\n`
  }
  return null
}

function notAStream(text: string, status: number, secret: string | null): ErrorEvent {
  let body: any = null
  try {
    body = JSON.parse(text)
  } catch {
    // reported below as not a stream
  }
  if (body && typeof body.error === 'object' && body.error !== null) {
    const code = codeForStreamError(body.error.code, body.error.type)
    return errorEvent(code, redact(upstreamMessage(text, status), secret), status)
  }
  const what = redact(shapeOf(body, text), secret)
  return errorEvent('upstream_malformed', `the upstream answered ${what} instead of an event stream`, status)
}

/** What came back, without its values (which may hold anything): its JSON kind and keys. */
function shapeOf(body: unknown, text: string): string {
  if (body === null && text.trim() !== 'null') return 'a body that is not JSON, labelled JSON,'
  if (Array.isArray(body)) {
    const first = body[0]
    const keys = first && typeof first === 'object' && !Array.isArray(first) ? Object.keys(first) : []
    return `a JSON array of ${body.length} item${body.length === 1 ? '' : 's'}${keys.length > 0 ? ` (the first with ${keyList(keys)})` : ''}`
  }
  if (body && typeof body === 'object') {
    const keys = Object.keys(body)
    return keys.length > 0 ? `a JSON object with ${keyList(keys)}` : 'an empty JSON object'
  }
  return `a JSON ${typeof body}`
}

function keyList(keys: string[]): string {
  const shown = keys.slice(0, 8).map((k) => JSON.stringify(k.slice(0, 40)))
  return `${keys.length === 1 ? 'key' : 'keys'} ${shown.join(', ')}${keys.length > 8 ? ', …' : ''}`
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return 'the endpoint'
  }
}
