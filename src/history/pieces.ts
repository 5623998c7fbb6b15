// UTF-8 pieces of a long text: byte offsets, and ends moved back to a character boundary.

/** One piece of `text` starting at byte `offset`, at most `max` bytes, ending on a character. */
export function pieceOf(
  text: string,
  offset: number,
  max: number,
  cutoff = Number.POSITIVE_INFINITY,
): { text: string; offset: number; end: number; total: number } {
  const bytes = Buffer.from(text)
  const total = Math.min(bytes.length, cutoff)
  let end = Math.min(offset + max, total)
  // A UTF-8 continuation byte is 10xxxxxx: never end a piece in front of one.
  while (end > offset && end < bytes.length && (bytes[end] & 0xc0) === 0x80) end--
  return { text: bytes.toString('utf8', offset, end), offset, end, total }
}
