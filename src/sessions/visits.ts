// Visits: a client-identified open of a session. The first PUT of a visit id counts one
// open; repeats return the same Visit; reads never count.
import type { SessionsCore } from './core.ts'

export interface VisitRecord {
  id: string
  session_id: string
  visited_at: string
  opens: number
}

export function recordVisit(core: SessionsCore, sessionId: string, visitId: string): VisitRecord {
  return core.transact((tx) => {
    const r = core.require(sessionId)
    const known = core
      .sql('SELECT visited_at, opens FROM visits WHERE session_id = ? AND visit_id = ?')
      .get(sessionId, visitId) as { visited_at: string; opens: number } | undefined
    if (known) return { id: visitId, session_id: sessionId, ...known }
    const opens = r.opens + 1
    core.sql('UPDATE sessions SET opens = ? WHERE id = ?').run(opens, sessionId)
    core
      .sql('INSERT INTO visits (session_id, visit_id, visited_at, opens) VALUES (?, ?, ?, ?)')
      .run(sessionId, visitId, tx.at, opens)
    tx.append(sessionId, 'session.visited', { visit_id: visitId, opens })
    tx.changed({ session_id: sessionId, reason: 'changed', before: r, after: core.row(sessionId) })
    return { id: visitId, session_id: sessionId, visited_at: tx.at, opens }
  })
}
