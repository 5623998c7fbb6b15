// Reading the start of a text file: at most so many bytes, strict UTF-8 without NUL bytes,
// cut at a character boundary. Instruction files and skills read their files this way.
import { readSync } from 'node:fs'

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

/** The first `max` bytes of an open file of `size` bytes (it may have shrunk since its stat). */
export function readPrefix(fd: number, size: number, max: number): { bytes: Buffer; truncated: boolean } {
  const buf = Buffer.allocUnsafe(Math.min(size, max))
  let n = 0
  while (n < buf.length) {
    const got = readSync(fd, buf, n, buf.length - n, n)
    if (got === 0) break
    n += got
  }
  return { bytes: buf.subarray(0, n), truncated: size > n }
}

/** Strict UTF-8 without NUL bytes; a cut text drops a character split at its end. */
export function decode(bytes: Uint8Array, cut: boolean): string | null {
  if (bytes.includes(0)) return null
  const end = cut ? characterBoundary(bytes, bytes.length) : bytes.length
  try {
    return utf8.decode(bytes.subarray(0, end))
  } catch {
    return null
  }
}

/** The largest offset ≤ `end` at which bytes[0, offset) ends with a whole UTF-8 sequence. */
export function characterBoundary(bytes: Uint8Array, end: number): number {
  // The last lead byte: step back over at most three continuation bytes (10xxxxxx).
  let i = end - 1
  while (i > 0 && end - i <= 3 && (bytes[i] & 0xc0) === 0x80) i--
  if (i < 0) return 0
  const lead = bytes[i]
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1
  return i + length <= end ? end : i
}
