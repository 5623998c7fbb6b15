// Request bodies coded as one zstd frame. The frame must declare its decoded size so the
// limit is checked before any decoding, and its window is bounded so a small body cannot
// make the decoder reserve gigabytes. Frame header layout: RFC 8878 §3.1.1.1.
import { promisify } from 'node:util'
import zlib from 'node:zlib'
import { HearthError } from '../schemas/problems.ts'

const ZSTD_MAGIC = 0xfd2fb528
/** 2^27 = 128 MiB, the largest window the reference decoder accepts by default. */
export const MAX_WINDOW_LOG = 27

const decompress = promisify(zlib.zstdDecompress)

export interface FrameHeader {
  contentSize: number | undefined
  windowLog: number
  dictionaryId: number
}

/** Reads the frame header; throws a problem for anything that is not one plain frame. */
export function readFrameHeader(buf: Buffer): FrameHeader {
  if (buf.length < 6 || buf.readUInt32LE(0) !== ZSTD_MAGIC)
    throw new HearthError('zstd_invalid', 'Not a zstd frame')
  const descriptor = buf[4]
  const fcsFlag = descriptor >> 6
  const singleSegment = (descriptor >> 5) & 1
  const reserved = (descriptor >> 3) & 1
  const dictFlag = descriptor & 3
  if (reserved) throw new HearthError('zstd_invalid', 'Reserved frame header bit set')
  let pos = 5
  let windowLog = 0
  if (!singleSegment) {
    const wd = buf[pos++]
    windowLog = 10 + (wd >> 3)
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
  if (singleSegment && contentSize !== undefined)
    windowLog = Math.max(10, Math.ceil(Math.log2(Math.max(1, contentSize))))
  return { contentSize, windowLog, dictionaryId }
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
  if (header.windowLog > MAX_WINDOW_LOG) {
    throw new HearthError('zstd_window_too_large', `Window 2^${header.windowLog} exceeds 2^${MAX_WINDOW_LOG}`)
  }
  let out: Buffer
  try {
    out = await decompress(buf, {
      maxOutputLength: Math.max(1, header.contentSize),
      params: { [zlib.constants.ZSTD_d_windowLogMax]: MAX_WINDOW_LOG },
    })
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ERR_BUFFER_TOO_LARGE')
      throw new HearthError('zstd_invalid', 'Decoded size exceeds the declared size')
    throw new HearthError('zstd_invalid', 'The zstd body could not be decoded')
  }
  if (out.length !== header.contentSize)
    throw new HearthError('zstd_invalid', 'Decoded size differs from the declared size')
  return out
}
