// Where a streaming Markdown text can be cut into blocks that no later text changes (see
// ./streaming-markdown.tsx).

/** Offsets where a finished block ends: after a blank line that is not inside a fence. */
export function blockEnds(text: string): number[] {
  const ends: number[] = []
  let inFence = false
  let lineStart = 0
  let blank = false
  while (lineStart < text.length) {
    const nl = text.indexOf('\n', lineStart)
    if (nl < 0) break
    const line = text.slice(lineStart, nl)
    if (/^ {0,3}(```|~~~)/.test(line)) inFence = !inFence
    const isBlank = line.trim() === ''
    if (isBlank && !blank && !inFence && lineStart > 0) ends.push(nl + 1)
    blank = isBlank
    lineStart = nl + 1
  }
  return ends
}
