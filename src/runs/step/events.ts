// A run's log events, batched: what the kernel reports in one tick of the event loop is
// queued on the run and committed in one transaction (setImmediate), so a fast stream makes
// few transactions; deltas of one content and output of one call merge within a batch. A
// transaction that ends a step or the run takes the batch first (drainEvents), so the end
// of a step costs one commit. The step's usage, for the request log, rides along the same way.
import { recordUsage } from '../../context/requests.ts'
import type { NeutralUsage } from '../../providers/types.ts'
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

/**
 * The provider's usage of the run's current step, added to the step's record in the request
 * log with the run's next commit: the step's end (its calls' commit, or the run's end) at the
 * latest, never a commit of its own, which would come just as the step ends.
 */
export function queueUsage(run: ActiveRun, usage: NeutralUsage): void {
  run.usageToRecord = { step: run.step, usage }
}

/** Commits the run's queued events now (a deleted session takes none). */
export function flushEvents(d: EventLog, sessionId: string, run: ActiveRun): void {
  run.flushScheduled = false
  if (run.queue.length === 0 && run.usageToRecord === undefined) return
  try {
    d.core.transact((tx) => {
      if (!d.core.row(sessionId)) {
        run.queue = []
        run.usageToRecord = undefined
        return
      }
      drainEvents(d, sessionId, run, tx)
    })
  } catch (err) {
    d.onError(err)
  }
}

/** Appends the run's queued events inside `tx`, so they go before what `tx` adds. */
export function drainEvents(d: EventLog, sessionId: string, run: ActiveRun, tx: Tx): void {
  const batch = run.queue
  run.queue = []
  for (const e of batch) tx.append(sessionId, e.kind, e.payload)
  const noted = run.usageToRecord
  if (!noted) return
  run.usageToRecord = undefined
  try {
    // In a savepoint: the request log is a record, and a failed write of it never takes
    // the step's own changes with it.
    d.core.db.transaction(() => recordUsage(d.core, sessionId, run.started.run_id, noted.step, noted.usage))()
  } catch (err) {
    d.onError(err)
  }
}

/** The event log as a tool round (tool-round.ts) writes to it. */
export function roundDeps(d: EventLog, sessionId: string): RoundDeps {
  return {
    core: d.core,
    sessionId,
    flush: (run) => flushEvents(d, sessionId, run),
    drain: (run, tx) => drainEvents(d, sessionId, run, tx),
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
