// Durable admission. A repeat of a known id is looked up before anything is validated and
// answers the original decision with the current delivery; a new id is validated, then
// committed with fsync before the 202. The decision is one synchronous savepoint of a group
// commit (group-commit.ts), so concurrent repeats of one id can never admit it twice.

import type { ApprovalRequest, ElicitationRequest, Input, InputRequest } from '../schemas/inputs.ts'
import { MAX_TEXT_BYTES } from '../schemas/inputs.ts'
import { HearthError, problemBody } from '../schemas/problems.ts'
import { decideApproval } from '../sessions/approvals.ts'
import type { SessionsCore, Tx } from '../sessions/core.ts'
import { answerElicitation, checkElicitationAnswer } from '../sessions/elicitations.ts'
import { intentOf } from '../util/canonical.ts'
import type { GroupCommit } from './group-commit.ts'
import { decodeImages } from './images.ts'
import {
  type InputRow,
  inputRow,
  MAX_WAITING,
  pendingView,
  RETENTION_MS,
  toInput,
  uuidV7Time,
  waitingCount,
} from './rows.ts'

export interface Admission {
  status: 202 | 429
  input: Input
}

/** An admission, and when its decision is on disk: its answer waits for `durable`. */
export type Admitted = Admission & { durable: Promise<void> }

/** A decision found committed already: durable once what is committed now is (a repeat may race its own group's sync). */
function found(core: SessionsCore, a: Admission): Admitted {
  return { ...a, durable: core.hub.settled() ?? Promise.resolve() }
}

async function decided(
  commits: GroupCommit,
  decide: (tx: Tx) => Admission,
  started?: (a: Admission) => void,
): Promise<Admitted> {
  const c = await commits.run(decide, started)
  return { ...c.value, durable: c.durable }
}

function repeatOf(existing: InputRow, sessionId: string, intent: string): Admission {
  if (existing.session_id !== sessionId || existing.intent !== intent) {
    throw new HearthError('input_conflict', `Input ${existing.id} was admitted with a different request`)
  }
  return { status: existing.http_status as 202 | 429, input: toInput(existing) }
}

/**
 * Admits one input through the group commit. The repeat lookup runs twice: before
 * validation (a known id answers at once, even if its body would no longer validate) and
 * again inside the savepoint (a concurrent PUT of the same id may have been decided first).
 */
export async function admitInput(
  core: SessionsCore,
  commits: GroupCommit,
  sessionId: string,
  inputId: string,
  raw: unknown,
  validate: () => InputRequest,
  /** Runs right after the commit, before its sync begins: the run the input starts. */
  started?: (a: Admission) => void,
): Promise<Admitted> {
  const intent = intentOf(raw)
  const known = inputRow(core, inputId)
  if (known) return found(core, repeatOf(known, sessionId, intent))
  if (uuidV7Time(inputId) < core.now() - RETENTION_MS)
    throw new HearthError('input_expired', `Input id ${inputId} is older than seven days`)
  const req = validate()
  core.require(sessionId)
  if (req.kind === 'approval') return admitApproval(core, commits, sessionId, inputId, intent, req)
  if (req.kind === 'elicitation') return admitElicitation(core, commits, sessionId, inputId, intent, req)
  if (Buffer.byteLength(req.text) > MAX_TEXT_BYTES) throw new HearthError('text_too_large')
  const images = decodeImages(req.images ?? [])
  if (req.text.trim() === '' && images.length === 0) throw new HearthError('empty_message')
  return decided(
    commits,
    (tx) => {
      const decided = inputRow(core, inputId)
      if (decided) return repeatOf(decided, sessionId, intent)
      const session = core.require(sessionId)
      core.requireFamilyOpen(session.root_id)
      const waiting = { n: waitingCount(core, sessionId) }
      const base = { id: inputId, session_id: sessionId, intent, client_id: req.client_id, text: req.text }
      if (waiting.n >= MAX_WAITING) {
        const problem = problemBody(
          'queue_full',
          `Session ${sessionId} already has ${MAX_WAITING} waiting inputs`,
        )
        core
          .sql(
            `INSERT INTO inputs (id, session_id, intent, client_id, text, image_count, admission, http_status,
             problem, decided_ms) VALUES (?, ?, ?, ?, ?, ?, 'rejected', 429, ?, ?)`,
          )
          .run(base.id, sessionId, intent, req.client_id, '', images.length, JSON.stringify(problem), tx.now)
        return { status: 429 as const, input: toInput(inputRow(core, inputId) as InputRow) }
      }
      const order = session.input_order + 1
      core
        .sql(
          `INSERT INTO inputs (id, session_id, intent, client_id, text, image_count, admission, http_status,
           accepted_at, acceptance_order, delivery) VALUES (?, ?, ?, ?, ?, ?, 'accepted', 202, ?, ?, 'pending')`,
        )
        .run(base.id, sessionId, intent, req.client_id, req.text, images.length, tx.at, order)
      const addImage = core.sql(
        'INSERT INTO input_images (input_id, idx, media_type, data) VALUES (?, ?, ?, ?)',
      )
      for (const [i, img] of images.entries()) addImage.run(inputId, i, img.media_type, img.data)
      const row = inputRow(core, inputId) as InputRow
      const latest = {
        id: inputId,
        acceptance_order: order,
        client_id: req.client_id,
        text: req.text.slice(0, 256),
      }
      core
        .sql(
          `UPDATE sessions SET input_order = ?, latest_input = ?, activity_ms = ?,
           phase = CASE phase WHEN 'idle' THEN 'queued' ELSE phase END WHERE id = ?`,
        )
        .run(order, JSON.stringify(latest), tx.now, sessionId)
      tx.append(sessionId, 'input.accepted', { input: pendingView(row) })
      tx.changed({ session_id: sessionId, reason: 'changed', before: session, after: core.row(sessionId) })
      return { status: 202 as const, input: toInput(row) }
    },
    started,
  )
}

