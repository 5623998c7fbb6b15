// SSE framing: bytes → UTF-8 text (a multi-byte character split across chunks is held
// until complete) → `{event, data}` frames via the kept `eventsource-parser`. Comments
// (`: keepalive`), CR, LF and CRLF line ends and unknown fields are handled by the parser.
import { createParser } from 'eventsource-parser'

export interface SseFrame {
  event: string | undefined
  data: string
  /** True for a frame completed only by the end of the stream (no closing blank line). */
  tail: boolean
}

/**
 * Yields the frames of an event stream. At a clean end of input an event still waiting
 * for its blank line is delivered with `tail: true`, so a last frame missing its final
 * newline is not lost; a decoder treats a tail frame that does not parse as truncated.
 * Errors of the byte source propagate unchanged.
 */
export async function* sseFrames(bytes: AsyncIterable<Uint8Array>): AsyncGenerator<SseFrame> {
  const pending: SseFrame[] = []
  let tail = false
  const parser = createParser({
    onEvent: (e) => pending.push({ event: e.event, data: e.data, tail }),
  })
  const decoder = new TextDecoder('utf-8')
  for await (const chunk of bytes) {
    parser.feed(decoder.decode(chunk, { stream: true }))
    while (pending.length > 0) yield pending.shift()!
  }
  tail = true
  parser.feed(`${decoder.decode()}\n\n`)
  while (pending.length > 0) yield pending.shift()!
}
