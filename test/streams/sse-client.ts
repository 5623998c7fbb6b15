// A small SSE client for the stream tests: node:http for the request (so a test controls
// every header and can pause or cut the socket), optional zstd decoding with a streaming
// decoder, and a parser of the event-stream format (WHATWG HTML §9.2.6) that keeps ids,
// event names, data and comments.
import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http'
import type { Readable } from 'node:stream'
import zlib from 'node:zlib'
import { v7 as uuidv7 } from 'uuid'
import type { TestDaemon } from '../helpers/daemon.ts'

export interface SseFrame {
  /** The `id` field of this frame, when it carried one. */
  id?: string
  event: string
  data: string
}

export type SseItem = { kind: 'frame'; frame: SseFrame } | { kind: 'comment'; text: string }

/** Incremental parser: feed text, get complete items. */
export class SseParser {
  #buffer = ''
  #data: string[] = []
  #event = ''
  #id: string | undefined
  #hasFields = false
  #pendingCr = false

  feed(text: string): SseItem[] {
    const out: SseItem[] = []
    let s = this.#buffer + text
    if (this.#pendingCr && s.startsWith('\n')) s = s.slice(1)
    this.#pendingCr = false
    let start = 0
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i)
      if (c !== 10 && c !== 13) continue
      this.#line(s.slice(start, i), out)
      if (c === 13) {
        if (i + 1 === s.length) this.#pendingCr = true
        else if (s.charCodeAt(i + 1) === 10) i++
      }
      start = i + 1
    }
    this.#buffer = s.slice(start)
    return out
  }

  #line(line: string, out: SseItem[]): void {
    if (line === '') {
      if (this.#hasFields) {
        out.push({
          kind: 'frame',
          frame: {
            ...(this.#id !== undefined ? { id: this.#id } : {}),
            event: this.#event || 'message',
            data: this.#data.join('\n'),
          },
        })
      }
      this.#data = []
      this.#event = ''
      this.#id = undefined
      this.#hasFields = false
      return
    }
    if (line.startsWith(':')) {
      out.push({ kind: 'comment', text: line.slice(1).trim() })
      return
    }
    const colon = line.indexOf(':')
    const field = colon < 0 ? line : line.slice(0, colon)
    let value = colon < 0 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    this.#hasFields = true
    if (field === 'data') this.#data.push(value)
    else if (field === 'event') this.#event = value
    else if (field === 'id') this.#id = value
  }
}

export interface OpenOptions {
  headers?: Record<string, string>
  /** Send Accept-Encoding: zstd and decode the body with a streaming decoder. */
  zstd?: boolean
}

/** One open stream. Items are queued as they arrive; `next()` takes them in order. */
export class SseStream {
  readonly req: ClientRequest
  res!: IncomingMessage
  status = 0
  headers: IncomingMessage['headers'] = {}
  /** The error response body, when the status is not 200. */
  body = ''
  /** Encoded (wire) bytes received so far. */
  wireBytes = 0
  ended = false
  error: Error | undefined
  readonly items: SseItem[] = []
  readonly #parser = new SseParser()
  #waiter: (() => void) | undefined
  #decoder: zlib.ZstdDecompress | undefined

  /** Resolves once the response head arrived. */
  readonly opened: Promise<void>
  _open: () => void = () => {}
  _fail: (err: Error) => void = () => {}

  constructor(req: ClientRequest) {
    this.req = req
    this.opened = new Promise<void>((resolve, reject) => {
      this._open = resolve
      this._fail = reject
    })
    this.opened.catch(() => {})
  }

