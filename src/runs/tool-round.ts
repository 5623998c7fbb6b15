// One tool round of a run: the step's calls are checked by the kernel, committed with the
// step's answer, gated by the approval policy, run in the kernel and their results
// committed. Reads run concurrently; a write or a command waits for everything before it and
// runs alone, so the model's order holds wherever it matters.
import type { CheckedCall } from '../kernel/protocol.ts'
import type { ApprovalPolicy } from '../schemas/common.ts'
import { type Problem, problemBody } from '../schemas/problems.ts'
import { type GatedCall, gate, requestApproval } from '../sessions/approvals.ts'
import type { SessionsCore, Tx } from '../sessions/core.ts'
import type { ActiveRun } from './active-run.ts'
import { callEnded } from './elicitations.ts'
import type { RunOutcome } from './finish.ts'
import { addResult, type CallResult, commitStep } from './step/entries.ts'

export interface RoundDeps {
  core: SessionsCore
  sessionId: string
  flush: (run: ActiveRun) => void
  /** Appends the run's queued events inside `tx` (they go before what `tx` adds). */
  drain: (run: ActiveRun, tx: Tx) => void
  queue: (run: ActiveRun, kind: string, payload: Record<string, unknown>) => void
  /**
   * Before the run's first call that is not a read: its `before` snapshot, recorded before
   * the call runs (snapshots/recording.ts); later calls find it taken.
   */
  beforeChange?: (run: ActiveRun) => Promise<void>
}

export interface RoundEnd {
  /** Set when the run ends here instead of taking another step. */
  end?: { outcome: RunOutcome; problem: Problem | null }
}

interface Call extends GatedCall {
  grp: number
  checked: CheckedCall
  /** Its `tool.started` went with the step's commit. */
  announced?: boolean
}

export async function runToolRound(d: RoundDeps, run: ActiveRun): Promise<RoundEnd> {
  const asked = run.tool_calls.filter((p) => p.type === 'tool_call')
  const checked = await checkedCalls(run)
  if (run.finished) return {}
  const calls: Call[] = asked.map((c) => {
    const k = checked.find((x) => x.call_id === c.id) as CheckedCall
    return {
      call_id: c.id,
      name: c.name,
      arguments: c.arguments,
      summary: k?.summary ?? c.name,
      effect: k?.effect ?? 'exec',
      grp: 0,
      checked: k,
    }
  })
  const groups = commitStep(
    d.core,
    d.sessionId,
    run.started.run_id,
    {
      contents: run.live.contents,
      tool_calls: asked,
      replay: run.encrypted.sort((a, b) => a.index - b.index).map((x) => x.part),
    },
    checked,
    (tx) => d.drain(run, tx),
    (tx) => announceReads(d, run, calls, tx),
  )
  for (const call of calls) call.grp = groups.get(call.call_id) ?? 0
  // The step is history now: the next one starts from nothing.
  run.checked = undefined
  run.live.contents = []
  run.tool_calls = []
  run.encrypted = []
  if (run.interrupted) return { end: { outcome: 'interrupted', problem: null } }
  if (run.step >= run.scope.maxSteps) {
    const detail = `The run made ${run.step} model requests (tools.max_steps); its last calls were not run`
    return { end: { outcome: 'failed', problem: problemBody('step_limit_reached', detail) } }
  }
  let reads: Promise<void>[] = []
  for (const call of calls) {
    if (run.finished || run.interrupted) break
    if (call.effect === 'read' || !call.checked?.ok) {
      reads.push(runCall(d, run, call))
      continue
    }
    await Promise.all(reads)
    reads = []
    if (run.finished || run.interrupted) break
    await runCall(d, run, call)
  }
  await Promise.all(reads)
  if (run.interrupted && !run.finished) return { end: { outcome: 'interrupted', problem: null } }
  return {}
}

/**
 * The reads before the step's first call that changes something start at once (every policy
 * lets a read run, and the kernel started them as the step ended): their `tool.started`
 * goes in the step's commit, not in a commit of its own.
 */
function announceReads(d: RoundDeps, run: ActiveRun, calls: Call[], tx: Tx): void {
  if (run.interrupted || run.step >= run.scope.maxSteps) return
  for (const call of calls) {
    if (!call.checked?.ok) continue
    if (call.effect !== 'read') return
    tx.append(d.sessionId, 'tool.started', startedOf(run, call))
    call.announced = true
  }
}

/** The payload of a call's `tool.started`. */
function startedOf(run: ActiveRun, call: Call) {
  return {
    run_id: run.started.run_id,
    call_id: call.call_id,
    name: call.name,
    summary: call.summary,
    effect: call.effect,
  }
}