/**
 * An approval is applied in its admission's transaction: it never waits in the queue and
 * does not count toward it. A request that is unknown, of another session or no longer
 * pending is refused (409 approval_not_pending) and nothing is stored.
 */
function admitApproval(
  core: SessionsCore,
  commits: GroupCommit,
  sessionId: string,
  inputId: string,
  intent: string,
  req: ApprovalRequest,
): Promise<Admitted> {
  return decided(commits, (tx) => {
    const decided = inputRow(core, inputId)
    if (decided) return repeatOf(decided, sessionId, intent)
    const a = decideApproval(core, tx, sessionId, inputId, req)
    const text = JSON.stringify({
      request_id: req.request_id,
      decision: req.decision,
      remember: req.remember,
    })
    core
      .sql(
        `INSERT INTO inputs (id, session_id, kind, intent, client_id, text, image_count, admission, http_status,
           accepted_at, delivery, turn, decided_ms) VALUES (?, ?, 'approval', ?, ?, ?, 0, 'accepted', 202, ?, 'completed', ?, ?)`,
      )
      .run(inputId, sessionId, intent, req.client_id, text, tx.at, a.run_id, tx.now)
    return { status: 202 as const, input: toInput(inputRow(core, inputId) as InputRow) }
  })
}

/**
 * An answer to an MCP server's question is applied like an approval, in its admission's
 * transaction. Its content is checked against the form first (422, nothing stored); a
 * request unknown, of another session or no longer pending is 409 elicitation_not_pending.
 */
function admitElicitation(
  core: SessionsCore,
  commits: GroupCommit,
  sessionId: string,
  inputId: string,
  intent: string,
  req: ElicitationRequest,
): Promise<Admitted> {
  const answer = {
    request_id: req.request_id,
    action: req.action,
    ...(req.content === undefined ? {} : { content: req.content }),
  }
  checkElicitationAnswer(core, sessionId, answer)
  return decided(commits, (tx) => {
    const decided = inputRow(core, inputId)
    if (decided) return repeatOf(decided, sessionId, intent)
    const e = answerElicitation(core, tx, sessionId, inputId, answer)
    core
      .sql(
        `INSERT INTO inputs (id, session_id, kind, intent, client_id, text, image_count, admission, http_status,
           accepted_at, delivery, turn, decided_ms) VALUES (?, ?, 'elicitation', ?, ?, ?, 0, 'accepted', 202, ?, 'completed', ?, ?)`,
      )
      .run(inputId, sessionId, intent, req.client_id, JSON.stringify(answer), tx.at, e.run_id, tx.now)
    return { status: 202 as const, input: toInput(inputRow(core, inputId) as InputRow) }
  })
}

/** GET of an input: works after its session is deleted, for seven days. */
export function readInput(core: SessionsCore, sessionId: string, inputId: string): Input {
  const row = inputRow(core, inputId)
  if (row && row.session_id === sessionId) return toInput(row)
  if (uuidV7Time(inputId) < core.now() - RETENTION_MS)
    throw new HearthError('input_expired', `Input id ${inputId} is older than seven days`)
  core.require(sessionId)
  throw new HearthError('input_not_found', `No input ${inputId} in session ${sessionId}`)
}

/** Deletes decisions that became terminal more than seven days ago. */
export function pruneInputs(core: SessionsCore): number {
  const cutoff = core.now() - RETENTION_MS
  return core.db.transaction(() => {
    core
      .sql('DELETE FROM input_images WHERE input_id IN (SELECT id FROM inputs WHERE decided_ms < ?)')
      .run(cutoff)
    return core.sql('DELETE FROM inputs WHERE decided_ms < ?').run(cutoff).changes
  })()
}
