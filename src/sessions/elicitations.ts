// Elicitations: an MCP server asks the person something during one of its tool calls. Like
// an approval, the request is a row, written with the session's blocking reason and an
// `elicitation.requested` event in one transaction; an input of kind `elicitation` answers
// it (src/inputs/admit.ts), once, and the answer goes back to the server. A request nobody
// answered before its run ended (interrupt, failure, drain, a daemon restart) is `expired`
// (src/runs/finish.ts) and the server gets `cancel`.
import { v7 as uuidv7 } from 'uuid'
import type { ElicitAction, ElicitParams } from '../mcp/elicitation.ts'
import { HearthError } from '../schemas/problems.ts'
import type { SessionsCore, Tx } from './core.ts'
import { contentErrors, type ElicitationField, type FieldValue, fieldsOf } from './elicitation-fields.ts'

export type ElicitationState = 'pending' | 'accepted' | 'declined' | 'cancelled' | 'expired'

export interface ElicitationRow {
  id: string
  session_id: string
  run_id: string
  call_id: string
  server: string
  mode: 'form' | 'url'
  message: string
  params: string
  state: ElicitationState
  created_at: string
  answered_at: string | null
  answered_by: string | null
}

export interface ElicitationAnswer {
  request_id: string
  action: ElicitAction
  content?: Record<string, FieldValue>
}

const STATE_OF: Record<ElicitAction, ElicitationState> = {
  accept: 'accepted',
  decline: 'declined',
  cancel: 'cancelled',
}

/** The session's blocking reason for a request: the form's fields, or the URL to open. */
function reasonOf(id: string, server: string, p: ElicitParams) {
  const base = { kind: 'elicitation' as const, request_id: id, server, mode: p.mode, message: p.message }
  if (p.mode === 'url') return { ...base, fields: null, url: p.url, elicitation_id: p.elicitationId }
  return { ...base, fields: fieldsOf(p.requestedSchema), url: null, elicitation_id: null }
}

/** A stored request's question as it was asked. */
function paramsOfRow(e: ElicitationRow): ElicitParams {
  const p = JSON.parse(e.params)
  if (e.mode === 'url')
    return { mode: 'url', message: e.message, url: p.url, elicitationId: p.elicitation_id }
  return { mode: 'form', message: e.message, requestedSchema: p }
}

/**
 * The session blocks on its oldest waiting question (two servers may ask at once, from
 * calls that run side by side: one is shown at a time), or on nothing once none waits.
 */
function showOldest(core: SessionsCore, sessionId: string): void {
  const next = core
    .sql("SELECT * FROM elicitations WHERE session_id = ? AND state = 'pending' ORDER BY id LIMIT 1")
    .get(sessionId) as ElicitationRow | undefined
  if (next)
    core
      .sql(
        "UPDATE sessions SET blocking_reason = ?, phase = CASE phase WHEN 'running' THEN 'blocked' ELSE phase END WHERE id = ?",
      )
      .run(JSON.stringify(reasonOf(next.id, next.server, paramsOfRow(next))), sessionId)
  else
    core
      .sql(
        "UPDATE sessions SET blocking_reason = NULL, phase = CASE phase WHEN 'blocked' THEN 'running' ELSE phase END WHERE id = ?",
      )
      .run(sessionId)
}

/**
 * Only a web page is offered to open: https, or http on this machine (a local helper).
 * Anything else (a file, a custom scheme, a plain http page elsewhere) is refused.
 */
export function urlShown(url: string): boolean {
  if (!URL.canParse(url)) return false
  const u = new URL(url)
  if (u.protocol === 'https:') return true
  return u.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname)
}

/**
 * Records a request and blocks the session on it (behind any question already waiting);
 * null when the run is no longer the session's.
 */
export function requestElicitation(
  core: SessionsCore,
  where: { session_id: string; run_id: string; call_id: string; server: string },
  params: ElicitParams,
  first: (tx: Tx) => void,
): string | null {
  const sessionId = where.session_id
  return core.transact((tx) => {
    const s = core.row(sessionId)
    if (!s || s.run_id !== where.run_id) return null
    first(tx)
    const id = uuidv7()
    const reason = reasonOf(id, where.server, params)
    const stored =
      params.mode === 'url'
        ? { url: params.url, elicitation_id: params.elicitationId }
        : params.requestedSchema
    core
      .sql(
        `INSERT INTO elicitations (id, session_id, run_id, call_id, server, mode, message, params, state, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)`,
      )
      .run(
        id,
        sessionId,
        where.run_id,
        where.call_id,
        where.server,
        params.mode,
        params.message,
        JSON.stringify(stored),
        tx.at,
      )
    showOldest(core, sessionId)
    tx.append(sessionId, 'elicitation.requested', { ...reason, run_id: where.run_id, call_id: where.call_id })
    tx.changed({ session_id: sessionId, reason: 'changed', before: s, after: core.row(sessionId) })
    return id
  })
}

export function elicitationRow(core: SessionsCore, id: string): ElicitationRow | undefined {
  return core.sql('SELECT * FROM elicitations WHERE id = ?').get(id) as ElicitationRow | undefined
}

