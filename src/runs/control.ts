// Cancel and interrupt. Both act only on what the client named: a cancel touches one input
// (and stops its run only when that run serves it alone); an interrupt stops the run the
// client saw and cancels inputs up to the order it saw, so a retried request can never
// reach a later run or newer inputs.
import { readInput } from '../inputs/admit.ts'
import { inputRow, toInput, waitingCount } from '../inputs/rows.ts'
import type { InputCancellation, Interruption, InterruptRequest } from '../schemas/inputs.ts'
import type { SessionsCore } from '../sessions/core.ts'
import type { Runs } from './engine.ts'

/** Cancels waiting inputs (the given ids) in one transaction; returns those it cancelled. */
function cancelWaiting(core: SessionsCore, sessionId: string, ids: string[]): string[] {
  if (ids.length === 0) return []
  return core.transact((tx) => {
    const before = core.row(sessionId)
    const done: string[] = []
    for (const id of ids) {
      const changed = core
        .sql(
          "UPDATE inputs SET delivery = 'cancelled', decided_ms = ? WHERE id = ? AND session_id = ? AND delivery = 'pending'",
        )
        .run(tx.now, id, sessionId).changes
      if (changed === 0) continue
      core.sql('DELETE FROM input_images WHERE input_id = ?').run(id)
      const order = (inputRow(core, id) as { acceptance_order: number }).acceptance_order
      tx.append(sessionId, 'input.cancelled', { input_id: id, acceptance_order: order })
      done.push(id)
    }
    const waiting = { n: waitingCount(core, sessionId) }
    if (waiting.n === 0)
      core.sql("UPDATE sessions SET phase = 'idle' WHERE id = ? AND phase = 'queued'").run(sessionId)
    if (done.length > 0)
      tx.changed({ session_id: sessionId, reason: 'changed', before, after: core.row(sessionId) })
    return done
  })
}

export async function cancelInput(
  core: SessionsCore,
  runs: Runs,
  sessionId: string,
  inputId: string,
): Promise<InputCancellation> {
  const input = readInput(core, sessionId, inputId)
  const answer = (outcome: InputCancellation['outcome']): InputCancellation => ({
    input_id: inputId,
    outcome,
    input: toInput(inputRow(core, inputId) ?? (input as never)),
  })
  if (input.admission === 'rejected') return answer('not_admitted')
  if (input.delivery === 'pending') {
    cancelWaiting(core, sessionId, [inputId])
    return answer('cancelled')
  }
  if (input.delivery === 'running') {
    const active = runs.active(sessionId)
    if (active?.input_ids.includes(inputId)) {
      if (active.input_ids.length > 1) return answer('shared_running')
      await runs.interrupt(sessionId, active.run_id)
      return answer('interrupted')
    }
  }
  return answer('already_finished')
}

export async function interruptSession(
  core: SessionsCore,
  runs: Runs,
  sessionId: string,
  req: InterruptRequest,
): Promise<Interruption> {
  core.require(sessionId)
  const waiting = core
    .sql(
      "SELECT id FROM inputs WHERE session_id = ? AND delivery = 'pending' AND acceptance_order <= ? ORDER BY acceptance_order",
    )
    .all(sessionId, req.through_input_order) as { id: string }[]
  // Cancel first: the run's end would otherwise start the next run from these inputs.
  const cancelled = cancelWaiting(
    core,
    sessionId,
    waiting.map((w) => w.id),
  )
  let outcome: Interruption['run_outcome'] = 'not_running'
  if (req.run_id !== null) {
    if (await runs.interrupt(sessionId, req.run_id)) outcome = 'interrupted'
    else if (core.sql('SELECT 1 FROM runs WHERE id = ? AND session_id = ?').get(req.run_id, sessionId))
      outcome = 'already_ended'
  }
  return {
    run_id: req.run_id,
    run_outcome: outcome,
    through_input_order: req.through_input_order,
    cancelled_inputs: cancelled,
  }
}
