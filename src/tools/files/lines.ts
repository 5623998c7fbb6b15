// Reads a window of lines out of an open file without holding the whole file: the file is
// read in chunks, only the lines asked for are kept, each cut at a set width, and reading
// stops once the window is full (then newlines are only counted, for the total).
import type { FileHandle } from 'node:fs/promises'

export interface LineWindow {
  /** 1-based line number of the first line wanted. */
  from: number
  /** Most lines to keep. */
  maxLines: number
  /** Most characters of output to keep (line numbers and tabs included). */
  maxChars: number
  /** Lines longer than this are cut. */
  maxLineChars: number
  /** Count lines to the end (for the total) only while the file is at most this big. */
  countUpTo: number
  signal: AbortSignal
}

export interface WindowRead {
  lines: { n: number; text: string; cut: number }[]
  /** Lines in the file, when it was counted to the end. */
  total: number | null
  /** The window stopped for the character cap, not the line cap or the end. */
  charCapped: boolean
  /** More lines follow the last one kept. */
  more: boolean
  crlf: boolean
  interrupted: boolean
}

const CHUNK = 64 * 1024

export async function readWindow(fh: FileHandle, size: number, w: LineWindow): Promise<WindowRead> {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: false })
  const out: WindowRead = {
    lines: [],
    total: null,
    charCapped: false,
    more: false,
    crlf: false,
    interrupted: false,
  }
  let n = 1 // number of the line being read
  let text = '' // its kept head
  let length = 0 // its full length
  let endsCr = false // its last character so far is a carriage return
  let chars = 0
  let full = false // the window is complete: from here on lines are only counted
  let lastByte = -1
  const buf = Buffer.allocUnsafe(CHUNK)
  let pos = 0

  const endLine = () => {
    if (!full && n >= w.from) {
      if (endsCr) {
        length--
        out.crlf = true
      }
      const kept = text.slice(0, Math.min(w.maxLineChars, length))
      const cost = kept.length + 8
      if (out.lines.length >= w.maxLines || chars + cost > w.maxChars) {
        full = true
        out.more = true
        out.charCapped = out.lines.length < w.maxLines
      } else {
        out.lines.push({ n, text: kept, cut: Math.max(0, length - kept.length) })
        chars += cost
      }
    } else if (full) out.more = true
    n++
    text = ''
    length = 0
    endsCr = false
  }

  while (true) {
    if (w.signal.aborted) {
      out.interrupted = true
      return out
    }
    if (full && size > w.countUpTo) return out
    const { bytesRead } = await fh.read(buf, 0, CHUNK, pos)
    if (bytesRead === 0) break
    pos += bytesRead
    lastByte = buf[bytesRead - 1]
    if (full) {
      for (let i = buf.indexOf(10); i !== -1 && i < bytesRead; i = buf.indexOf(10, i + 1)) n++
      continue
    }
    const chunk = decoder.decode(buf.subarray(0, bytesRead), { stream: true })
    let start = 0
    for (let i = chunk.indexOf('\n'); i !== -1; i = chunk.indexOf('\n', start)) {
      take(chunk.slice(start, i))
      endLine()
      start = i + 1
      if (full) {
        // count the rest of this chunk's lines without keeping them
        for (let j = chunk.indexOf('\n', start); j !== -1; j = chunk.indexOf('\n', j + 1)) n++
        start = chunk.length
        break
      }
    }
    take(chunk.slice(start))
  }
  if (!full) take(decoder.decode())
  // a last line without a newline is still a line
  if (pos > 0 && lastByte !== 10) {
    if (full) n++
    else endLine()
  }
  out.total = n - 1
  return out

  function take(piece: string) {
    if (piece === '' || full) return
    endsCr = piece.endsWith('\r')
    if (n >= w.from && text.length <= w.maxLineChars) text += piece.slice(0, w.maxLineChars + 1 - text.length)
    length += piece.length
  }
}
