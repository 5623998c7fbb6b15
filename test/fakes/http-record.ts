// What every fake upstream does with a request: read its body, parse it when it is JSON,
// and keep a record tests can assert on. Also the write that waits for the socket.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FakeScript, Frame } from './openai-frames.ts'

export interface RecordedRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: any
  /** Resolves when the connection of this request's response closed. */
  closed: Promise<void>
  /** True when the fake finished writing the response before the connection closed. */
  completed: boolean
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

/** The record of a request whose body is `raw` (parsed when it is JSON, else kept as text). */
export function recordOf(req: IncomingMessage, res: ServerResponse, raw: string): RecordedRequest {
  let body: any = raw
  try {
    body = JSON.parse(raw)
  } catch {
    // not JSON: the text itself
  }
  return {
    method: req.method ?? '',
    path: req.url ?? '',
    headers: req.headers,
    body,
    completed: false,
    closed: new Promise((resolve) => res.on('close', () => resolve())),
  }
}

/** Writes and waits until the bytes are handed to the socket (so a later drop cannot lose them). */
export function write(res: ServerResponse, text: string): Promise<void> {
  return new Promise((resolve) => res.write(text, () => resolve()))
}

/**
 * Streams a script's frames, misbehaving after `after` deltas as its mode says (stall,
 * drop the socket, or send a frame that is not JSON), and marks the record completed when
 * the whole stream was written.
 */
export async function playFrames(
  res: ServerResponse,
  frames: Frame[],
  script: FakeScript,
  record: RecordedRequest,
): Promise<void> {
  const after = script.after ?? 1
  let deltas = 0
  for (const frame of frames) {
    if (frame.delta) {
      if (deltas === after && script.mode === 'stall') return
      if (deltas === after && script.mode === 'drop') return void res.socket?.destroy()
      if (deltas === after && script.mode === 'malformed')
        res.write('data: {"type": "response.output_text.delta", oops\n\n')
      if (script.delayMs) await sleep(script.delayMs)
      deltas++
    }
    if (res.destroyed) return
    await write(res, frame.text)
  }
  record.completed = true
  res.end()
}
