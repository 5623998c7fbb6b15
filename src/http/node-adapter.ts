// node:http → the Hono app's fetch(), in place of @hono/node-server.
//
// In Node the global Request, Response and Headers are undici's, loaded the first time any
// of them is touched: ~50 ms and ~17 MB. @hono/node-server reads all three when it loads,
// so the daemon paid that before it could listen. Here a request is a small object with
// what Hono and the op runner read (method, url, headers, body, signal, env.incoming and
// env.outgoing), and the global Response is replaced by LightResponse, which keeps the body
// and init a handler gave it and is written straight to the socket. Nothing on the request
// path loads undici; a provider calling fetch() loads it when it needs it.
import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http'
import type { Duplex } from 'node:stream'
import { type ProblemCode, problemBody } from '../schemas/problems.ts'
import { nodeBodyStream } from './body.ts'

type Fetch = (req: Request, env: { incoming: IncomingMessage; outgoing: ServerResponse }) => unknown

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const BAD_VALUE = /[\0\r\n]/

function headerName(name: string): string {
  const n = String(name)
  if (!TOKEN.test(n)) throw new TypeError(`Invalid header name: ${n}`)
  return n.toLowerCase()
}

function headerValue(value: string): string {
  const v = String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '')
  if (BAD_VALUE.test(v)) throw new TypeError(`Invalid header value: ${JSON.stringify(v)}`)
  return v
}