/** The kernel's check of the step's calls (names and arguments against the tools' schemas). */
function checkedCalls(run: ActiveRun): Promise<CheckedCall[]> {
  const early = run.checked
  if (early) return Promise.resolve(early)
  return new Promise((resolve) => {
    run.checkWaiter = (checked) => {
      run.checkWaiter = undefined
      resolve(checked)
    }
  })
}

async function runCall(d: RoundDeps, run: ActiveRun, call: Call): Promise<void> {
  const { checked } = call
  if (!checked)
    return commit(d, run, call, { outcome: 'error', output: `The kernel did not check call ${call.call_id}` })
  if (!checked.ok) return commit(d, run, call, { outcome: 'error', output: checked.error })
  const row = d.core.row(d.sessionId)
  if (!row) return
  // A policy changed during the run applies from its next call.
  const policy = (row.approval_policy as ApprovalPolicy | null) ?? run.scope.policy
  const verdict = gate(policy, row, call)
  if (verdict === 'refuse') {
    const output = `Not run: this session's approval policy is read-only, which allows no ${call.effect} tool (${call.summary}).`
    return commit(d, run, call, { outcome: 'denied', output })
  }
  if (verdict === 'ask') {
    const decision = await ask(d, run, call)
    if (decision === 'expired' || run.finished) return
    if (decision === 'deny') {
      const output = `Denied: the user did not allow this call (${call.summary}). It was not run; do not retry it unchanged.`
      return commit(d, run, call, { outcome: 'denied', output })
    }
  }
  if (run.finished || run.interrupted) return
  if (call.effect !== 'read' && d.beforeChange) {
    await d.beforeChange(run)
    if (run.finished || run.interrupted) return
  }
  const started = startedOf(run, call)
  if (!call.announced) d.queue(run, 'tool.started', started)
  run.live.tools.push({ ...started, started_at: new Date().toISOString(), tail: '', output_utf8_bytes: 0 })
  const result = await resultOf(d, run, call)
  run.resultWaiters.delete(call.call_id)
  callEnded(d.core, d.sessionId, run, call.call_id)
  run.live.tools = run.live.tools.filter((t) => t.call_id !== call.call_id)
  if (!run.finished) commit(d, run, call, result)
}

/**
 * The call's result: the one the kernel sent unasked, or the kernel's answer to a `tool`.
 * An announced read runs in the kernel already and its result is usually on the channel by
 * now: one turn of the event loop reads it, and no request for it goes out (a request that
 * crosses the result costs the kernel a message; it answers nothing twice).
 */
async function resultOf(d: RoundDeps, run: ActiveRun, call: Call): Promise<CallResult> {
  if (call.announced && !run.earlyResults.has(call.call_id)) await new Promise((r) => setImmediate(r))
  const early = run.earlyResults.get(call.call_id)
  run.earlyResults.delete(call.call_id)
  if (early) return early
  if (run.finished) return { outcome: 'interrupted', output: '' }
  return new Promise<CallResult>((resolve) => {
    run.resultWaiters.set(call.call_id, resolve)
    const { scope } = run
    run.kernel?.send({
      type: 'tool',
      run_id: run.started.run_id,
      session_id: d.sessionId,
      call: { call_id: call.call_id, name: call.name, arguments: call.arguments },
      workspace: scope.workspace,
      allowed_roots: scope.allowedRoots,
      // Git writes allowed or taken back during the run apply from the next call.
      sandbox: { ...scope.sandbox, gitWritable: d.core.row(d.sessionId)?.allow_git_writes === 1 },
      skills_off: scope.skillsOff,
    })
  })
}

function ask(d: RoundDeps, run: ActiveRun, call: Call): Promise<'allow' | 'deny' | 'expired'> {
  d.flush(run)
  const id = requestApproval(d.core, d.sessionId, run.started.run_id, call)
  if (id === null) return Promise.resolve('expired')
  return new Promise((resolve) => {
    run.approvalWaiters.set(id, (decision) => {
      run.approvalWaiters.delete(id)
      resolve(decision)
    })
  })
}

/** The call's result entry and `tool.ended`, after the events queued before them. */
function commit(d: RoundDeps, run: ActiveRun, call: Call, r: CallResult): void {
  d.core.transact((tx) => {
    const s = d.core.row(d.sessionId)
    if (!s || s.run_id !== run.started.run_id) return
    d.drain(run, tx)
    addResult(d.core, tx, d.sessionId, run.started.run_id, call, r)
  })
}
