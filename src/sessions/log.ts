// The per-session event log. Every change to a session appends its events inside the same
// transaction as the change, so the log and the state never disagree, and streams replay
// from here rather than from memory.
import type { Db } from '../store/db.ts'
import type { LogEvent } from './types.ts'

interface EventRow {
  session_id: string
  generation: number
  seq: number
  kind: string
  at: string
  payload: string
}

// The JSON length of each event's payload, known when the event is appended or read, so
// streams can bound their queues by size without serializing payloads again.
const payloadLengths = new WeakMap<LogEvent, number>()

/** Length of the event's payload as JSON text (UTF-16 code units). */
export function payloadLength(e: LogEvent): number {
  let n = payloadLengths.get(e)
  if (n === undefined) {
    n = JSON.stringify(e.payload).length
    payloadLengths.set(e, n)
  }
  return n
}

function fromRow(r: EventRow): LogEvent {
  const e = { ...r, payload: JSON.parse(r.payload) }
  payloadLengths.set(e, r.payload.length)
  return e
}

export class EventLog {
  readonly #advance
  readonly #insert
  readonly #read
  readonly #head

  constructor(db: Db) {
    this.#advance = db.prepare<[string], { generation: number; seq: number }>(
      'UPDATE sessions SET seq = seq + 1 WHERE id = ? RETURNING generation, seq',
    )
    this.#insert = db.prepare(
      'INSERT INTO events (session_id, generation, seq, kind, at, payload) VALUES (?, ?, ?, ?, ?, ?)',
    )
    this.#read = db.prepare<[string, number, number, number], EventRow>(
      'SELECT * FROM events WHERE session_id = ? AND generation = ? AND seq > ? ORDER BY seq LIMIT ?',
    )
    this.#head = db.prepare<[string], { generation: number; seq: number }>(
      'SELECT generation, seq FROM sessions WHERE id = ?',
    )
  }

  /** Appends one event; call inside the transaction that makes the change. */
  append(sessionId: string, kind: string, payload: unknown, at: string): LogEvent {
    const head = this.#advance.get(sessionId)
    if (!head) throw new Error(`append to unknown session ${sessionId}`)
    const text = JSON.stringify(payload)
    this.#insert.run(sessionId, head.generation, head.seq, kind, at, text)
    const e = { session_id: sessionId, generation: head.generation, seq: head.seq, kind, at, payload }
    payloadLengths.set(e, text.length)
    return e
  }

  /**
   * Up to `limit` events after `afterSeq` in `generation`, ascending, stopping once their
   * payloads reach `maxLength` characters (at least one event is returned when there is one).
   */
  read(
    sessionId: string,
    generation: number,
    afterSeq: number,
    limit: number,
    maxLength = Infinity,
  ): LogEvent[] {
    const out: LogEvent[] = []
    let length = 0
    for (const r of this.#read.iterate(sessionId, generation, afterSeq, limit)) {
      out.push(fromRow(r))
      length += r.payload.length
      if (length >= maxLength) break // leaving the loop resets the statement
    }
    return out
  }

  head(sessionId: string): { generation: number; seq: number } | undefined {
    return this.#head.get(sessionId)
  }
}
