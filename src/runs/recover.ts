// After a crash: a run the previous daemon left open is ended as interrupted, keeping the
// output its log recorded since its last committed step; a call left without a result gets
// one saying so (finish.ts). A run that waited for an approval or for an answer to an MCP
// server's question fails instead: the request expires (the call never runs, the server
// went with its kernel). Sessions with waiting inputs are queued to run again.
import { problemBody } from '../schemas/problems.ts'
import type { SessionsCore } from '../sessions/core.ts'
import type { LiveContent } from '../sessions/live.ts'
import { finishRun } from './finish.ts'

interface OpenRun {
  id: string
  session_id: string
  start_generation: number
  start_seq: number
  started_at: string
}

/** The output a run's log events carry: contents in the order they started. */
function outputFromLog(core: SessionsCore, run: OpenRun): LiveContent[] {
  const events = core
    .sql(
      `SELECT kind, payload FROM events WHERE session_id = ? AND generation = ? AND seq > ?
         AND kind IN ('output.started', 'output.delta', 'entry.added') ORDER BY seq`,
    )
    .all(run.session_id, run.start_generation, run.start_seq) as { kind: string; payload: string }[]
  const contents = new Map<string, LiveContent>()
  for (const e of events) {
    const p = JSON.parse(e.payload)
    // A step that asked for tools committed its output: what came before is history.
    if (e.kind === 'entry.added' && p.entry?.kind === 'assistant' && p.entry.content?.run_id === run.id)
      contents.clear()
    if (e.kind === 'output.started' && p.run_id === run.id)
      contents.set(p.content_id, { ...p, text: '', utf8_bytes: 0 })
    const c = e.kind === 'output.delta' ? contents.get(p.content_id) : undefined
    if (c) {
      c.text += p.delta
      c.utf8_bytes += Buffer.byteLength(p.delta)
    }
  }
  return [...contents.values()]
}

/** Ends open runs; returns the sessions that have inputs waiting. */
export function recoverRuns(core: SessionsCore): string[] {
  const open = core.sql('SELECT * FROM runs WHERE ended_at IS NULL').all() as OpenRun[]
  for (const run of open) {
    const s = core.row(run.session_id)
    if (!s) {
      core.sql("UPDATE runs SET ended_at = started_at, outcome = 'interrupted' WHERE id = ?").run(run.id)
      continue
    }
    const waited = core
      .sql("SELECT tool, summary FROM approvals WHERE run_id = ? AND state = 'pending'")
      .get(run.id) as { tool: string; summary: string } | undefined
    const asked = core
      .sql("SELECT server FROM elicitations WHERE session_id = ? AND state = 'pending' AND run_id = ?")
      .get(run.session_id, run.id) as { server: string } | undefined
    finishRun(core, run.session_id, run.id, {
      outcome: waited || asked ? 'failed' : 'interrupted',
      problem: problemBody(
        'daemon_restarted',
        asked
          ? `The daemon stopped while the MCP server ${asked.server} waited for an answer; the request expired`
          : waited
            ? `The daemon stopped while a call waited for approval (${waited.summary}); the request expired and the call did not run`
            : 'The daemon stopped during the run; its output so far is kept',
      ),
      contents: outputFromLog(core, run),
      tool_calls: [],
      replay: [],
      usage: null,
      model: s.model,
      elapsed_ms: core.now() - Date.parse(run.started_at),
    })
  }
  // A session left running without an open run (cannot happen, but must not stay stuck).
  core
    .sql(
      "UPDATE sessions SET phase = 'idle', run_id = NULL, interrupt_requested = 0 WHERE run_id IS NOT NULL AND run_id NOT IN (SELECT id FROM runs WHERE ended_at IS NULL)",
    )
    .run()
  return (
    core.sql("SELECT DISTINCT session_id FROM inputs WHERE delivery = 'pending'").all() as {
      session_id: string
    }[]
  ).map((r) => r.session_id)
}
