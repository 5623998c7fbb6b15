// The window onto the transcript: the rows the chat screen shows, counted up from the bottom.
import type { Transcript } from './transcript.ts'

/**
 * The lines of a window `height` rows tall over the transcript, `offset` rows up from the
 * bottom. Only the blocks that reach the window are rendered; returns the rows and whether
 * the window reaches the top of what is held (then older history can be read).
 */
export function windowOf(
  t: Transcript,
  width: number,
  height: number,
  offset: number,
): { lines: string[]; atTop: boolean; offset: number } {
  t.width = width
  const need = height + offset
  const collected: (readonly string[])[] = []
  let count = 0
  let i = t.blocks.length - 1
  for (; i >= 0 && count < need; i--) {
    const lines = t.blocks[i].render(width)
    // A blank line above each block; the first block's is dropped below.
    collected.push(lines, [''])
    count += lines.length + 1
  }
  const all = collected.reverse().flat()
  const atTop = i < 0
  if (atTop) all.shift()
  // Scrolled past the top: stop at the first line.
  const maxOffset = Math.max(0, all.length - height)
  const off = atTop ? Math.min(offset, maxOffset) : offset
  const end = all.length - off
  const lines = all.slice(Math.max(0, end - height), end)
  return { lines, atTop: atTop && off >= maxOffset, offset: off }
}
