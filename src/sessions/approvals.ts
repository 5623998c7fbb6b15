// Approvals. Under the `ask` policy a write or a command waits for a person: the request is
// a row, written with the session's blocking reason and an `approval.requested` event in one
// transaction; an input of kind `approval` decides it (src/inputs/admit.ts), once. A request
// nobody decided before its run ended (interrupt, failure, a daemon restart) is `expired`:
// nothing runs without a recorded decision.
import { v7 as uuidv7 } from 'uuid'
import type { ApprovalPolicy } from '../schemas/common.ts'
import { HearthError } from '../schemas/problems.ts'
import type { ToolEffect } from '../tools/types.ts'
import type { SessionsCore, Tx } from './core.ts'
import type { SessionRow } from './types.ts'

export type Decision = 'allow' | 'deny'

export interface ApprovalRow {
  id: string
  session_id: string
  run_id: string
  call_id: string
  tool: string
  summary: string
  effect: ToolEffect
  arguments: string
  state: 'pending' | 'allowed' | 'denied' | 'expired'
  created_at: string
  decided_at: string | null
  decided_by: string | null
}

/** What `remember: session` keeps: the tool, and for a command the exact command line. */
export interface ToolAllow {
  tool: string
  command?: string
}

export interface GatedCall {
  call_id: string
  name: string
  arguments: string
  summary: string
  effect: ToolEffect
}

/** The command a call runs, when its arguments name one (shell, job_start). */
function commandOf(args: string): string | undefined {
  try {
    const command = (JSON.parse(args) as { command?: unknown })?.command
    return typeof command === 'string' ? command : undefined
  } catch {
    return undefined
  }
}

export function allowOf(call: GatedCall): ToolAllow {
  const command = commandOf(call.arguments)
  return command === undefined ? { tool: call.name } : { tool: call.name, command }
}

function remembered(row: SessionRow, call: GatedCall): boolean {
  const want = allowOf(call)
  const allows = JSON.parse(row.tool_allows) as ToolAllow[]
  return allows.some((a) => a.tool === want.tool && a.command === want.command)
}

/** Whether a call runs now, waits for a person, or is refused by the policy. */
export function gate(policy: ApprovalPolicy, row: SessionRow, call: GatedCall): 'run' | 'ask' | 'refuse' {
  if (call.effect === 'read') return 'run'
  if (policy === 'read-only') return 'refuse'
  if (policy === 'auto') return 'run'
  return remembered(row, call) ? 'run' : 'ask'
}

/** Records a request and blocks the session on it; returns the request id. */
export function requestApproval(
  core: SessionsCore,
  sessionId: string,
  runId: string,
  call: GatedCall,
): string | null {
  return core.transact((tx) => {
    const s = core.row(sessionId)
    if (!s || s.run_id !== runId) return null
    const id = uuidv7()
    core
      .sql(
        `INSERT INTO approvals (id, session_id, run_id, call_id, tool, summary, effect, arguments, state, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)`,
      )
      .run(id, sessionId, runId, call.call_id, call.name, call.summary, call.effect, call.arguments, tx.at)
    const reason = {
      kind: 'approval',
      request_id: id,
      tool: call.name,
      summary: call.summary,
      effect: call.effect,
      run_id: runId,
      call_id: call.call_id,
    }
    core
      .sql(
        "UPDATE sessions SET blocking_reason = ?, phase = CASE phase WHEN 'running' THEN 'blocked' ELSE phase END WHERE id = ?",
      )
      .run(JSON.stringify(reason), sessionId)
    tx.append(sessionId, 'approval.requested', { ...reason, arguments: call.arguments })
    tx.changed({ session_id: sessionId, reason: 'changed', before: s, after: core.row(sessionId) })
    return id
  })
}

export function approvalRow(core: SessionsCore, id: string): ApprovalRow | undefined {
  return core.sql('SELECT * FROM approvals WHERE id = ?').get(id) as ApprovalRow | undefined
}

/**
 * Applies a decision inside the admission's transaction: the request must wait in this
 * session. Clears the blocking reason, remembers the allow when asked, appends
 * `approval.decided`.
 */
export function decideApproval(
  core: SessionsCore,
  tx: Tx,
  sessionId: string,
  inputId: string,
  d: { request_id: string; decision: Decision; remember: 'once' | 'session' },
): ApprovalRow {
  const a = approvalRow(core, d.request_id)
  if (!a || a.session_id !== sessionId)
    throw new HearthError(
      'approval_not_pending',
      `Session ${sessionId} has no approval request ${d.request_id}`,
    )
  if (a.state !== 'pending')
    throw new HearthError('approval_not_pending', `Approval request ${d.request_id} is already ${a.state}`)
  const state = d.decision === 'allow' ? 'allowed' : 'denied'
  core
    .sql('UPDATE approvals SET state = ?, decided_at = ?, decided_by = ? WHERE id = ?')
    .run(state, tx.at, inputId, a.id)
  const s = core.require(sessionId)
  const remember = d.decision === 'allow' && d.remember === 'session'
  const allows = JSON.parse(s.tool_allows) as ToolAllow[]
  if (remember) allows.push(allowOf({ ...a, name: a.tool }))
  core
    .sql(
      `UPDATE sessions SET blocking_reason = NULL, tool_allows = ?,
         phase = CASE phase WHEN 'blocked' THEN 'running' ELSE phase END WHERE id = ?`,
    )
    .run(JSON.stringify(allows), sessionId)
  tx.append(sessionId, 'approval.decided', {
    request_id: a.id,
    run_id: a.run_id,
    call_id: a.call_id,
    decision: d.decision,
    remember: d.remember,
    input_id: inputId,
  })
  tx.changed({ session_id: sessionId, reason: 'changed', before: s, after: core.row(sessionId) })
  return { ...a, state, decided_at: tx.at, decided_by: inputId }
}