function pendingRow(core: SessionsCore, sessionId: string, requestId: string): ElicitationRow {
  const e = elicitationRow(core, requestId)
  if (!e || e.session_id !== sessionId)
    throw new HearthError(
      'elicitation_not_pending',
      `Session ${sessionId} has no elicitation request ${requestId}`,
    )
  if (e.state !== 'pending')
    throw new HearthError('elicitation_not_pending', `Elicitation request ${requestId} is already ${e.state}`)
  return e
}

/**
 * Checks an answer before its admission: the request waits in this session (409
 * elicitation_not_pending), and an accepted form's content fits its fields (422
 * elicitation_content_invalid, with each field's error). Content comes only with `accept`.
 */
export function checkElicitationAnswer(core: SessionsCore, sessionId: string, a: ElicitationAnswer): void {
  const e = pendingRow(core, sessionId, a.request_id)
  const invalid = (detail: string, errors: { field: string; message: string }[] = []) =>
    new HearthError('elicitation_content_invalid', detail, {}, { errors })
  if (a.action !== 'accept' || e.mode === 'url') {
    if (a.content !== undefined)
      throw invalid(`content comes only with an accepted form, not with ${a.action} of a ${e.mode} request`)
    return
  }
  const fields: ElicitationField[] = fieldsOf(JSON.parse(e.params))
  const errors = contentErrors(fields, a.content ?? {})
  if (errors.length > 0) throw invalid(errors.map((x) => `${x.field} ${x.message}`).join('; '), errors)
}

/**
 * Applies an answer inside the admission's transaction: the session blocks on the next
 * waiting question, or on nothing, and `elicitation.answered` is appended (with the form's
 * content, as a message's text is shown).
 */
export function answerElicitation(
  core: SessionsCore,
  tx: Tx,
  sessionId: string,
  inputId: string,
  a: ElicitationAnswer,
): ElicitationRow {
  const e = pendingRow(core, sessionId, a.request_id)
  const state = STATE_OF[a.action]
  core
    .sql('UPDATE elicitations SET state = ?, answered_at = ?, answered_by = ? WHERE id = ?')
    .run(state, tx.at, inputId, e.id)
  const s = core.require(sessionId)
  showOldest(core, sessionId)
  tx.append(sessionId, 'elicitation.answered', {
    request_id: e.id,
    run_id: e.run_id,
    call_id: e.call_id,
    server: e.server,
    action: a.action,
    content: a.content ?? null,
    input_id: inputId,
  })
  tx.changed({ session_id: sessionId, reason: 'changed', before: s, after: core.row(sessionId) })
  return { ...e, state, answered_at: tx.at, answered_by: inputId }
}

/**
 * Which pending requests of a run expire, and why: all of them when the run ends, a call's
 * when the call ended while its server still asked, one the server withdrew while its call
 * goes on.
 */
export type Expiry =
  | { reason: 'run_ended' }
  | { reason: 'call_ended'; callId: string }
  | { reason: 'withdrawn'; requestId: string }

/**
 * Expires a run's pending requests inside `tx` with an `elicitation.expired` event each;
 * returns their ids. When a question ends before its run, the session blocks on the next
 * waiting question or on nothing; a run that ends clears the blocking reason itself
 * (src/runs/finish.ts).
 */
export function expireElicitations(
  core: SessionsCore,
  tx: Tx,
  sessionId: string,
  runId: string,
  expiry: Expiry,
): string[] {
  const callId = expiry.reason === 'call_ended' ? expiry.callId : null
  const requestId = expiry.reason === 'withdrawn' ? expiry.requestId : null
  // The session's pending rows through the partial index (nearly always none), then the run's.
  const expired = core
    .sql(
      `UPDATE elicitations SET state = 'expired', answered_at = ?
         WHERE session_id = ? AND state = 'pending' AND run_id = ?
           AND (? IS NULL OR call_id = ?) AND (? IS NULL OR id = ?)
         RETURNING id, call_id, server`,
    )
    .all(tx.at, sessionId, runId, callId, callId, requestId, requestId) as {
    id: string
    call_id: string
    server: string
  }[]
  const why = expiry.reason
  for (const e of expired)
    tx.append(sessionId, 'elicitation.expired', {
      request_id: e.id,
      run_id: runId,
      call_id: e.call_id,
      server: e.server,
      reason: why,
    })
  const s = core.row(sessionId)
  if (s && why !== 'run_ended' && expired.length > 0) {
    showOldest(core, sessionId)
    tx.changed({ session_id: sessionId, reason: 'changed', before: s, after: core.row(sessionId) })
  }
  return expired.map((e) => e.id)
}

/**
 * A server says a URL interaction it asked for is complete: recorded as an event (the
 * request it names, if the session has it). The wait, if any, goes on: the person's answer
 * ends it, as the run's end does.
 */
export function elicitationCompleted(
  core: SessionsCore,
  sessionId: string,
  server: string,
  elicitationId: string,
): void {
  core.transact((tx) => {
    if (!core.row(sessionId)) return
    const r = core
      .sql(
        `SELECT id FROM elicitations WHERE session_id = ? AND server = ? AND mode = 'url'
           AND json_extract(params, '$.elicitation_id') = ? ORDER BY created_at DESC LIMIT 1`,
      )
      .get(sessionId, server, elicitationId) as { id: string } | undefined
    tx.append(sessionId, 'elicitation.completed', {
      server,
      elicitation_id: elicitationId,
      request_id: r?.id ?? null,
    })
  })
}
