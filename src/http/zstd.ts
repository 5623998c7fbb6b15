// Request bodies coded as one zstd frame. The frame must declare its decoded size so the
// limit is checked before any decoding, and its window is bounded so a small body cannot
// make the decoder reserve gigabytes. Frame header layout: RFC 8878 §3.1.1.1.
import { promisify } from 'node:util'
import { HearthError } from '../schemas/problems.ts'
import { zlib } from '../util/lazy-builtins.ts'

const ZSTD_MAGIC = 0xfd2fb528
/** 2^27 = 128 MiB, the largest window the reference decoder accepts by default. */
export const MAX_WINDOW_LOG = 27
export const MAX_WINDOW_SIZE = 2 ** MAX_WINDOW_LOG

/** zstdDecompress as a promise, made on first use (zlib loads then, not at start-up). */
const makeDecompress = () => promisify(zlib().zstdDecompress)
let decompressAsync: ReturnType<typeof makeDecompress> | undefined
const decompress: ReturnType<typeof makeDecompress> = (buf, options) => {
  decompressAsync ??= makeDecompress()
  return decompressAsync(buf, options)
}

/** zlib refuses an output chunk smaller than this (zlib.constants.Z_MIN_CHUNK). */
const MIN_CHUNK = 64

/**
 * Declared decoded bytes that may be in decoding at once, across requests. Each decode holds
 * about twice its size (the decoder's window, as large as the content for a single-segment
 * frame, and the output), so two bodies at the inputs route's limit fit and a third waits:
 * 503 decode_busy with Retry-After. A body alone is always decoded, whatever its size.
 */
export const DECODE_BUDGET_BYTES = 144 * 1024 * 1024
const DECODE_RETRY_AFTER_S = '1'
let decoding = 0

function reserveDecode(bytes: number): () => void {
  if (decoding > 0 && decoding + bytes > DECODE_BUDGET_BYTES) {
    throw new HearthError(
      'decode_busy',
      `Other request bodies are being decoded; retry in ${DECODE_RETRY_AFTER_S} s`,
      { 'retry-after': DECODE_RETRY_AFTER_S },
    )
  }
  decoding += bytes
  let released = false
  return () => {
    if (!released) decoding -= bytes
    released = true
  }
}

export interface FrameHeader {
  /** Frame_Content_Size; undefined when the frame does not declare it. */
  contentSize: number | undefined
  /** Bytes the decoder must keep (RFC 8878 §3.1.1.1.2); the content size for a single segment. */
  windowSize: number
  singleSegment: boolean
  /** 0 when the frame names no dictionary. */
  dictionaryId: number
  /** Whether a 4-byte checksum follows the last block. */
  checksum: boolean
  /** Bytes of the header: the first block starts here. */
  headerBytes: number
}

/**
 * Largest coded size of a frame that decodes to `limit` bytes: ZSTD_COMPRESSBOUND (zstd.h)
 * plus room for the frame header, checksum and another encoder's block layout.
 */
export function codedLimit(limit: number): number {
  return limit + (limit >> 8) + 1024
}

