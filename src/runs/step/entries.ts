// The history of a run's steps. A step that ends with tool calls commits its answer (text,
// reasoning, the calls) and one `tool_call` entry per call; each call's result is a
// `tool_result` entry in the call's own display group, committed with its `tool.ended`
// event when the call ends. Calls a run leaves without a result (interrupt, failure, a
// daemon that stopped) get one when the run ends, so the history never holds half a call.
import type { CheckedCall } from '../../kernel/protocol.ts'
import type { AssistantPart } from '../../providers/types.ts'
import type { SessionsCore, Tx } from '../../sessions/core.ts'
import { addEntries } from '../../sessions/entries.ts'
import type { LiveContent } from '../../sessions/live.ts'
import type { ToolImage } from '../../tools/types.ts'

/** How a call ended: a tool's own outcome, or `denied` when an approval refused it. */
export type CallOutcome = 'ok' | 'error' | 'interrupted' | 'timeout' | 'denied'

/** Characters of a result's output that `tool.ended` carries (the entry has it all). */
export const OUTPUT_PREVIEW_CHARS = 4096

export interface CallResult {
  outcome: CallOutcome
  output: string
  images?: ToolImage[]
  meta?: Record<string, unknown>
}

function nextGroup(core: SessionsCore, sessionId: string): number {
  return (
    core.sql('SELECT COALESCE(MAX(grp), 0) + 1 AS grp FROM entries WHERE session_id = ?').get(sessionId) as {
      grp: number
    }
  ).grp
}

function runGroup(core: SessionsCore, runId: string): number {
  return (core.sql('SELECT grp FROM runs WHERE id = ?').get(runId) as { grp: number }).grp
}

export interface StepAnswer {
  contents: LiveContent[]
  tool_calls: Extract<AssistantPart, { type: 'tool_call' }>[]
  replay: AssistantPart[]
}

/**
 * Commits a step that asked for tools: its reasoning and answer in the run's group, then a
 * `tool_call` entry per call, each opening a display group of its own. Returns each call's
 * group. `before` adds what goes ahead of the entries in the same commit, `after` what follows them.
 */
export function commitStep(
  core: SessionsCore,
  sessionId: string,
  runId: string,
  step: StepAnswer,
  checked: CheckedCall[],
  before: (tx: Tx) => void = () => {},
  after: (tx: Tx) => void = () => {},
): Map<string, number> {
  return core.transact((tx) => {
    const groups = new Map<string, number>()
    const s = core.row(sessionId)
    if (!s || s.run_id !== runId) return groups
    // The step's last events (deltas) are committed ahead of its entries, in one commit.
    before(tx)
    const grp = runGroup(core, runId)
    const ordered = [...step.contents].sort((a, b) => a.index - b.index)
    const items: { grp: number; kind: string; content: Record<string, unknown> }[] = []
    for (const c of ordered.filter((c) => c.kind === 'reasoning'))
      items.push({ grp, kind: 'reasoning', content: { text: c.text, status: 'complete', run_id: runId } })
    const text = ordered
      .filter((c) => c.kind === 'text')
      .map((c) => c.text)
      .join('')
    const replay = step.replay.length > 0 ? { replay: step.replay } : {}
    items.push({
      grp,
      kind: 'assistant',
      content: { text, status: 'complete', run_id: runId, tool_calls: step.tool_calls, ...replay },
    })
    let next = nextGroup(core, sessionId)
    for (const call of step.tool_calls) {
      const c = checked.find((x) => x.call_id === call.id)
      groups.set(call.id, next)
      items.push({
        grp: next++,
        kind: 'tool_call',
        content: {
          run_id: runId,
          call_id: call.id,
          name: call.name,
          arguments: call.arguments,
          summary: c?.summary ?? call.name,
          effect: c?.effect ?? null,
        },
      })
    }
    addEntries(core, tx, sessionId, items)
    after(tx)
    return groups
  })
}

