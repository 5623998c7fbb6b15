// A run's log events, batched: what the kernel reports in one tick of the event loop is
// queued on the run and committed in one transaction (setImmediate), so a fast stream makes
// few transactions; deltas of one content and output of one call merge within a batch.
import type { SessionsCore, Tx } from '../../sessions/core.ts'
import { cutChars } from '../../sessions/entries.ts'
import { type LiveContent, noteToolOutput } from '../../sessions/live.ts'
import type { ActiveRun } from '../active-run.ts'
import type { RoundDeps } from '../tool-round.ts'

/** Characters of command output one tool.progress event holds at most (appendProgress). */
const PROGRESS_EVENT_CHARS = 64 * 1024

interface EventLog {
  core: SessionsCore
  onError: (err: unknown) => void
}

/** Queues an event of the run; the batch commits at the next tick of the event loop. */
export function queueEvent(
  d: EventLog,
  sessionId: string,
  run: ActiveRun,
  kind: string,
  payload: Record<string, any>,
): void {
  run.queue.push({ kind, payload })
  if (run.flushScheduled) return
  run.flushScheduled = true
  setImmediate(() => flushEvents(d, sessionId, run))
}

/** Commits the run's queued events now (a deleted session takes none). */
export function flushEvents(d: EventLog, sessionId: string, run: ActiveRun): void {
  run.flushScheduled = false
  if (run.queue.length === 0) return
  const batch = run.queue
  run.queue = []
  try {
    d.core.transact((tx) => {
      if (!d.core.row(sessionId)) return
      for (const e of batch) tx.append(sessionId, e.kind, e.payload)
    })
  } catch (err) {
    d.onError(err)
  }
}

/** Appends the run's queued events inside `tx`, so they go before what `tx` adds. */
function drainEvents(sessionId: string, run: ActiveRun, tx: Tx): void {
  const batch = run.queue
  run.queue = []
  for (const e of batch) tx.append(sessionId, e.kind, e.payload)
}

/** The event log as a tool round (tool-round.ts) writes to it. */
export function roundDeps(d: EventLog, sessionId: string): RoundDeps {
  return {
    core: d.core,
    sessionId,
    flush: (run) => flushEvents(d, sessionId, run),
    drain: (run, tx) => drainEvents(sessionId, run, tx),
    queue: (run, kind, payload) => queueEvent(d, sessionId, run, kind, payload),
  }
}

/** A text or reasoning delta: deltas of one content that arrive in one batch travel as one event. */
export function appendDelta(
  d: EventLog,
  sessionId: string,
  run: ActiveRun,
  c: LiveContent,
  delta: string,
): void {
  c.text += delta
  c.utf8_bytes += Buffer.byteLength(delta)
  run.live.observed_ms = Date.now()
  const last = run.queue.at(-1)
  if (last?.kind === 'output.delta' && last.payload.content_id === c.content_id) last.payload.delta += delta
  else queueEvent(d, sessionId, run, 'output.delta', { content_id: c.content_id, delta })
}

/**
 * Output of a running call joins the previous event of the same call and stream, up to
 * PROGRESS_EVENT_CHARS an event, so a fast command makes few events and none nears the
 * frame limit (a control character escapes to 6 bytes of JSON: 64 Ki of them is 384 KiB).
 */
export function appendProgress(
  d: EventLog,
  sessionId: string,
  run: ActiveRun,
  progress: { callId: string; stream: string; text: string },
): void {
  const { callId, stream } = progress
  run.live.observed_ms = Date.now()
  noteToolOutput(run.live, callId, progress.text)
  let rest = progress.text
  while (rest.length > 0) {
    const last = run.queue.at(-1)
    const open =
      last?.kind === 'tool.progress' && last.payload.call_id === callId && last.payload.stream === stream
        ? last
        : undefined
    // Never empty: a cut inside a surrogate pair at the end of a full event starts a new one.
    const joined = open ? cutChars(rest, PROGRESS_EVENT_CHARS - (open.payload.text as string).length) : ''
    if (open && joined.length > 0) {
      open.payload.text += joined
      rest = rest.slice(joined.length)
    } else {
      const piece = cutChars(rest, PROGRESS_EVENT_CHARS)
      queueEvent(d, sessionId, run, 'tool.progress', { call_id: callId, stream, text: piece })
      rest = rest.slice(piece.length)
    }
  }
}
