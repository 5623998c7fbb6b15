// One subscriber of a session stream. A fresh subscription starts with a snapshot; a
// resumed one replays the log after the client's cursor, reading it in batches only as
// fast as the client takes them, then switches to live events. Live events wait in a
// bounded queue: a client that falls behind it gets an `overflow` frame and the stream
// ends, so memory never grows with a slow reader; the client resumes from its cursor.
// A cursor the log cannot continue (another generation, a sequence past the head, or a
// part of the log that is gone) gets a `reset` frame and a fresh snapshot.

import { CONTINUATION_ROOM, countThatFitFromEnd, jsonBytes } from '../util/json-budget.ts'
import type { SessionsCore } from './core.ts'
import type { HistoryEntry } from './entries.ts'
import { cursorId, type Frame, fitsInFrame, MAX_FRAME_BYTES } from './frames.ts'
import { payloadLength } from './log.ts'
import type { LogEvent } from './types.ts'
import { DEFAULT_TAIL, type ReadExtras, toRead } from './views.ts'

/** A replay reads at most this many events, or this many payload characters, at a time. */
export const REPLAY_BATCH = 512
export const REPLAY_BATCH_LENGTH = 4 * 1024 * 1024
/** Live events waiting for a slow reader: at most this many, or this many characters of
 * payload (events reach 1 MiB, so a count alone would not bound memory). */
export const LIVE_QUEUE_LIMIT = 4096
export const LIVE_QUEUE_LENGTH = 8 * 1024 * 1024
/** Characters a queued frame costs besides its payload (envelope, id, bookkeeping). */
const FRAME_OVERHEAD = 160

/** A fresh subscription (`tail` history entries in the snapshot) or a resume after a
 * cursor; `tail` then bounds the snapshot that follows a reset. */
export type StreamStart = { tail: number } | { generation: number; seq: number; tail?: number }

type ResetReason = 'generation_superseded' | 'sequence_ahead'

export function eventFrame(e: LogEvent): Frame {
  return {
    id: cursorId(e.generation, e.seq),
    event: e.kind,
    data: { kind: e.kind, generation: e.generation, sequence: e.seq, at: e.at, payload: e.payload },
  }
}

export class SessionStream {
  readonly #core: SessionsCore
  readonly #id: string
  readonly #queueLimit: number
  readonly #queueLength: number
  readonly #tail: number
  #mode: 'replay' | 'live' | 'ending' | 'ended' = 'live'
  #generation = 0
  #lastSeq = 0
  #queue: Frame[] = []
  /** Payload characters (plus overhead) of the live events in #queue. */
  #queued = 0
  #wake: (() => void) | undefined
  readonly #unsubscribe: () => void