  _attach(res: IncomingMessage): void {
    this.res = res
    this.status = res.statusCode ?? 0
    this.headers = res.headers
    res.on('data', (b: Buffer) => {
      this.wireBytes += b.length
    })
    let body: Readable = res
    if (res.headers['content-encoding'] === 'zstd') {
      this.#decoder = zlib.createZstdDecompress()
      body = res.pipe(this.#decoder)
    }
    body.setEncoding('utf8')
    body.on('data', (text: string) => {
      if (this.status !== 200) this.body += text
      else this.items.push(...this.#parser.feed(text))
      this.#wake()
    })
    body.on('end', () => {
      this.ended = true
      this.#wake()
    })
    const fail = (err: Error) => {
      this.error ??= err
      this.ended = true
      this.#wake()
    }
    body.on('error', fail)
    res.on('error', fail)
    res.on('aborted', () => fail(new Error('aborted')))
    this._open()
  }

  #wake(): void {
    const w = this.#waiter
    this.#waiter = undefined
    w?.()
  }

  /** The next item (comments included), or null once the stream ended. */
  async nextItem(timeoutMs = 10_000): Promise<SseItem | null> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const item = this.items.shift()
      if (item) return item
      if (this.ended) return null
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`no SSE item within ${timeoutMs} ms`)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left)
        this.#waiter = () => {
          clearTimeout(timer)
          resolve()
        }
      })
    }
  }

  /** The next frame (comments skipped), or null once the stream ended. */
  async next(timeoutMs = 10_000): Promise<SseFrame | null> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const item = await this.nextItem(Math.max(1, deadline - Date.now()))
      if (item === null) return null
      if (item.kind === 'frame') return item.frame
    }
  }

  /** Frames until one satisfies `until` (included), within one deadline. */
  async collect(until: (f: SseFrame) => boolean, timeoutMs = 10_000): Promise<SseFrame[]> {
    const deadline = Date.now() + timeoutMs
    const out: SseFrame[] = []
    for (;;) {
      const f = await this.next(Math.max(1, deadline - Date.now()))
      if (f === null)
        throw new Error(`stream ended after ${out.length} frames: ${JSON.stringify(out.at(-1))}`)
      out.push(f)
      if (until(f)) return out
    }
  }

  /** The frames until the stream ends, which must happen within the timeout. */
  async waitEnd(timeoutMs = 10_000): Promise<SseFrame[]> {
    const deadline = Date.now() + timeoutMs
    const out: SseFrame[] = []
    for (;;) {
      const f = await this.next(Math.max(1, deadline - Date.now()))
      if (f === null) return out
      out.push(f)
    }
  }

  pause(): void {
    this.res.pause()
  }

  resume(): void {
    this.res.resume()
  }

  /** Cuts the connection (like a network loss). */
  destroy(): void {
    this.req.destroy()
    this.res?.destroy()
    this.#decoder?.destroy()
    this.ended = true
    this.#wake()
  }
}

/** Opens an SSE request on its own connection (no agent). */
export function openSse(d: TestDaemon, path: string, opts: OpenOptions = {}): SseStream {
  const headers: Record<string, string> = {
    host: new URL(d.url).host,
    authorization: `Bearer ${d.token}`,
    accept: 'text/event-stream',
    ...(opts.zstd ? { 'accept-encoding': 'zstd' } : {}),
    ...opts.headers,
  }
  const req = httpRequest({ host: d.hostname, port: d.port, path, headers, setHost: false, agent: false })
  const s = new SseStream(req)
  req.on('response', (res) => s._attach(res))
  req.on('error', (err) => {
    s.error ??= err
    s.ended = true
    s._fail(err)
  })
  req.end()
  return s
}

export const parseId = (id: string): { generation: number; seq: number } => {
  const [g, s] = id.split(':').map(Number)
  return { generation: g, seq: s }
}

// ---- Producing events over HTTP --------------------------------------------------------

export async function createSession(
  d: TestDaemon,
  body: Record<string, unknown> = { kind: 'new', workspace: d.home },
  id = uuidv7(),
): Promise<string> {
  const r = await d.request({
    method: 'PUT',
    path: `/sessions/${id}`,
    headers: { 'content-type': 'application/json', 'if-none-match': '*' },
    body: JSON.stringify(body),
  })
  if (r.status !== 201) throw new Error(`create ${id}: ${r.status} ${r.text()}`)
  return id
}

