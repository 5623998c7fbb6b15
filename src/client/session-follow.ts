// Following one session stream across disconnects and daemon restarts. The follower keeps
// the cursor of the last frame it handed on (`<generation>:<sequence>`), and when the
// connection ends for any reason other than the session's deletion it connects again with
// after_generation/after_seq, reading the endpoint anew each time (a restarted daemon has a
// new port; the token stays). The daemon replays exactly the missed events; the follower
// still drops any frame at or before its cursor and reconnects on a gap, so what it hands
// on is every event once, in order. `reset` (the cursor left the log) is handed on and the
// snapshot after it moves the cursor; `overflow` (it fell behind) is handed on and resumed.
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { type HearthClient, NoDaemonError, ProblemError } from './client.ts'

export interface StreamCursor {
  generation: number
  seq: number
}

/** One frame as the daemon sent it: event name, optional id and the raw data text. */
export interface StreamFrame {
  event: string
  id: string | undefined
  data: string
}

export interface FollowOptions {
  /** A client for the daemon as it is now; called before every connection. May throw
   * NoDaemonError while the daemon restarts. */
  client: () => HearthClient
  sessionId: string
  signal: AbortSignal
  onFrame: (f: StreamFrame) => void
  /** Progress worth telling a person (connection lost, reconnected). */
  onNotice?: (message: string) => void
  /** Start after this cursor instead of with a snapshot. */
  after?: StreamCursor
  /** History entries in the first snapshot (default 0). */
  tail?: number
  /** Reconnect when nothing, not even a heartbeat, arrived for this long (default 45 s; the
   * daemon sends a heartbeat after 15 s of silence). */
  stallMs?: number
  /** The longest wait between two connection attempts (default 2 s). */
  maxBackoffMs?: number
}

export type FollowEnd =
  | { reason: 'aborted'; cursor: StreamCursor | undefined }
  | { reason: 'deleted'; cursor: StreamCursor | undefined }

export function parseCursor(id: string | undefined): StreamCursor | undefined {
  const m = id === undefined ? null : /^(\d{1,15}):(\d{1,15})$/.exec(id)
  return m ? { generation: Number(m[1]), seq: Number(m[2]) } : undefined
}

/** Why one connection ended. */
type ConnectionEnd = 'deleted' | 'closed' | 'resume'

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve()
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
  })

/**
 * Follows the stream until the session is deleted or `signal` aborts. Throws ProblemError
 * (404 session_not_found, 410 session_deleted, 401 …) as soon as the daemon refuses the
 * stream, and NoDaemonError when no daemon answers the first connection; later connection
 * losses are retried without limit.
 */
export async function followSession(o: FollowOptions): Promise<FollowEnd> {
  let cursor = o.after
  let connected = false
  let lost = false
  let backoff = 0
  const maxBackoff = o.maxBackoffMs ?? 2000
  while (!o.signal.aborted) {
    if (backoff > 0) await sleep(backoff, o.signal)
    if (o.signal.aborted) break
    let end: ConnectionEnd
    try {
      end = await connectOnce(
        o,
        cursor,
        (c) => {
          cursor = c
        },
        () => {
          if (lost) o.onNotice?.('reconnected; resuming the stream')
          lost = false
          connected = true
          backoff = 0
        },
      )
    } catch (err) {
      if (o.signal.aborted) break
      // A draining daemon (503) is about to go away: wait for the next one.
      if (err instanceof ProblemError && err.status !== 503) throw err
      if (!connected && err instanceof NoDaemonError) throw err
      if (!(err instanceof NoDaemonError || err instanceof ProblemError) && !isNetworkError(err)) throw err
      end = 'closed'
    }
    if (end === 'deleted') return { reason: 'deleted', cursor }
    if (end === 'closed' && !lost && !o.signal.aborted) {
      lost = true
      o.onNotice?.('connection to the daemon lost; reconnecting (Ctrl-C to stop)')
    }
    backoff = end === 'resume' ? 0 : Math.min(maxBackoff, Math.max(100, backoff * 2))
  }
  return { reason: 'aborted', cursor }
}

function isNetworkError(err: unknown): boolean {
  // fetch and body reads fail with TypeError ("terminated", "fetch failed") or an abort of
  // our own stall timer; both mean the connection is gone.
  return err instanceof TypeError || (err as Error)?.name === 'AbortError'
}

async function connectOnce(
  o: FollowOptions,
  start: StreamCursor | undefined,
  setCursor: (c: StreamCursor) => void,
  onOpen: () => void,
): Promise<ConnectionEnd> {
  const local = new AbortController()
  const stop = () => local.abort()
  o.signal.addEventListener('abort', stop, { once: true })
  const stallMs = o.stallMs ?? 45_000
  let stall: NodeJS.Timeout | undefined
  const touch = () => {
    clearTimeout(stall)
    stall = setTimeout(stop, stallMs)
  }
  try {
    touch()
    const query = start ? { after_generation: start.generation, after_seq: start.seq } : { tail: o.tail ?? 0 }
    const res = await o
      .client()
      .stream('sessions.get', { params: { session_id: o.sessionId }, query }, local.signal)
    onOpen()
    if (!res.body) return 'closed'
    let cursor = start
    let end: ConnectionEnd | undefined
    const parser = createParser({
      onEvent: (m: EventSourceMessage) => {
        if (end) return
        const f: StreamFrame = { event: m.event ?? 'message', id: m.id, data: m.data }
        const at = parseCursor(f.id)
        if (at && f.event !== 'snapshot' && cursor && at.generation === cursor.generation) {
          if (at.seq <= cursor.seq) return // already handed on
          if (at.seq !== cursor.seq + 1) {
            end = 'resume' // a gap: read it from the log
            return
          }
        }
        if (at) {
          cursor = at
          setCursor(at)
        }
        o.onFrame(f)
        if (f.event === 'session.deleted') end = 'deleted'
        else if (f.event === 'overflow') end = 'resume'
      },
    })
    const decoder = new TextDecoder()
    const reader = res.body.getReader()
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) break
        touch()
        parser.feed(decoder.decode(value, { stream: true }))
        if (end) break
      }
    } finally {
      reader.cancel().catch(() => {})
    }
    return end ?? 'closed'
  } finally {
    clearTimeout(stall)
    o.signal.removeEventListener('abort', stop)
  }
}