/** The result entry of a call and its `tool.ended` event, in one transaction. */
export function resultItem(runId: string, callId: string, name: string, r: CallResult) {
  return {
    entry: {
      kind: 'tool_result',
      content: {
        run_id: runId,
        call_id: callId,
        name,
        outcome: r.outcome,
        output: r.output,
        meta: r.meta ?? {},
        images: (r.images ?? []).map((img, i) => ({
          field: `image_${i}`,
          media_type: img.media_type,
          bytes: Buffer.byteLength(img.data, 'base64'),
        })),
      },
    },
    ended: {
      run_id: runId,
      call_id: callId,
      outcome: r.outcome,
      output: r.output.slice(0, OUTPUT_PREVIEW_CHARS),
      output_truncated: r.output.length > OUTPUT_PREVIEW_CHARS,
      meta: r.meta ?? {},
    },
  }
}

/** Adds a call's result (and its images) inside `tx`; false when the call has one already. */
export function addResult(
  core: SessionsCore,
  tx: Tx,
  sessionId: string,
  runId: string,
  call: { call_id: string; name: string; grp: number },
  r: CallResult,
): boolean {
  const { entry, ended } = resultItem(runId, call.call_id, call.name, r)
  const [added] = addEntries(core, tx, sessionId, [{ grp: call.grp, ...entry }])
  if (!added) return false
  const addImage = core.sql(
    'INSERT INTO entry_images (session_id, position, field, media_type, data) VALUES (?, ?, ?, ?, ?)',
  )
  for (const [i, img] of (r.images ?? []).entries())
    addImage.run(sessionId, added.position, `image_${i}`, img.media_type, Buffer.from(img.data, 'base64'))
  tx.append(sessionId, 'tool.ended', ended)
  return true
}

/**
 * The run's calls that have no result yet, in the order the model gave them. A call's result
 * is in the call's own display group, so only the calls are read (never a result's output).
 */
export function openCalls(
  core: SessionsCore,
  sessionId: string,
  runId: string,
): { call_id: string; name: string; grp: number }[] {
  const rows = core
    .sql(
      `SELECT c.grp, c.content FROM entries c WHERE c.session_id = ? AND c.kind = 'tool_call'
         AND c.position > (SELECT COALESCE(MIN(position), 0) FROM entries WHERE session_id = ? AND grp = ?)
         AND NOT EXISTS (SELECT 1 FROM entries r INDEXED BY entries_by_group
           WHERE r.session_id = c.session_id AND r.grp = c.grp AND r.kind = 'tool_result')
         ORDER BY c.position`,
    )
    .all(sessionId, sessionId, runGroupOrZero(core, runId)) as { grp: number; content: string }[]
  const open: { call_id: string; name: string; grp: number }[] = []
  for (const r of rows) {
    const c = JSON.parse(r.content) as { run_id?: string; call_id: string; name: string }
    if (c.run_id === runId) open.push({ call_id: c.call_id, name: c.name, grp: r.grp })
  }
  return open
}

function runGroupOrZero(core: SessionsCore, runId: string): number {
  const r = core.sql('SELECT grp FROM runs WHERE id = ?').get(runId) as { grp: number } | undefined
  return r?.grp ?? 0
}

/** Why an open call got no result of its own, as the model and the history are told. */
export function unfinishedResult(
  reason: 'interrupted' | 'failed' | 'restarted' | 'step_limit' | 'unapproved',
): CallResult {
  const why = {
    unapproved: 'The call was not run: the run ended while it waited for approval, and the request expired.',
    interrupted: 'The call did not finish: the run was interrupted.',
    failed: 'The call did not finish: the run failed.',
    restarted:
      'The call did not finish: the daemon stopped while it ran, so what it did, if anything, is unknown.',
    step_limit: 'The call was not run: the run reached its step limit (tools.max_steps).',
  }[reason]
  return {
    outcome: reason === 'interrupted' ? 'interrupted' : 'error',
    output: why,
    meta: { not_finished: reason },
  }
}

/** Gives every open call of the run a result saying why it has none (inside `tx`). */
export function closeOpenCalls(
  core: SessionsCore,
  tx: Tx,
  sessionId: string,
  runId: string,
  reason: Exclude<Parameters<typeof unfinishedResult>[0], 'unapproved'>,
): void {
  const waiting = core.sql("SELECT 1 FROM approvals WHERE run_id = ? AND call_id = ? AND state = 'pending'")
  for (const call of openCalls(core, sessionId, runId)) {
    // A call that still waited for a person never ran, whatever ended the run.
    const r = waiting.get(runId, call.call_id) ? unfinishedResult('unapproved') : unfinishedResult(reason)
    addResult(core, tx, sessionId, runId, call, r)
  }
}