function isIterable(v: object): v is Iterable<unknown> {
  return typeof (v as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function'
}

/** The Headers interface over a Map; Set-Cookie values are kept one by one. */
export class LightHeaders {
  readonly #map = new Map<string, string>()
  #cookies: string[] = []

  constructor(init?: unknown) {
    if (init === undefined || init === null) return
    if (typeof init !== 'object') throw new TypeError('Headers init must be an object')
    if (isIterable(init)) {
      for (const pair of init as Iterable<unknown>) {
        const [k, v, ...rest] = pair as string[]
        if (v === undefined || rest.length > 0)
          throw new TypeError('Headers init pairs need a name and a value')
        this.append(k, v)
      }
    } else {
      for (const [k, v] of Object.entries(init as Record<string, string>)) this.append(k, v)
    }
  }

  append(name: string, value: string): void {
    const k = headerName(name)
    const v = headerValue(value)
    if (k === 'set-cookie') {
      this.#cookies.push(v)
      return
    }
    const old = this.#map.get(k)
    this.#map.set(k, old === undefined ? v : `${old}, ${v}`)
  }

  set(name: string, value: string): void {
    const k = headerName(name)
    const v = headerValue(value)
    if (k === 'set-cookie') this.#cookies = [v]
    else this.#map.set(k, v)
  }

  get(name: string): string | null {
    const k = headerName(name)
    if (k === 'set-cookie') return this.#cookies.length > 0 ? this.#cookies.join(', ') : null
    return this.#map.get(k) ?? null
  }

  has(name: string): boolean {
    const k = headerName(name)
    return k === 'set-cookie' ? this.#cookies.length > 0 : this.#map.has(k)
  }

  delete(name: string): void {
    const k = headerName(name)
    if (k === 'set-cookie') this.#cookies = []
    else this.#map.delete(k)
  }

  getSetCookie(): string[] {
    return [...this.#cookies]
  }

  /** Sorted by name, Set-Cookie once per value, as the Fetch standard iterates headers. */
  *entries(): IterableIterator<[string, string]> {
    const names = [...this.#map.keys()]
    if (this.#cookies.length > 0) names.push('set-cookie')
    for (const k of names.sort()) {
      if (k === 'set-cookie') for (const c of this.#cookies) yield [k, c]
      else yield [k, this.#map.get(k) as string]
    }
  }

  *keys(): IterableIterator<string> {
    for (const [k] of this.entries()) yield k
  }

  *values(): IterableIterator<string> {
    for (const [, v] of this.entries()) yield v
  }

  forEach(fn: (value: string, name: string, headers: LightHeaders) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this)
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries()
  }

  get [Symbol.toStringTag](): string {
    return 'Headers'
  }

  /** The headers as node:http takes them (Set-Cookie as an array). */
  toNode(): OutgoingHttpHeaders {
    const out: OutgoingHttpHeaders = Object.fromEntries(this.#map)
    if (this.#cookies.length > 0) out['set-cookie'] = [...this.#cookies]
    return out
  }
}

function headersOfIncoming(raw: string[]): LightHeaders {
  const h = new LightHeaders()
  for (let i = 0; i < raw.length; i += 2) h.append(raw[i], raw[i + 1])
  return h
}

/** Whether the request framing announces a body: chunked, or a non-zero Content-Length. */
function framesBody(incoming: IncomingMessage): boolean {
  const length = incoming.headers['content-length']
  return (
    incoming.headers['transfer-encoding'] !== undefined || (length !== undefined && length.trim() !== '0')
  )
}

async function readAll(stream: ReadableStream<Uint8Array> | null): Promise<Buffer> {
  if (!stream) return Buffer.alloc(0)
  const chunks: Uint8Array[] = []
  for await (const c of stream) chunks.push(c)
  return Buffer.concat(chunks)
}

/** The request Hono and the op runner see. */
export class LightRequest {
  readonly method: string
  readonly url: string
  readonly signal: AbortSignal
  readonly #incoming: IncomingMessage
  #headers: LightHeaders | undefined
  #body: ReadableStream<Uint8Array> | null | undefined
  #used = false

  constructor(incoming: IncomingMessage, url: string, signal: AbortSignal) {
    this.#incoming = incoming
    this.method = incoming.method ?? 'GET'
    this.url = url
    this.signal = signal
  }

  get headers(): LightHeaders {
    this.#headers ??= headersOfIncoming(this.#incoming.rawHeaders)
    return this.#headers
  }

  /**
   * The body as a web stream whenever the framing announces one, whatever the method (GET
   * and HEAD bodies are read and bounded like any other). Cancelling it discards the rest.
   */
  get body(): ReadableStream<Uint8Array> | null {
    if (this.#body === undefined)
      this.#body = framesBody(this.#incoming) ? nodeBodyStream(this.#incoming) : null
    return this.#body
  }

  get bodyUsed(): boolean {
    return this.#used
  }

  /**
   * The body as the Node stream itself, for a reader that bounds it (readBody): a small body
   * is one chunk, and a web stream around it costs more than reading it. Null when no body
   * is framed or when it was already taken.
   */
  takeNodeBody(): IncomingMessage | null {
    if (this.#used || this.#body !== undefined || !framesBody(this.#incoming)) return null
    this.#used = true
    this.#body = null
    return this.#incoming
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = await this.bytes()
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer
  }

  async bytes(): Promise<Uint8Array> {
    if (this.#used) throw new TypeError('Body is unusable: it was already read')
    this.#used = true
    return new Uint8Array(await readAll(this.body))
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes())
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text())
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.bytes()], { type: this.headers.get('content-type') ?? '' })
  }

  formData(): Promise<never> {
    return Promise.reject(new TypeError('hearth does not read form bodies'))
  }

  get [Symbol.toStringTag](): string {
    return 'Request'
  }
}

// ---- Responses ----------------------------------------------------------------------------

const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304])
const TEXT_PLAIN = 'text/plain;charset=UTF-8'

type LightBody = null | string | Uint8Array | ReadableStream<Uint8Array> | Blob

interface ResponseInitLike {
  status?: number
  statusText?: string
  headers?: unknown
}

function isLight(v: unknown): v is LightResponse {
  return LightResponse.isLight(v)
}

/**
 * The global Response while the daemon runs. Strings, bytes, streams and Blobs are kept
 * as given and written by the adapter without a copy. A FormData body is refused: encoding
 * multipart would need undici (Node's own Response cannot even be looked up without loading
 * it), and nothing in hearth answers with one.
 */
export class LightResponse {
  #status: number
  #statusText: string
  #headers: LightHeaders
  #body: LightBody
  #used = false
  #type: 'default' | 'error' = 'default'

  constructor(body?: unknown, init?: ResponseInitLike) {
    const status = init?.status ?? 200
    if (!Number.isInteger(status) || status < 200 || status > 599) {
      throw new RangeError(`init["status"] must be in the range of 200 to 599, inclusive (got ${status})`)
    }
    this.#status = status
    this.#statusText = init?.statusText ?? ''
    this.#headers = new LightHeaders(init?.headers)
    this.#body = null
    if (body === undefined || body === null) return
    if (NULL_BODY_STATUS.has(status)) throw new TypeError(`Response with status ${status} cannot have a body`)
    let type: string | undefined
    if (typeof body === 'string') {
      this.#body = body
      type = TEXT_PLAIN
    } else if (body instanceof Uint8Array) {
      this.#body = body
    } else if (body instanceof ArrayBuffer) {
      this.#body = new Uint8Array(body)
    } else if (ArrayBuffer.isView(body)) {
      this.#body = new Uint8Array(body.buffer, body.byteOffset, body.byteLength)
    } else if (body instanceof ReadableStream) {
      this.#body = body as ReadableStream<Uint8Array>
    } else if (body instanceof Blob) {
      this.#body = body
      type = body.type || undefined
    } else if (body instanceof URLSearchParams) {
      this.#body = body.toString()
      type = 'application/x-www-form-urlencoded;charset=UTF-8'
    } else {
      throw new TypeError('The daemon answers with strings, bytes, streams or Blobs only')
    }
    if (type && !this.#headers.has('content-type')) this.#headers.set('content-type', type)
  }

  static isLight(v: unknown): v is LightResponse {
    return typeof v === 'object' && v !== null && #status in v
  }

  /** Node's own Responses (from fetch) count as Responses too. */
  static [Symbol.hasInstance](v: unknown): boolean {
    return isLight(v) || Object.prototype.toString.call(v) === '[object Response]'
  }

  static json(data: unknown, init?: ResponseInitLike): LightResponse {
    const body = JSON.stringify(data)
    if (body === undefined) throw new TypeError('The data is not JSON serializable')
    const res = new LightResponse(body, init)
    if (res.#headers.get('content-type') === TEXT_PLAIN) res.#headers.set('content-type', 'application/json')
    return res
  }

  static redirect(url: string | URL, status = 302): LightResponse {
    if (![301, 302, 303, 307, 308].includes(status)) throw new RangeError(`Invalid redirect status ${status}`)
    return new LightResponse(null, { status, headers: { location: new URL(url).href } })
  }

  static error(): LightResponse {
    const res = new LightResponse(null, { status: 200 })
    res.#status = 0
    res.#type = 'error'
    return res
  }

  get status(): number {
    return this.#status
  }

  get ok(): boolean {
    return this.#status >= 200 && this.#status < 300
  }

  get statusText(): string {
    return this.#statusText
  }

  get headers(): LightHeaders {
    return this.#headers
  }

  get type(): string {
    return this.#type
  }

  get url(): string {
    return ''
  }

  get redirected(): boolean {
    return false
  }

  get bodyUsed(): boolean {
    return this.#used || (this.#body instanceof ReadableStream && this.#body.locked)
  }

  get body(): ReadableStream<Uint8Array> | null {
    const b = this.#body
    if (b === null || b instanceof ReadableStream) return b
    const stream =
      b instanceof Blob
        ? (b.stream() as ReadableStream<Uint8Array>)
        : new ReadableStream<Uint8Array>({
            start(c) {
              c.enqueue(typeof b === 'string' ? Buffer.from(b) : b)
              c.close()
            },
          })
    this.#body = stream
    return stream
  }

  async bytes(): Promise<Uint8Array> {
    if (this.bodyUsed) throw new TypeError('Body is unusable: it was already read')
    this.#used = true
    const b = this.#body
    if (b === null) return new Uint8Array(0)
    if (typeof b === 'string') return Buffer.from(b)
    if (b instanceof Uint8Array) return b
    if (b instanceof Blob) return new Uint8Array(await b.arrayBuffer())
    return new Uint8Array(await readAll(b))
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = await this.bytes()
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer
  }

  async text(): Promise<string> {
    if (typeof this.#body === 'string' && !this.bodyUsed) {
      this.#used = true
      return this.#body
    }
    return new TextDecoder().decode(await this.bytes())
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text())
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.bytes()], { type: this.#headers.get('content-type') ?? '' })
  }

  formData(): Promise<never> {
    return Promise.reject(new TypeError('This Response cannot be read as form data'))
  }

  clone(): LightResponse {
    if (this.bodyUsed) throw new TypeError('Response.clone: the body was already read')
    const init = {
      status: this.#status === 0 ? 200 : this.#status,
      statusText: this.#statusText,
      headers: this.#headers,
    }
    let body: LightBody = this.#body
    if (body instanceof ReadableStream) {
      const [a, b] = body.tee()
      this.#body = a
      body = b
    }
    const copy = new LightResponse(null, init)
    copy.#body = body
    copy.#status = this.#status
    copy.#type = this.#type
    return copy
  }

  get [Symbol.toStringTag](): string {
    return 'Response'
  }

  /** What the adapter writes: status, headers for node:http, and the body as given. */
  static parts(res: LightResponse): {
    status: number
    statusText: string
    headers: OutgoingHttpHeaders
    body: LightBody
  } {
    return {
      status: res.#status,
      statusText: res.#statusText,
      headers: res.#headers.toNode(),
      body: res.#body,
    }
  }
}

/** Makes LightResponse the global Response (as @hono/node-server did with its own class). */
export function installLightResponse(): void {
  // Redefining Node's lazy global loads undici first; deleting it does not.
  delete (globalThis as { Response?: unknown }).Response
  Object.defineProperty(globalThis, 'Response', {
    value: LightResponse,
    writable: true,
    configurable: true,
    enumerable: false,
  })
}

// ---- The request listener -----------------------------------------------------------------

const PLAIN_TARGET = /^\/[!#$&-;=?-[\]_a-z~]*$/
const DOT_SEGMENT = /\/\.\.?(?:[/?#]|$)/
const AUTHORITY = /^(?:[A-Za-z0-9._~!$&'()*+,;=-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/

/**
 * The absolute URL of the request, or undefined for a target that is not one (asterisk-form,
 * a backslash in the path, a URL that does not parse). Dot segments are resolved and odd
 * characters escaped as `new URL` does, so routing sees the path any client library would.
 * A Host that is not a plain authority is left out of the URL: the Host guard answers it.
 */
export function requestUrl(target: string, host: string | undefined): string | undefined {
  const authority = host !== undefined && AUTHORITY.test(host) ? host : 'invalid.host'
  let url: string
  if (target.startsWith('/')) {
    url = `http://${authority}${target}`
    if (PLAIN_TARGET.test(target) && !DOT_SEGMENT.test(target)) return url
  } else if (/^https?:\/\//i.test(target)) {
    url = target
  } else {
    return undefined
  }
  const backslash = url.indexOf('\\')
  const query = url.indexOf('?')
  if (backslash !== -1 && (query === -1 || backslash < query)) return undefined
  try {
    return new URL(url).href
  } catch {
    return undefined
  }
}

const DISCARD_MS = 500
const DISCARD_BYTES = 64 * 1024 * 1024
const LINGER_MS = 2_000

/**
 * After the response, a request body nobody read is discarded so the connection can carry
 * the next request. A client still sending after 500 ms or 64 MiB has its connection closed
 * gently: our side ends (the client reads the response, then sees the close) while what is
 * still in flight is read and dropped, because closing with unread bytes sends a reset that
 * can destroy the response before the client reads it. After LINGER_MS it is cut.
 */
function discardRest(incoming: IncomingMessage, closing: boolean): void {
  if (incoming.complete || incoming.destroyed) return
  const socket = incoming.socket
  let bytes = 0
  let lingering: NodeJS.Timeout | undefined
  const cleanup = () => {
    clearTimeout(timer)
    clearTimeout(lingering)
    incoming.off('data', onData)
    incoming.off('end', cleanup)
    incoming.off('error', cleanup)
    socket?.off('close', cleanup)
  }
  const stop = () => {
    if (lingering || incoming.complete) return
    clearTimeout(timer)
    socket?.end()
    lingering = setTimeout(() => {
      cleanup()
      socket?.destroy()
    }, LINGER_MS)
    lingering.unref()
  }
  const onData = (chunk: Buffer) => {
    bytes += chunk.length
    if (bytes > DISCARD_BYTES) stop()
  }
  const timer = setTimeout(stop, closing ? 0 : DISCARD_MS)
  timer.unref()
  incoming.on('data', onData)
  incoming.on('end', cleanup)
  incoming.on('error', cleanup)
  socket?.once('close', cleanup)
  incoming.resume()
}

// Responses whose connection closes while the client is still sending the request's body.
const closingEarly = new WeakSet<ServerResponse>()

/**
 * A response that says `Connection: close` before the request's body has arrived (a 413 for
 * a declared length over the limit): Node marks it last (its `_last`) and destroys the socket
 * once it is written, and a close with the client's bytes unread sends a reset that can
 * destroy the response before the client reads it. So the mark is cleared and discardRest
 * closes the connection in stages at once (test/unit/node-adapter.test.ts checks the mark).
 */
function closeInStages(outgoing: ServerResponse): void {
  const o = outgoing as ServerResponse & { _last?: boolean }
  if (outgoing.req.complete || o._last !== true) return
  o._last = false
  closingEarly.add(outgoing)
}

/** Writes a web stream to the response, one chunk at a time, as fast as the socket drains. */
function pipeStream(stream: ReadableStream<Uint8Array>, outgoing: ServerResponse): Promise<void> {
  const reader = stream.getReader()
  return new Promise<void>((resolve) => {
    let settled = false
    const settle = () => {
      settled = true
      outgoing.off('close', gone)
      resolve()
    }
    // The client went away (or the connection was cut): stop the source.
    const gone = () => {
      if (settled) return
      settle()
      reader.cancel().catch(() => {})
    }
    // The source failed: cut the connection, so the client sees an incomplete response.
    const failed = () => {
      if (settled) return
      settle()
      outgoing.destroy()
    }
    const next = (): void => {
      if (settled) return
      reader.read().then(({ done, value }) => {
        if (settled) return
        if (done) {
          settle()
          outgoing.end()
        } else if (outgoing.write(value)) next()
        else outgoing.once('drain', next)
      }, failed)
    }
    if (outgoing.destroyed) return gone()
    outgoing.on('close', gone)
    // A source that errors while the socket is full (no read pending) is seen here.
    reader.closed.catch(failed)
    next()
  })
}

function hasHeader(headers: OutgoingHttpHeaders, name: string): boolean {
  return headers[name] !== undefined
}

/**
 * Text or bytes, told apart before the globals Blob and ReadableStream are read: their first
 * read loads Node's web streams (~3 ms), which a JSON answer never needs.
 */
function whole(b: LightBody): b is string | Uint8Array {
  return typeof b === 'string' || b instanceof Uint8Array
}

async function writeResponse(res: unknown, outgoing: ServerResponse): Promise<void> {
  let status: number
  let statusText = ''
  let headers: OutgoingHttpHeaders
  let body: LightBody
  if (isLight(res)) {
    ;({ status, statusText, headers, body } = LightResponse.parts(res))
  } else if (res && typeof res === 'object' && 'status' in res && 'headers' in res) {
    const r = res as Response
    status = r.status
    statusText = r.statusText
    headers = new LightHeaders(r.headers).toNode()
    body = r.body as ReadableStream<Uint8Array> | null
  } else {
    throw new TypeError('The app did not return a Response')
  }
  if (hasHeader(headers, 'x-hono-already-sent')) return // the handler wrote to env.outgoing itself
  if (body !== null && !whole(body) && body instanceof Blob) body = new Uint8Array(await body.arrayBuffer())
  if (whole(body) && !hasHeader(headers, 'content-length') && !hasHeader(headers, 'transfer-encoding')) {
    headers['content-length'] = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength
  }
  if (statusText) outgoing.writeHead(status, statusText, headers)
  else outgoing.writeHead(status, headers)
  closeInStages(outgoing)
  if (body === null) {
    outgoing.end()
  } else if (whole(body)) {
    outgoing.end(body)
  } else {
    outgoing.flushHeaders() // a stream's headers go out before its first chunk
    await pipeStream(body as ReadableStream<Uint8Array>, outgoing)
  }
}

function failed(outgoing: ServerResponse, status: number): void {
  if (outgoing.headersSent) {
    outgoing.destroy()
    return
  }
  outgoing.writeHead(status, { 'content-length': 0 })
  outgoing.end()
}

export interface AdapterOptions {
  /** Told of an error the app did not turn into a response (the client got a bare 500). */
  onError?: (err: unknown) => void
  /** How long the request headers may take to arrive (Node's headersTimeout); default 30 s. */
  headersTimeoutMs?: number
}

/** A node:http request listener that serves `fetch` (a Hono app's). */
export function requestListener(
  fetch: Fetch,
  opts: AdapterOptions = {},
): (incoming: IncomingMessage, outgoing: ServerResponse) => void {
  const fail = (outgoing: ServerResponse, err: unknown) => {
    opts.onError?.(err)
    failed(outgoing, 500)
  }
  return (incoming, outgoing) => {
    outgoing.once('finish', () => discardRest(incoming, closingEarly.has(outgoing)))
    const url = requestUrl(incoming.url ?? '', incoming.headers.host)
    if (url === undefined) {
      failed(outgoing, 400)
      return
    }
    const abort = new AbortController()
    // The request is over for the app when the connection closes before the response ended.
    outgoing.once('close', () => {
      if (!outgoing.writableFinished) abort.abort()
    })
    const req = new LightRequest(incoming, url, abort.signal)
    let res: unknown
    try {
      res = fetch(req as unknown as Request, { incoming, outgoing })
    } catch (err) {
      fail(outgoing, err)
      return
    }
    Promise.resolve(res)
      .then((r) => {
        // Answered before the body arrived (a refusal): keep the connection past the response,
        // even when the client asked to close it, so discardRest can close it in stages. Node
        // would close at once, and a close with the client's bytes unread sends a reset that
        // can destroy the response before the client reads it (RFC 9112 §9.6).
        if (!incoming.complete) outgoing.shouldKeepAlive = true
        return writeResponse(r, outgoing)
      })
      .catch((err) => fail(outgoing, err))
  }
}

/** The problem for a request Node's parser refused, by the error it reported. */
function clientErrorProblem(code: string | undefined): ProblemCode {
  if (code === 'HPE_HEADER_OVERFLOW') return 'headers_too_large'
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'HPE_HEADERS_TIMEOUT') return 'request_timeout'
  return 'malformed_request'
}

/**
 * A request Node's parser refused (broken framing, bad header bytes, headers past the limit)
 * or whose headers never finished (headersTimeout) gets a problem+json answer, as every
 * other error does, in place of Node's bare text 400/408/431. The connection then closes:
 * after a framing error nothing that follows on it can be trusted. Our side ends first and
 * what the client still sends is read and dropped for a moment, since closing with unread
 * bytes sends a reset that can destroy the answer before the client reads it.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  const pending = (socket as { _httpMessage?: ServerResponse })._httpMessage
  if (err.code === 'ECONNRESET' || !socket.writable || pending?.headersSent) {
    socket.destroy()
    return
  }
  const code = clientErrorProblem(err.code)
  const body = JSON.stringify(problemBody(code, `${problemBody(code).title} (${err.code ?? err.message})`))
  const status = problemBody(code).status
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/problem+json\r\n` +
      `cache-control: no-store\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  )
  socket.resume()
  setTimeout(() => socket.destroy(), LINGER_MS).unref()
}

/** An HTTP server whose requests go to `fetch`, with LightResponse as the global Response. */
export function createFetchServer(fetch: Fetch, opts: AdapterOptions = {}): Server {
  installLightResponse()
  const headersTimeout = opts.headersTimeoutMs ?? 30_000
  const server = createServer(
    {
      headersTimeout,
      // No bound on a whole request: a slow upload that keeps progressing may take its time.
      // A body that stops arriving is timed out by the body reader (body.ts) instead.
      requestTimeout: 0,
      // How often Node checks headersTimeout (its default, 30 s, would make it up to 60 s).
      connectionsCheckingInterval: Math.max(10, Math.min(headersTimeout / 4, 5_000)),
    },
    requestListener(fetch, opts),
  )
  server.on('clientError', answerClientError)
  return server
}