/** One `session.visited` event: PUT /sessions/{id}/visits/{new uuidv7}. */
export async function visit(d: TestDaemon, sessionId: string): Promise<void> {
  const r = await d.request({
    method: 'PUT',
    path: `/sessions/${sessionId}/visits/${uuidv7()}`,
    headers: { 'content-type': 'application/json' },
    body: '{}',
  })
  if (r.status !== 200) throw new Error(`visit ${sessionId}: ${r.status} ${r.text()}`)
}

/** `count` visits with up to `concurrency` requests in flight. */
export async function produceVisits(
  d: TestDaemon,
  sessionId: string,
  count: number,
  concurrency = 8,
): Promise<void> {
  let started = 0
  const worker = async () => {
    while (started < count) {
      started++
      await visit(d, sessionId)
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker))
}

/** PATCH ?view=configuration with the current ETag; returns the new configuration ETag. */
export async function configure(
  d: TestDaemon,
  sessionId: string,
  patch: Record<string, unknown>,
): Promise<void> {
  const cur = await d.request({ path: `/sessions/${sessionId}?view=configuration` })
  if (cur.status !== 200) throw new Error(`read configuration: ${cur.status} ${cur.text()}`)
  const r = await d.request({
    method: 'PATCH',
    path: `/sessions/${sessionId}?view=configuration`,
    headers: { 'content-type': 'application/merge-patch+json', 'if-match': String(cur.headers.etag) },
    body: JSON.stringify(patch),
  })
  if (r.status !== 200) throw new Error(`configure ${sessionId}: ${r.status} ${r.text()}`)
}

/**
 * PATCHes one session in a row, each with the ETag the previous change returned. With a
 * large selection map stored, toggling one entry appends a `session.configured` event
 * carrying the whole selection: the way to produce big events quickly.
 */
export class Patcher {
  readonly #d: TestDaemon
  readonly #id: string
  #etag: string | undefined

  constructor(d: TestDaemon, sessionId: string) {
    this.#d = d
    this.#id = sessionId
  }

  async patch(body: Record<string, unknown>): Promise<void> {
    if (this.#etag === undefined) {
      const cur = await this.#d.request({ path: `/sessions/${this.#id}?view=configuration` })
      if (cur.status !== 200) throw new Error(`read configuration: ${cur.status} ${cur.text()}`)
      this.#etag = String(cur.headers.etag)
    }
    const r = await this.#d.request({
      method: 'PATCH',
      path: `/sessions/${this.#id}?view=configuration`,
      headers: { 'content-type': 'application/merge-patch+json', 'if-match': this.#etag },
      body: JSON.stringify(body),
    })
    if (r.status !== 200) throw new Error(`patch ${this.#id}: ${r.status} ${r.text()}`)
    this.#etag = String(r.headers.etag)
  }

  /** Adds `count` selection entries with names of `nameLength` characters (one request). */
  addSelection(
    prefix: string,
    count: number,
    nameLength = 240,
    map: 'extensions' | 'instructions' = 'extensions',
  ): Promise<void> {
    const entries: Record<string, boolean> = {}
    for (let i = 0; i < count; i++) entries[`${prefix}${i}`.padEnd(nameLength, 'x')] = true
    return this.patch({ selection: { [map]: entries } })
  }

  /** Toggles one selection entry: one event carrying the whole selection. */
  #flip = false
  toggle(): Promise<void> {
    this.#flip = !this.#flip
    return this.patch({ selection: { skills: { toggled: this.#flip } } })
  }
}

/** DELETE a leaf with the current configuration ETag. */
export async function deleteLeaf(d: TestDaemon, sessionId: string): Promise<void> {
  const cur = await d.request({ path: `/sessions/${sessionId}?view=configuration` })
  if (cur.status !== 200) throw new Error(`read configuration: ${cur.status} ${cur.text()}`)
  const r = await d.request({
    method: 'DELETE',
    path: `/sessions/${sessionId}?view=configuration`,
    headers: { 'if-match': String(cur.headers.etag) },
  })
  if (r.status !== 200) throw new Error(`delete ${sessionId}: ${r.status} ${r.text()}`)
}

/** Resident set size of a process in KiB (Linux). */
export async function rssKiB(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises')
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(status)
  if (!m) throw new Error('no VmRSS')
  return Number(m[1])
}
