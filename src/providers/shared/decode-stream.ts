// The loop every decoder shares: frames in, neutral events out, exactly one terminal
// event (`done` or `error`) at the end whatever the bytes do. A decoder is a small state
// machine; this driver owns faults of the byte source and the end of input.
import type { NeutralEvent } from '../types.ts'
import { type ErrorEvent, errorEvent, faultEvent } from './errors.ts'
import { type SseFrame, sseFrames } from './sse.ts'

export interface FrameDecoder {
  /** The events one frame produces; sets `finished` once it produced a terminal event. */
  frame(frame: SseFrame): NeutralEvent[]
  /** The events at the end of input when no terminal event came (ends with a terminal one). */
  end(): NeutralEvent[]
  readonly finished: boolean
}

/**
 * What every decoder does at the end of its stream: `finish` returns a frame's terminal
 * events (and marks the stream finished), and input that ends before any is
 * `upstream_incomplete` unless the wire says otherwise (`endOfInput`).
 */
export abstract class StreamDecoder implements FrameDecoder {
  finished = false

  abstract frame(frame: SseFrame): NeutralEvent[]

  end(): NeutralEvent[] {
    return this.finish(this.endOfInput())
  }

  /** The terminal events when input ends before the wire's end of the answer. */
  protected endOfInput(): NeutralEvent[] {
    return [incomplete()]
  }

  protected finish(events: NeutralEvent[]): NeutralEvent[] {
    this.finished = true
    return events
  }
}

export async function* decodeWith(
  bytes: AsyncIterable<Uint8Array>,
  machine: FrameDecoder,
): AsyncGenerator<NeutralEvent> {
  const frames = sseFrames(bytes)
  try {
    while (true) {
      let next: IteratorResult<SseFrame>
      try {
        next = await frames.next()
      } catch (err) {
        yield faultEvent(err)
        return
      }
      if (next.done) break
      let events: NeutralEvent[]
      try {
        events = machine.frame(next.value)
      } catch (err) {
        yield errorEvent('upstream_malformed', `a frame did not fit the format: ${(err as Error).message}`)
        return
      }
      for (const event of events) yield event
      if (machine.finished) return
    }
    yield* machine.end()
  } finally {
    // Also when the consumer stops early: closes the byte source (and so the connection).
    await frames.return(undefined)
  }
}

export type Parsed = { ok: true; value: Record<string, any> } | { ok: false; event: ErrorEvent }

/** Parses a frame's data as a JSON object; anything else is malformed (or truncated at the end). */
export function parseFrame(frame: SseFrame): Parsed {
  let value: unknown
  try {
    value = JSON.parse(frame.data)
  } catch {
    return { ok: false, event: notJson(frame) }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, event: notJson(frame) }
  return { ok: true, value: value as Record<string, any> }
}

function notJson(frame: SseFrame): ErrorEvent {
  if (frame.tail) return errorEvent('upstream_incomplete', 'the stream ended in the middle of an event')
  const excerpt = frame.data.length > 120 ? `${frame.data.slice(0, 120)}…` : frame.data
  return errorEvent('upstream_malformed', `a data line is not a JSON object: ${excerpt}`)
}

export function incomplete(): ErrorEvent {
  return errorEvent('upstream_incomplete', 'the stream ended without a terminal event')
}

export function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null
}
