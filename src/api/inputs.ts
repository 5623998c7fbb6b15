// Handlers of group `inputs`: admission, reads and cancel. inputsRoutes also returns the
// bindings that take the same dependencies in groups `history` (./history.ts) and
// `sessions` (the interrupt and the active output, ./sessions.ts).

import type { Continuations } from '../http/continuation.ts'
import { bindGroup } from '../http/route.ts'
import { type Admission, admitInput, readInput } from '../inputs/admit.ts'
import { GroupCommit } from '../inputs/group-commit.ts'
import { cancelInput } from '../runs/control.ts'
import type { Runs } from '../runs/engine.ts'
import { inputsOps } from '../schemas/inputs.ts'
import { HearthError } from '../schemas/problems.ts'
import type { SessionsCore } from '../sessions/core.ts'
import { lower } from '../util/uuid.ts'
import { historyRoutes } from './history.ts'
import { sessionRunRoutes } from './sessions.ts'

export interface InputsDeps {
  core: SessionsCore
  runs: Runs
  continuations: Continuations
}

/** Seconds a client waits before offering a rejected input again under a new id. */
const QUEUE_RETRY_AFTER_S = '2'

export function inputsRoutes(d: InputsDeps) {
  return [...inputBindings(d), ...historyRoutes(d.core, d.continuations), ...sessionRunRoutes(d)]
}

function inputBindings(d: InputsDeps) {
  const commits = new GroupCommit(d.core)
  return bindGroup(inputsOps)({
    'inputs.put': async (input) => {
      const sessionId = lower(input.params.session_id)
      const inputId = lower(input.params.input_id)
      // input.body validates when read: only after the repeat lookup, as the protocol asks.
      // A message's run starts right after its commit, and its first step is prepared while
      // the admission's sync runs; what it commits is held from clients until that sync has
      // ended (group-commit.ts).
      const start = (a: Admission) => a.status === 202 && d.runs.kick(sessionId)
      const a = await admitInput(d.core, commits, sessionId, inputId, input.rawBody, () => input.body, start)
      // A repeat of a decision made earlier starts what waits, if anything (once: a run in
      // progress is left alone).
      if (a.status === 202 && !a.input.approval && !a.input.elicitation) d.runs.kick(sessionId)
      await a.durable
      if (a.status === 429)
        throw new HearthError('queue_full', a.input.problem?.detail, { 'retry-after': QUEUE_RETRY_AFTER_S })
      // A decision reaches the run waiting for it once it is on disk (once: a repeat finds nobody waiting).
      if (a.input.approval)
        d.runs.approvalDecided(sessionId, a.input.approval.request_id, a.input.approval.decision)
      const e = a.input.elicitation
      if (e) d.runs.elicitationAnswered(sessionId, e.request_id, { action: e.action, content: e.content })
      return { status: 202, body: a.input }
    },
    'inputs.get': ({ params }) => ({
      status: 200,
      body: readInput(d.core, lower(params.session_id), lower(params.input_id)),
    }),
    'inputs.cancel': async ({ params }) => ({
      status: 200,
      body: await cancelInput(d.core, d.runs, lower(params.session_id), lower(params.input_id)),
    }),
  })
}
