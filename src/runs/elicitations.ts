// The questions a session's MCP servers ask the person, daemon side. A question asked during
// one of the server's tool calls in the session's run becomes the session's blocking reason
// (src/sessions/elicitations.ts) until an input answers it; the answer, or `cancel` when the
// run ends first, goes back to the kernel and on to the server. A question nobody can
// answer is refused at once and noted in the log, never blocking: one outside a run or
// outside the server's own call (a compaction, an idle session, a server speaking up on its
// own), and a URL that is not a web page (declined). A question the server withdraws expires
// at once, its call going on.
import type { Kernel } from '../kernel/instance.ts'
import type { McpElicitMessage } from '../kernel/protocol.ts'
import { CANCELLED, type ElicitAnswer } from '../mcp/elicitation.ts'
import type { SessionsCore } from '../sessions/core.ts'
import {
  type Expiry,
  elicitationCompleted,
  expireElicitations,
  requestElicitation,
  urlShown,
} from '../sessions/elicitations.ts'
import type { ActiveRun } from './active-run.ts'
import type { RunsDeps } from './deps.ts'
import { drainEvents } from './step/events.ts'

type Ask = Extract<McpElicitMessage, { type: 'mcp_elicit' }>

/**
 * Characters of a question's JSON (message, form or URL) shown at most: it goes into the
 * session's row, its reads and an event, so a larger one is declined.
 */
const MAX_QUESTION_CHARS = 64 * 1024

export function watchElicitations(d: RunsDeps, runOf: (sessionId: string) => ActiveRun | undefined): void {
  d.kernels.onElicit = (sessionId, kernel, msg) => {
    try {
      if (msg.type === 'mcp_elicit_done')
        elicitationCompleted(d.core, sessionId, msg.server, msg.elicitation_id)
      else if (msg.type === 'mcp_elicit_withdrawn')
        withdrawn(d.core, sessionId, runOf(sessionId), msg.elicit_id)
      else ask(d, kernel, runOf(sessionId), msg)
    } catch (err) {
      d.onError(err)
      if (msg.type === 'mcp_elicit') answer(kernel, msg, CANCELLED)
    }
  }
}

function answer(kernel: Kernel, msg: Ask, result: ElicitAnswer): void {
  kernel.send({ type: 'mcp_elicit_answer', elicit_id: msg.elicit_id, result })
}

function refuse(d: RunsDeps, kernel: Kernel, msg: Ask, result: ElicitAnswer, why: string): void {
  d.onNotice?.(
    { session_id: msg.session_id, server: msg.server, mode: msg.params.mode, action: result.action, why },
    'mcp elicitation refused',
  )
  answer(kernel, msg, result)
}

/**
 * Whether the call runs in the run now: from the step's end (a read starts then, before the
 * round records it) until its result.
 */
function running(run: ActiveRun, callId: string): boolean {
  return (
    run.live.tools.some((t) => t.call_id === callId) ||
    run.tool_calls.some((p) => p.type === 'tool_call' && p.id === callId)
  )
}

/**
 * A call's result is in while its server's question still waited (the server withdrew it,
 * or gave up waiting): the question expires and the session is no longer blocked on it.
 */
export function callEnded(core: SessionsCore, sessionId: string, run: ActiveRun, callId: string): void {
  // An interrupted or ended run expires its questions as it ends (finish.ts).
  if (run.elicitationWaiters.size === 0 || run.interrupted || run.finished) return
  expire(core, sessionId, run, { reason: 'call_ended', callId })
}

/** The server withdrew its question (the kernel answered it `cancel`): the person is no longer asked. */
function withdrawn(
  core: SessionsCore,
  sessionId: string,
  run: ActiveRun | undefined,
  elicitId: number,
): void {
  const requestId = run?.elicitationsAsked.get(elicitId)
  if (!run || requestId === undefined || run.interrupted || run.finished) return
  expire(core, sessionId, run, { reason: 'withdrawn', requestId })
}

function expire(core: SessionsCore, sessionId: string, run: ActiveRun, expiry: Expiry): void {
  const ids = core.transact((tx) => {
    if (core.row(sessionId)?.run_id !== run.started.run_id) return []
    return expireElicitations(core, tx, sessionId, run.started.run_id, expiry)
  })
  for (const id of ids) run.elicitationWaiters.get(id)?.('expired')
}

function ask(d: RunsDeps, kernel: Kernel, run: ActiveRun | undefined, msg: Ask): void {
  const callId = msg.call_id
  if (!run || run.finished || run.interrupted || callId === null || !running(run, callId)) {
    refuse(d, kernel, msg, CANCELLED, 'none of its tool calls runs in a run of the session')
    return
  }
  if (JSON.stringify(msg.params).length > MAX_QUESTION_CHARS) {
    refuse(
      d,
      kernel,
      msg,
      { action: 'decline' },
      `the question is larger than ${MAX_QUESTION_CHARS} characters`,
    )
    return
  }
  if (msg.params.mode === 'url' && !urlShown(msg.params.url)) {
    refuse(d, kernel, msg, { action: 'decline' }, 'the URL is not https (or http on this machine)')
    return
  }
  const runId = run.started.run_id
  const where = { session_id: msg.session_id, run_id: runId, call_id: callId, server: msg.server }
  // The run's queued events (the call's progress) go ahead of the question.
  const id = requestElicitation(d.core, where, msg.params, (tx) => drainEvents(d, msg.session_id, run, tx))
  if (id === null) {
    answer(kernel, msg, CANCELLED)
    return
  }
  run.elicitationsAsked.set(msg.elicit_id, id)
  run.elicitationWaiters.set(id, (result) => {
    run.elicitationWaiters.delete(id)
    run.elicitationsAsked.delete(msg.elicit_id)
    answer(kernel, msg, result === 'expired' ? CANCELLED : result)
  })
}
