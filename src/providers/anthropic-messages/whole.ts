// A Messages answer that came whole: a 200 with a Message object (`type: "message"`,
// all its content blocks complete) where a stream was asked for, as a proxy that buffers
// or a server that ignored `stream: true` sends it. It is replayed as the stream the shared
// decoder reads: `message_start`, each block opened whole and closed (the decoder takes a
// block's text, thinking, signature or tool input from its start), `message_delta` with
// the stop reason and usage, `message_stop`. An `{type: "error"}` body becomes the
// stream's `error` event, mapped as in a stream.

type Json = Record<string, unknown>

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

const frame = (type: string, data: Json) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`

/** The event-stream text of a whole Message, or null when `body` is none. */
export function messagesWhole(body: unknown): string | null {
  if (!isObject(body)) return null
  if (body.type === 'error' && isObject(body.error)) return frame('error', { error: body.error })
  if (body.type !== 'message' || !Array.isArray(body.content)) return null
  const { content, stop_reason, stop_sequence, usage, ...message } = body
  const parts = [frame('message_start', { message: { ...message, content: [], usage: usage ?? {} } })]
  content.forEach((block, index) => {
    parts.push(frame('content_block_start', { index, content_block: block }))
    parts.push(frame('content_block_stop', { index }))
  })
  parts.push(
    frame('message_delta', {
      delta: { stop_reason: stop_reason ?? null, stop_sequence: stop_sequence ?? null },
      usage: usage ?? {},
    }),
  )
  parts.push(frame('message_stop', {}))
  return parts.join('')
}
