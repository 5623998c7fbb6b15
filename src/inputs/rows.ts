// Input rows and their wire form. Inputs outlive their session (decisions are read for
// seven days), so they are keyed by id alone and carry their session id.
import type { Delivery, Input } from '../schemas/inputs.ts'
import type { SessionsCore } from '../sessions/core.ts'

export interface InputRow {
  id: string
  kind: 'message' | 'approval' | 'elicitation'
  session_id: string
  intent: string
  client_id: string
  text: string
  image_count: number
  admission: 'accepted' | 'rejected'
  http_status: number
  problem: string | null
  accepted_at: string | null
  acceptance_order: number | null
  delivery: Delivery | null
  blocking_reason: string | null
  transcript_position: number | null
  turn: string | null
  decided_ms: number | null
}

/** Seven days: how long terminal decisions are kept, and the age past which an id is refused. */
export const RETENTION_MS = 7 * 24 * 60 * 60 * 1000

/** Inputs that may wait in one session's queue. */
export const MAX_WAITING = 32

export const TERMINAL: readonly Delivery[] = ['completed', 'interrupted', 'failed', 'cancelled']

export function toInput(r: InputRow): Input {
  return {
    id: r.id,
    session_id: r.session_id,
    kind: r.kind,
    admission: r.admission,
    http_status: r.http_status,
    problem: r.problem === null ? null : JSON.parse(r.problem),
    accepted_at: r.accepted_at,
    acceptance_order: r.acceptance_order,
    delivery: r.delivery,
    blocking_reason: r.blocking_reason,
    transcript_position: r.transcript_position,
    turn: r.turn,
    client_id: r.client_id,
    // An approval keeps what it decided in its text.
    ...(r.kind === 'approval' ? { approval: JSON.parse(r.text) } : {}),
    // So does an answer to an MCP server.
    ...(r.kind === 'elicitation' ? { elicitation: JSON.parse(r.text) } : {}),
  }
}

export function inputRow(core: SessionsCore, id: string): InputRow | undefined {
  return core.sql('SELECT * FROM inputs WHERE id = ?').get(id) as InputRow | undefined
}

/** Waiting inputs of a session in acceptance order. */
export function pendingRows(core: SessionsCore, sessionId: string): InputRow[] {
  return core
    .sql("SELECT * FROM inputs WHERE session_id = ? AND delivery = 'pending' ORDER BY acceptance_order")
    .all(sessionId) as InputRow[]
}

export { uuidV7Time } from '../util/uuid.ts'

/** The short form a session shows of a waiting input. */
export function pendingView(r: InputRow) {
  return {
    id: r.id,
    acceptance_order: r.acceptance_order as number,
    client_id: r.client_id,
    accepted_at: r.accepted_at as string,
    text: r.text.slice(0, 256),
    image_count: r.image_count,
  }
}

/** How many inputs wait in a session's queue. */
export function waitingCount(core: SessionsCore, sessionId: string): number {
  const r = core
    .sql("SELECT COUNT(*) AS n FROM inputs WHERE session_id = ? AND delivery = 'pending'")
    .get(sessionId) as { n: number }
  return r.n
}
