// Reading a request body with a hard byte limit, optionally zstd-coded. Nothing is buffered
// past the limit: a declared Content-Length over it is refused before reading, and a stream
// that keeps going is cut off at the first byte past it.
import type { Readable } from 'node:stream'
import { HearthError } from '../schemas/problems.ts'
import { codedLimit, decodeZstdBody } from './zstd.ts'

export interface BodySource {
  stream: ReadableStream<Uint8Array> | Readable | null
  contentLength: string | undefined
  contentEncoding: string | undefined
}

/**
 * How long a body may go without a byte before the request times out (408 request_timeout).
 * It bounds a body that never arrives, not a slow one: every chunk restarts the wait, so a
 * slow upload that keeps progressing is never cut.
 */
export const BODY_TIMEOUT_MS = 30_000

/** The connection closes after the answer: the rest of the body would be read as a request. */
const timedOut = (ms: number, total: number) =>
  new HearthError('request_timeout', `No body byte arrived for ${ms} ms (after ${total} bytes)`, {
    connection: 'close',
  })

async function readLimited(
  stream: ReadableStream<Uint8Array>,
  limit: number,
  idleMs: number,
): Promise<Buffer> {
  const chunks: Uint8Array[] = []
  let total = 0
  const reader = stream.getReader()
  // A pause of idleMs cancels the stream, which ends the pending read.
  let idle = false
  const timer = setTimeout(() => {
    idle = true
    reader.cancel().catch(() => {})
  }, idleMs)
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (idle) throw timedOut(idleMs, total)
      timer.refresh()
      if (done) break
      total += value.byteLength
      if (total > limit) {
        clearTimeout(timer)
        await reader.cancel().catch(() => {})
        throw new HearthError('body_too_large', `The body exceeds ${limit} bytes`)
      }
      chunks.push(value)
    }
  } finally {
    clearTimeout(timer)
  }
  return Buffer.concat(chunks, total)
}

/** Bodies that declare at least this length are read into one buffer of that length. */
const PREALLOCATE_AT_BYTES = 1024 * 1024

/**
 * readLimited for a Node stream. Past the limit the listeners come off and the stream flows
 * on unread (as a cancelled web stream does here); the adapter discards the rest after the
 * response. A connection that ends before the body does (the client went away, Node reports
 * `aborted`) is body_incomplete: the client's doing, not an internal error to log.
 */
function readNodeLimited(
  stream: Readable,
  limit: number,
  idleMs: number,
  declared: number | undefined,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // A large body of declared length is copied into one buffer of that size as it arrives:
    // a list of socket chunks joined at the end held the body twice at its peak.
    const into =
      declared !== undefined && declared >= PREALLOCATE_AT_BYTES
        ? Buffer.allocUnsafeSlow(declared)
        : undefined
    const chunks: Buffer[] = []
    let total = 0
    const settle = (err?: Error) => {
      clearTimeout(idle)
      stream.off('data', onData).off('end', onEnd).off('error', onCut).off('close', onCut)
      if (err) reject(err)
      else if (into) resolve(total === into.length ? into : into.subarray(0, total))
      else resolve(Buffer.concat(chunks, total))
    }
    const idle = setTimeout(() => settle(timedOut(idleMs, total)), idleMs)
    const onData = (chunk: Buffer) => {
      idle.refresh()
      if (total + chunk.length > limit) {
        total += chunk.length
        settle(new HearthError('body_too_large', `The body exceeds ${limit} bytes`))
        return
      }
      if (into) chunk.copy(into, total)
      else chunks.push(chunk)
      total += chunk.length
    }
    const onEnd = () => settle()
    const onCut = () => settle(new HearthError('body_incomplete', `The body ended after ${total} bytes`))
    stream.on('data', onData).on('end', onEnd).on('error', onCut).on('close', onCut)
  })
}

/**
 * Returns the decoded body bytes; the limit applies to decoded bytes. A body that pauses
 * for `idleMs` (BODY_TIMEOUT_MS by default) is request_timeout.
 */
