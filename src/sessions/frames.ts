// Frames of the session and collection streams, and their SSE text. A frame is at most
// MAX_FRAME_BYTES once encoded.

export const MAX_FRAME_BYTES = 1024 * 1024

export interface Frame {
  /** `<generation>:<sequence>`; present on frames a client can resume after. */
  id?: string
  event: string
  data: unknown
}

export function cursorId(generation: number, seq: number): string {
  return `${generation}:${seq}`
}

/** Parses a Last-Event-ID of the form `<generation>:<sequence>`. */
export function parseCursorId(text: string): { generation: number; seq: number } | undefined {
  const m = /^(\d{1,15}):(\d{1,15})$/.exec(text.trim())
  if (!m) return undefined
  return { generation: Number(m[1]), seq: Number(m[2]) }
}

function frameHead(f: Frame): string {
  return `${f.id !== undefined ? `id: ${f.id}\n` : ''}event: ${f.event}\n`
}

/** Bytes of a frame's SSE text: the head, `data: `, the JSON and the blank line. */
function encodedBytes(head: string, data: string): number {
  return Buffer.byteLength(head) + 6 + Buffer.byteLength(data) + 2
}

/** Whether a frame fits in MAX_FRAME_BYTES (for sources that can shrink a frame). */
export function fitsInFrame(f: Frame): boolean {
  return encodedBytes(frameHead(f), JSON.stringify(f.data)) <= MAX_FRAME_BYTES
}

/** The SSE text of one frame, at most MAX_FRAME_BYTES. Data is one line (JSON escapes
 * line breaks). */
export function encodeFrame(f: Frame): string {
  const head = frameHead(f)
  let data = JSON.stringify(f.data)
  if (encodedBytes(head, data) > MAX_FRAME_BYTES) {
    // Too large to inline: the client reads the content through the JSON resource instead.
    // (Streams keep their frames below the limit; this is the last line of defense.)
    data = JSON.stringify({ omitted: true, reason: 'frame_too_large', bytes: Buffer.byteLength(data) })
  }
  return `${head}data: ${data}\n\n`
}
