// The daemon's event streams, read with fetch (EventSource cannot send Authorization). A
// session stream is followed across dropped connections: the follower keeps the cursor of
// the last frame it handed on (`<generation>:<sequence>`) and connects again with
// after_generation/after_seq; the daemon replays exactly the missed events, and the follower
// still drops any frame at or before its cursor and reconnects on a gap, so every event is
// handed on once, in order (the same rules as src/client/session-follow.ts). The collection
// stream has no cursor: after each `ready` the list is read again.
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import type { SessionListQuery } from '../../../schemas/sessions.ts'
import { type ApiClient, ProblemError } from './client.ts'

export interface StreamFrame {
  event: string
  id: string | undefined
  data: string
}

export interface StreamCursor {
  generation: number
  seq: number
}

/** What a person may want to know about the connection. */
export type LinkState = 'connecting' | 'live' | 'reconnecting' | 'ended'

export function parseCursor(id: string | undefined): StreamCursor | undefined {
  const m = id === undefined ? null : /^(\d{1,15}):(\d{1,15})$/.exec(id)
  return m ? { generation: Number(m[1]), seq: Number(m[2]) } : undefined
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer)
        resolve()
      },
      { once: true },
    )
  })

/** Reads a response's frames until it ends, `stop()` returns true, or `signal` aborts. */
async function readFrames(
  res: Response,
  signal: AbortSignal,
  onFrame: (f: StreamFrame) => boolean | undefined,
  stallMs: number,
): Promise<void> {
  if (!res.body) return
  const reader = res.body.getReader()
  let stop = false
  const parser = createParser({
    onEvent: (m: EventSourceMessage) => {
      if (!stop) stop = onFrame({ event: m.event ?? 'message', id: m.id, data: m.data }) === true
    },
  })
  const decoder = new TextDecoder()
  // The daemon sends a heartbeat after 15 s of silence: a longer quiet is a dead connection.
  let stall = setTimeout(() => reader.cancel(), stallMs)
  const cancel = () => reader.cancel()
  signal.addEventListener('abort', cancel, { once: true })
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      clearTimeout(stall)
      stall = setTimeout(() => reader.cancel(), stallMs)
      parser.feed(decoder.decode(value, { stream: true }))
      if (stop) break
    }
  } finally {
    clearTimeout(stall)
    signal.removeEventListener('abort', cancel)
    reader.cancel().catch(() => {})
  }
}

export interface FollowSessionOptions {
  client: ApiClient
  sessionId: string
  signal: AbortSignal
  onFrame: (f: StreamFrame) => void
  onLink?: (state: LinkState) => void
  /** History entries in the first snapshot. */
  tail?: number
  stallMs?: number
}

/**
 * Follows a session until it is deleted or `signal` aborts. A refusal (404, 410, 401) ends
 * the follow with that ProblemError; any lost connection is resumed from the cursor.
 */
export async function followSession(o: FollowSessionOptions): Promise<void> {
  let cursor: StreamCursor | undefined
  let backoff = 0
  while (!o.signal.aborted) {
    if (backoff > 0) await sleep(backoff, o.signal)
    if (o.signal.aborted) break
    const conn: { end: 'deleted' | 'closed' | 'resume' } = { end: 'closed' }
    try {
      o.onLink?.(cursor ? 'reconnecting' : 'connecting')
      const query = cursor
        ? { after_generation: cursor.generation, after_seq: cursor.seq }
        : { tail: o.tail ?? 100 }
      const res = await o.client.stream('sessions.get', {
        params: { session_id: o.sessionId },
        query,
        signal: o.signal,
      })
      o.onLink?.('live')
      backoff = 0
      const streamCursor = cursor
      let at = streamCursor
      await readFrames(
        res,
        o.signal,
        (f) => {
          const c = parseCursor(f.id)
          if (c && f.event !== 'snapshot' && at && c.generation === at.generation) {
            if (c.seq <= at.seq) return false // handed on already
            if (c.seq !== at.seq + 1) {
              conn.end = 'resume' // a gap: the log has it
              return true
            }
          }
          if (c) {
            at = c
            cursor = c
          }
          o.onFrame(f)
          if (f.event === 'session.deleted') conn.end = 'deleted'
          else if (f.event === 'overflow') conn.end = 'resume'
          return conn.end !== 'closed'
        },
        o.stallMs ?? 45_000,
      )
    } catch (err) {
      if (o.signal.aborted) break
      if (err instanceof ProblemError && err.status !== 503) {
        o.onLink?.('ended')
        throw err
      }
    }
    if (conn.end === 'deleted') break
    backoff = conn.end === 'resume' ? 0 : Math.min(2000, Math.max(250, backoff * 2))
  }
  o.onLink?.('ended')
}

export interface FollowCollectionOptions {
  client: ApiClient
  query: Partial<SessionListQuery>
  signal: AbortSignal
  /** Subscribed (again): read the pages now. */
  onReady: () => void
  /** A session in scope changed. */
  onInvalidated: (sessionId: string, reason: string) => void
  onLink?: (state: LinkState) => void
}

/** Watches the session collection until `signal` aborts, subscribing again after any end. */
export async function followCollection(o: FollowCollectionOptions): Promise<void> {
  let backoff = 0
  while (!o.signal.aborted) {
    if (backoff > 0) await sleep(backoff, o.signal)
    if (o.signal.aborted) break
    try {
      o.onLink?.('connecting')
      const res = await o.client.stream('sessions.list', { query: o.query, signal: o.signal })
      o.onLink?.('live')
      backoff = 0
      await readFrames(
        res,
        o.signal,
        (f) => {
          if (f.event === 'ready') o.onReady()
          else if (f.event === 'session.invalidated') {
            const d = JSON.parse(f.data) as { session_id: string; reason: string }
            o.onInvalidated(d.session_id, d.reason)
          } else if (f.event === 'overflow') return true
          return false
        },
        45_000,
      )
    } catch (err) {
      if (o.signal.aborted) break
      if (err instanceof ProblemError && err.status !== 503) {
        o.onLink?.('ended')
        throw err
      }
    }
    o.onLink?.('reconnecting')
    backoff = Math.min(2000, Math.max(250, backoff * 2))
  }
}
