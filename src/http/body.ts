// Reading a request body with a hard byte limit, optionally zstd-coded. Nothing is buffered
// past the limit: a declared Content-Length over it is refused before reading, and a stream
// that keeps going is cut off at the first byte past it.
import { HearthError } from '../schemas/problems.ts'
import { decodeZstdBody } from './zstd.ts'

export interface BodySource {
  stream: ReadableStream<Uint8Array> | null
  contentLength: string | undefined
  contentEncoding: string | undefined
}

async function readLimited(stream: ReadableStream<Uint8Array>, limit: number): Promise<Buffer> {
  const chunks: Uint8Array[] = []
  let total = 0
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > limit) {
      await reader.cancel().catch(() => {})
      throw new HearthError('body_too_large', `The body exceeds ${limit} bytes`)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks, total)
}

/** Returns the decoded body bytes; the limit applies to decoded bytes. */
export async function readBody(src: BodySource, limit: number): Promise<Buffer> {
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
  if (declared !== undefined && declared > limit + 1024) {
    throw new HearthError('body_too_large', `The body exceeds ${limit} bytes`)
  }
  if (!src.stream) return Buffer.alloc(0)
  const raw = await readLimited(src.stream, encoding === 'zstd' ? limit + 1024 : limit)
  if (encoding !== 'zstd' || raw.length === 0) return raw
  return decodeZstdBody(raw, limit)
}