export async function readBody(src: BodySource, limit: number, idleMs = BODY_TIMEOUT_MS): Promise<Buffer> {
  const encoding = src.contentEncoding?.trim().toLowerCase()
  if (encoding && encoding !== 'identity' && encoding !== 'zstd') {
    throw new HearthError(
      'unsupported_content_encoding',
      `Content-Encoding ${encoding} is not supported; use zstd`,
    )
  }
  const declared = src.contentLength === undefined ? undefined : Number(src.contentLength)
  if (declared !== undefined && (!Number.isSafeInteger(declared) || declared < 0)) {
    throw new HearthError('invalid_header', 'Content-Length is not a byte count')
  }
  // A zstd frame is never meaningfully larger than what it decodes to; bound the coded bytes too.
  const rawLimit = encoding === 'zstd' ? codedLimit(limit) : limit
  if (declared !== undefined && declared > rawLimit) {
    // Refused unread: the connection closes after the answer, since the body's bytes would
    // otherwise be read as the next request (the adapter drains them first, not forever).
    throw new HearthError('body_too_large', `The body exceeds ${limit} bytes`, { connection: 'close' })
  }
  if (!src.stream) return Buffer.alloc(0)
  const raw =
    'getReader' in src.stream // a web stream (checked without touching the global, which loads them)
      ? await readLimited(src.stream, rawLimit, idleMs)
      : await readNodeLimited(src.stream, rawLimit, idleMs, declared)
  if (encoding !== 'zstd' || raw.length === 0) return afterRead(raw)
  return afterRead(await decodeZstdBody(raw, limit))
}

/** Bodies at least this large are followed by a full garbage collection (see collectSoon). */
const COLLECT_AFTER_BYTES = 8 * 1024 * 1024

function afterRead(bytes: Buffer): Buffer {
  if (bytes.byteLength >= COLLECT_AFTER_BYTES) collectSoon()
  return bytes
}

let collecting: NodeJS.Timeout | undefined
let gc: (() => void) | undefined

/**
 * One full garbage collection once the current request has parsed its large body. The text
 * of a large body (a one-byte string as long as the body) and whatever else the request
 * dropped are freed only by a full collection, and V8 starts one only under allocation
 * pressure: an idle daemon kept a burst's garbage resident indefinitely. Node offers no
 * collection call without --expose-gc, which is set here, when first needed, rather than on
 * the command line (a start-up flag would cost every start; see setMemoryFlags in run.ts).
 */
function collectSoon(): void {
  if (collecting) return
  collecting = setTimeout(() => {
    collecting = undefined
    if (!gc) {
      process.getBuiltinModule('node:v8').setFlagsFromString('--expose-gc')
      gc = process.getBuiltinModule('node:vm').runInNewContext('gc') as () => void
    }
    gc()
  }, 0)
  collecting.unref()
}

/** Bodies at least this large have their memory given back as soon as they are parsed. */
const RELEASE_AT_BYTES = 1024 * 1024

/**
 * Frees a large body's bytes now, once they have been read into text: a Buffer's memory is
 * freed by the garbage collector, and an idle daemon may not collect for a long while, so a
 * burst of large bodies would stay resident. Detaching the ArrayBuffer (transfer to length
 * 0) frees its memory at once. Only a buffer that owns its ArrayBuffer is detached (a large
 * Buffer.concat or decoder output does; small ones share Node's pool).
 */
export function releaseBody(bytes: Buffer): void {
  const ab = bytes.buffer as ArrayBuffer & { transfer?: (length: number) => ArrayBuffer }
  if (bytes.byteLength < RELEASE_AT_BYTES || bytes.byteOffset !== 0 || ab.byteLength > bytes.byteLength + 1)
    return
  ab.transfer?.(0)
}

/** Whether the request framing announces a body (chunked, or a non-zero Content-Length). */
export function hasBody(headers: Headers): boolean {
  const length = headers.get('content-length')
  return headers.has('transfer-encoding') || (length !== null && length.trim() !== '0')
}

/**
 * The body of a Node request as a web stream. The adapter gives GET and HEAD requests no
 * body stream at all, so their bodies would be skipped unread: no limit, no check. Cancelling
 * this stream leaves the socket open and discards the rest, as Node does for a body nobody
 * reads, so the response still reaches the client.
 */
export function nodeBodyStream(incoming: Readable): ReadableStream<Uint8Array> {
  const chunks = incoming.iterator({ destroyOnReturn: false })
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await chunks.next()
      if (done) controller.close()
      else controller.enqueue(value as Uint8Array)
    },
    async cancel() {
      await chunks.return?.()
      incoming.resume()
    },
  })
}