/** Reads the frame header; throws a problem for anything that is not one plain frame. */
export function readFrameHeader(buf: Buffer): FrameHeader {
  if (buf.length < 6 || buf.readUInt32LE(0) !== ZSTD_MAGIC)
    throw new HearthError('zstd_invalid', 'Not a zstd frame')
  const descriptor = buf[4]
  const fcsFlag = descriptor >> 6
  const singleSegment = (descriptor >> 5) & 1
  const reserved = (descriptor >> 3) & 1
  const checksum = (descriptor >> 2) & 1
  const dictFlag = descriptor & 3
  if (reserved) throw new HearthError('zstd_invalid', 'Reserved frame header bit set')
  let pos = 5
  let windowSize = 0
  if (!singleSegment) {
    const wd = buf[pos++]
    const base = 2 ** (10 + (wd >> 3))
    windowSize = base + (base / 8) * (wd & 7)
  }
  const dictBytes = [0, 1, 2, 4][dictFlag]
  const fcsBytes = [singleSegment ? 1 : 0, 2, 4, 8][fcsFlag]
  if (buf.length < pos + dictBytes + fcsBytes) throw new HearthError('zstd_invalid', 'Truncated frame header')
  const dictionaryId = dictBytes === 0 ? 0 : buf.readUIntLE(pos, dictBytes)
  pos += dictBytes
  let contentSize: number | undefined
  if (fcsBytes === 1) contentSize = buf[pos]
  else if (fcsBytes === 2) contentSize = buf.readUInt16LE(pos) + 256
  else if (fcsBytes === 4) contentSize = buf.readUInt32LE(pos)
  else if (fcsBytes === 8) contentSize = Number(buf.readBigUInt64LE(pos))
  pos += fcsBytes
  if (singleSegment) windowSize = contentSize as number
  return {
    contentSize,
    windowSize,
    singleSegment: singleSegment === 1,
    dictionaryId,
    checksum: checksum === 1,
    headerBytes: pos,
  }
}

/**
 * Where the frame ends, from its block headers (RFC 8878 §3.1.1.2). The decoder stops after
 * the first frame and ignores whatever follows, so the body must end exactly there.
 */
export function frameEnd(buf: Buffer, header: FrameHeader): number {
  let pos = header.headerBytes
  for (;;) {
    if (pos + 3 > buf.length) throw new HearthError('zstd_invalid', 'Truncated zstd frame')
    const block = buf.readUIntLE(pos, 3)
    const type = (block >> 1) & 3
    if (type === 3) throw new HearthError('zstd_invalid', 'Reserved zstd block type')
    pos += 3 + (type === 1 ? 1 : block >>> 3) // an RLE block carries one byte
    if (block & 1) break
  }
  return pos + (header.checksum ? 4 : 0)
}

export async function decodeZstdBody(buf: Buffer, limit: number): Promise<Buffer> {
  const header = readFrameHeader(buf)
  if (header.dictionaryId !== 0) throw new HearthError('zstd_invalid', 'Dictionaries are not supported')
  if (header.contentSize === undefined) throw new HearthError('zstd_size_undeclared')
  if (header.contentSize > limit) {
    throw new HearthError(
      'body_too_large',
      `Declared decoded size ${header.contentSize} exceeds ${limit} bytes`,
    )
  }
  if (header.windowSize > MAX_WINDOW_SIZE) {
    throw new HearthError(
      'zstd_window_too_large',
      `Window of ${header.windowSize} bytes exceeds 2^${MAX_WINDOW_LOG}`,
    )
  }
  const end = frameEnd(buf, header)
  if (end !== buf.length) {
    throw new HearthError(
      'zstd_invalid',
      end < buf.length ? 'The body has bytes after its zstd frame' : 'Truncated zstd frame',
    )
  }
  const release = reserveDecode(header.contentSize)
  let out: Buffer
  try {
    out = await decompress(buf, {
      maxOutputLength: Math.max(1, header.contentSize),
      // One output buffer of the declared size (and a byte to spare, so the decoder never
      // fills it and asks for another): the default is 128 KiB chunks joined at the end,
      // which doubled the peak and left hundreds of small blocks for malloc to keep.
      chunkSize: Math.max(MIN_CHUNK, header.contentSize + 1),
      params: { [zlib().constants.ZSTD_d_windowLogMax]: MAX_WINDOW_LOG },
    })
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ERR_BUFFER_TOO_LARGE')
      throw new HearthError('zstd_invalid', 'Decoded size exceeds the declared size')
    throw new HearthError('zstd_invalid', 'The zstd body could not be decoded')
  } finally {
    release()
  }
  if (out.length !== header.contentSize)
    throw new HearthError('zstd_invalid', 'Decoded size differs from the declared size')
  return out
}