  constructor(
    core: SessionsCore,
    sessionId: string,
    start: StreamStart,
    queueLimit = LIVE_QUEUE_LIMIT,
    queueLength = LIVE_QUEUE_LENGTH,
  ) {
    this.#core = core
    this.#id = sessionId
    this.#queueLimit = queueLimit
    this.#queueLength = queueLength
    this.#tail = start.tail ?? DEFAULT_TAIL
    // Subscribing and reading the starting point happen in one synchronous step: no event
    // can be committed in between, so nothing falls into a gap.
    this.#unsubscribe = core.hub.subscribe(sessionId, {
      onEvent: (e) => this.#onEvent(e),
      onDeleted: () => this.#deleted(),
    })
    const head = core.log.head(sessionId)
    if (!head) {
      this.#deleted()
      return
    }
    if (!('generation' in start)) {
      this.#snapshot()
      return
    }
    if (start.generation !== head.generation) this.#reset('generation_superseded')
    else if (start.seq > head.seq) this.#reset('sequence_ahead')
    else this.#resumeAfter(start.generation, start.seq)
  }

  #resumeAfter(generation: number, seq: number): void {
    this.#generation = generation
    this.#lastSeq = seq
    this.#mode = 'replay'
  }

  /** A `reset` frame and a snapshot of the session as it is now; live events follow. */
  #reset(reason: ResetReason): void {
    const head = this.#core.log.head(this.#id)
    if (!head) {
      this.#deleted()
      return
    }
    this.#queue.push({
      event: 'reset',
      data: { reason, cursor: { generation: head.generation, sequence: head.seq } },
    })
    this.#snapshot()
  }

  #snapshot(): void {
    const row = this.#core.row(this.#id)
    if (!row) {
      this.#deleted()
      return
    }
    const extras = this.#core.readExtras(this.#id, this.#tail)
    const contextWindow = this.#core.contextWindowOf(row)
    const instructions = this.#core.instructionSources(row)
    const composed = this.#core.composed(row)
    // What the tail or the frame limit cut continues through history.older, as in a read.
    const build = (history: HistoryEntry[]) => {
      const first = history[0]?.position ?? row.transcript_count + 1
      const older = first > 1 ? this.#core.olderHistory(row.id, first) : null
      return snapshotFrame(row, { ...extras, history, older, contextWindow, instructions, composed })
    }
    let items = extras.history
    let frame = build(items)
    // A frame is at most 1 MiB: keep the newest history entries that fit beside the rest
    // of the snapshot (`older` pages back to the others), then check the whole frame.
    if (!fitsInFrame(frame)) {
      const rest = jsonBytes(build([]).data)
      items = items.slice(
        items.length - countThatFitFromEnd(items, MAX_FRAME_BYTES - rest - CONTINUATION_ROOM),
      )
      frame = build(items)
    }
    while (!fitsInFrame(frame) && items.length > 0) {
      items = items.slice(1)
      frame = build(items)
    }
    this.#generation = row.generation
    this.#lastSeq = row.seq
    this.#mode = 'live'
    this.#queue.push(frame)
  }

  #onEvent(e: LogEvent): void {
    if (this.#mode !== 'live') return // replay reads it from the log; an ending stream drops it
    if (e.generation !== this.#generation) {
      // The log was rewritten under a live stream: start over from the new generation.
      this.#reset('generation_superseded')
      this.#wake?.()
      return
    }
    if (e.seq <= this.#lastSeq) return
    if (e.seq !== this.#lastSeq + 1) {
      // Never expected (events publish in commit order), but if one is missed the log
      // still holds it: read the gap from there rather than skip it.
      this.#mode = 'replay'
      this.#wake?.()
      return
    }
    this.#lastSeq = e.seq
    const length = payloadLength(e) + FRAME_OVERHEAD
    if (
      this.#queue.length >= this.#queueLimit ||
      (this.#queue.length > 0 && this.#queued + length > this.#queueLength)
    ) {
      this.#queue = []
      this.#queued = 0
      this.#end({ event: 'overflow', data: { reason: 'slow_reader', queued_limit: this.#queueLimit } })
      return
    }
    this.#queue.push(eventFrame(e))
    this.#queued += length
    this.#wake?.()
  }

  #deleted(): void {
    this.#end({ event: 'session.deleted', data: { session_id: this.#id } })
  }

  #end(frame: Frame): void {
    if (this.#mode === 'ending' || this.#mode === 'ended') return
    this.#queue.push(frame)
    this.#mode = 'ending'
    this.#unsubscribe()
    this.#wake?.()
  }

  /** The next frames to send, waiting for live events; null once the stream is over. */
  async next(): Promise<Frame[] | null> {
    const frames = await this.#take()
    // A snapshot or a replay read from the store may show a commit whose sync runs still
    // (live events come from the hub, which holds them until then).
    const settled = this.#core.hub.settled()
    if (settled) await settled
    return frames
  }

  async #take(): Promise<Frame[] | null> {
    for (;;) {
      if (this.#queue.length > 0) {
        const out = this.#queue
        this.#queue = []
        this.#queued = 0
        return out
      }
      if (this.#mode === 'ending' || this.#mode === 'ended') {
        this.#mode = 'ended'
        return null
      }
      if (this.#mode === 'replay') {
        const events = this.#core.log.read(
          this.#id,
          this.#generation,
          this.#lastSeq,
          REPLAY_BATCH,
          REPLAY_BATCH_LENGTH,
        )
        if (events.length > 0 && events[0].seq !== this.#lastSeq + 1) {
          // The events after the cursor are no longer in the log.
          this.#reset('generation_superseded')
          continue
        }
        if (events.length > 0) {
          this.#lastSeq = events[events.length - 1].seq
          return events.map(eventFrame)
        }
        const head = this.#core.log.head(this.#id)
        if (!head) {
          this.#deleted()
          continue
        }
        if (head.generation !== this.#generation) {
          this.#reset('generation_superseded')
          continue
        }
        this.#mode = 'live' // caught up, in the same synchronous step as the empty read
        continue
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve
      })
      this.#wake = undefined
    }
  }

  close(): void {
    if (this.#mode === 'ended') return
    this.#mode = 'ended'
    this.#queue = []
    this.#queued = 0
    this.#unsubscribe()
    this.#wake?.()
  }
}

function snapshotFrame(row: Parameters<typeof toRead>[0], extras: ReadExtras): Frame {
  return { id: cursorId(row.generation, row.seq), event: 'snapshot', data: { session: toRead(row, extras) } }
}
