// Server-sent events. A frame source (session or collection stream) is pulled only as fast
// as the socket drains; frames are at most 1 MiB; a comment heartbeat goes out after every
// HEARTBEAT_MS of silence; with zstd accepted the stream is one zstd frame, flushed after
// every batch (so each event is decodable as soon as it arrives) and ended properly when
// the stream ends.

import { encodeFrame, type Frame } from '../sessions/frames.ts'
import { zlib } from '../util/lazy-builtins.ts'
import { acceptsZstd } from './negotiate.ts'

export { encodeFrame, MAX_FRAME_BYTES } from '../sessions/frames.ts'

/**
 * Milliseconds of silence before a `: heartbeat` comment: 15 s. The environment variable
 * HEARTH_SSE_HEARTBEAT_MS (a positive integer of milliseconds), read once when the daemon
 * loads this module, overrides it; the tests lower it to see heartbeats without waiting.
 */
export const DEFAULT_HEARTBEAT_MS = 15_000
export const HEARTBEAT_MS = heartbeatMs(process.env)

export function heartbeatMs(env: NodeJS.ProcessEnv): number {
  const v = Number(env.HEARTH_SSE_HEARTBEAT_MS)
  return env.HEARTH_SSE_HEARTBEAT_MS && Number.isSafeInteger(v) && v > 0 ? v : DEFAULT_HEARTBEAT_MS
}

export interface FrameSource {
  next: () => Promise<Frame[] | null>
  close: () => void
}

const HEARTBEAT = ': heartbeat\n\n'

/** How long an ended stream waits for its reader to take the last bytes before the
 * connection is cut. */
export const END_GRACE_MS = 1_000

/**
 * One zstd frame written in pieces: `encode` returns everything compressed so far, flushed
 * so the peer can decode every byte written; `end` finishes the frame. Calls are sequential.
 */
class ZstdStreamEncoder {
  readonly #z = zlib().createZstdCompress({ params: { [zlib().constants.ZSTD_c_compressionLevel]: 3 } })
  #out: Buffer[] = []
  #settle: (() => void) | undefined
  #destroyed = false

  constructor() {
    this.#z.on('data', (b: Buffer) => this.#out.push(b))
    // A destroyed encoder never calls back: release whoever waits.
    this.#z.on('close', () => this.#settle?.())
    this.#z.on('error', () => this.#settle?.())
  }

  #take(): Buffer {
    const b = this.#out.length === 1 ? this.#out[0] : Buffer.concat(this.#out)
    this.#out = []
    return b
  }

  #wait(start: (done: () => void) => void): Promise<Buffer> {
    if (this.#destroyed) return Promise.resolve(Buffer.alloc(0))
    return new Promise((resolve) => {
      const done = () => {
        if (this.#settle !== done) return
        this.#settle = undefined
        // Output of a write reaches 'data' before the write's callback in flowing mode;
        // setImmediate lets any output still queued behind it arrive too.
        setImmediate(() => resolve(this.#destroyed ? Buffer.alloc(0) : this.#take()))
      }
      this.#settle = done
      start(done)
    })
  }

  encode(text: string): Promise<Buffer> {
    return this.#wait((done) => {
      this.#z.write(text)
      this.#z.flush(zlib().constants.ZSTD_e_flush, done)
    })
  }

  /** The rest of the frame (its epilogue); the encoder is finished afterwards. */
  end(text: string): Promise<Buffer> {
    return this.#wait((done) => {
      this.#z.once('end', done)
      this.#z.end(text)
    })
  }

  destroy(): void {
    this.#destroyed = true
    this.#z.destroy()
    this.#settle?.()
  }
}

export function sseResponse(
  source: FrameSource,
  opts: {
    acceptEncoding: string | undefined
    signal: AbortSignal
    heartbeatMs?: number
    headers?: Record<string, string>
  },
): Response {
  const zstd = acceptsZstd(opts.acceptEncoding) ? new ZstdStreamEncoder() : undefined
  const heartbeatMs = opts.heartbeatMs ?? HEARTBEAT_MS
  let pending: Promise<Frame[] | null> | undefined
  // closed: the source is closed (end, client gone or drain). done: the body is complete or
  // its consumer went away, so the controller takes nothing more. cancelled: the latter.
  let closed = false
  let done = false
  let cancelled = false
  // One heartbeat timer for the stream, pushed back as each pull starts to wait: a timer
  // armed and cleared for every frame cost more than the frame's own encoding.
  let beat: ((b: 'beat') => void) | undefined
  let beatTimer: NodeJS.Timeout | undefined
  const nextBeat = () =>
    new Promise<'beat'>((resolve) => {
      beat = resolve
      if (beatTimer) beatTimer.refresh()
      else beatTimer = setTimeout(() => beat?.('beat'), heartbeatMs)
    })
  const stopBeats = () => {
    clearTimeout(beatTimer)
    beatTimer = undefined
    beat = undefined
  }
  const finish = () => {
    stopBeats()
    if (closed) return
    closed = true
    source.close()
  }

  async function send(controller: ReadableStreamDefaultController<Uint8Array>, text: string): Promise<void> {
    const bytes = zstd ? await zstd.encode(text) : Buffer.from(text)
    if (!done && bytes.length > 0) controller.enqueue(bytes)
  }

  async function end(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    finish()
    if (done) return
    done = true
    const bytes = zstd ? await zstd.end('') : undefined
    if (cancelled) return
    if (bytes && bytes.length > 0) controller.enqueue(bytes)
    controller.close()
  }

  let streamController: ReadableStreamDefaultController<Uint8Array> | undefined
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        streamController = controller
      },
      async pull(controller) {
        if (done) return
        // Closed while no pull waited (a drain while the socket was full, say): end now.
        if (closed && pending === undefined) return end(controller)
        pending ??= source.next()
        const got = await Promise.race([pending, nextBeat()])
        // A beat that fires while no pull waits is for nobody.
        beat = undefined
        if (done) return stopBeats()
        if (got === 'beat') return send(controller, HEARTBEAT)
        pending = undefined
        if (got === null) return end(controller)
        return send(controller, got.map(encodeFrame).join(''))
      },
      cancel() {
        done = true
        cancelled = true
        finish()
        zstd?.destroy()
      },
    },
    { highWaterMark: 1 },
  )

  // The request is over (client gone, or the daemon drains): end the stream. A reader that
  // does not take the last bytes within END_GRACE_MS (its socket is full) would hold the
  // drain until its deadline; erroring the body makes the server cut that connection. It
  // loses nothing: it resumes from its last id.
  const abort = () => {
    finish()
    const cut = setTimeout(() => {
      if (cancelled) return
      done = true
      zstd?.destroy()
      const err = new Error('SSE reader did not take the end of its stream; connection cut')
      err.stack = err.message
      streamController?.error(err) // a no-op once the body was fully read
    }, END_GRACE_MS)
    cut.unref()
  }
  if (opts.signal.aborted) abort()
  else opts.signal.addEventListener('abort', abort, { once: true })
  const headers: Record<string, string> = {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
    vary: 'Accept, Accept-Encoding',
    ...opts.headers,
  }
  if (zstd) headers['content-encoding'] = 'zstd'
  return new Response(stream, { status: 200, headers })
}
