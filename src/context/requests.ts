// The requests a session sent to its model: one record per model request (each step of a
// run, each compaction summary), committed as it is sent. A record says what the request
// held (model, sections and their estimates, the history span, the tools offered), never
// its text: the history is in the entries already, and the record stays small. The last
// REQUESTS_KEPT records of a session are kept.
import type { NeutralUsage } from '../providers/types.ts'
import type { SessionsCore } from '../sessions/core.ts'
import type { RequestEstimate } from './estimate.ts'

export const REQUESTS_KEPT = 1000

export interface RequestRecord {
  id: number
  run_id: string | null
  purpose: 'turn' | 'compaction'
  /** The model request's number within its run (1 for the first step); null for a compaction. */
  step: number | null
  sent_at: string
  provider_profile: string
  extension: string
  model: string
  effort: string | null
  window_tokens: number | null
  /** The compaction whose summary the request sent first, if any. */
  compaction_id: string | null
  history: { from_position: number | null; to_position: number | null; messages: number }
  tools: string[]
  estimate: RequestEstimate
  /** What the provider reported for this request (null until it did, or when it did not). */
  usage: NeutralUsage | null
}

export function recordRequest(
  core: SessionsCore,
  sessionId: string,
  r: Omit<RequestRecord, 'id' | 'sent_at' | 'usage'>,
) {
  core.transact((tx) => {
    if (!core.row(sessionId)) return
    const { seq } = core
      .sql('SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM context_requests WHERE session_id = ?')
      .get(sessionId) as { seq: number }
    const record = { ...r, id: seq, sent_at: tx.at, usage: null }
    core
      .sql(
        'INSERT INTO context_requests (session_id, seq, run_id, purpose, sent_at, record) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(sessionId, seq, r.run_id, r.purpose, tx.at, JSON.stringify(record))
    if (seq > REQUESTS_KEPT)
      core
        .sql('DELETE FROM context_requests WHERE session_id = ? AND seq <= ?')
        .run(sessionId, seq - REQUESTS_KEPT)
  })
}

/**
 * Adds the provider's usage to the record of a run's step: the run's latest step record (a
 * step's usage comes before the next step is sent), found from the newest record down
 * rather than by reading every record the session keeps.
 */
export function recordUsage(
  core: SessionsCore,
  sessionId: string,
  runId: string,
  step: number,
  usage: NeutralUsage,
): void {
  core
    .sql(
      `UPDATE context_requests SET record = json_set(record, '$.usage', json(?))
         WHERE session_id = ? AND json_extract(record, '$.step') = ? AND seq = (
           SELECT seq FROM context_requests WHERE session_id = ? AND run_id = ? AND purpose = 'turn'
           ORDER BY seq DESC LIMIT 1)`,
    )
    .run(JSON.stringify(usage), sessionId, step, sessionId, runId)
}

/** Records after `after`, ascending, at most `limit`; `more` when others follow. */
export function requestsPage(
  core: SessionsCore,
  sessionId: string,
  after: number,
  limit: number,
): { items: RequestRecord[]; more: boolean } {
  const rows = core
    .sql('SELECT record FROM context_requests WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?')
    .all(sessionId, after, limit + 1) as { record: string }[]
  const items = rows.slice(0, limit).map((r) => JSON.parse(r.record) as RequestRecord)
  return { items, more: rows.length > limit }
}
