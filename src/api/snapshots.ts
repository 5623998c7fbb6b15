// Handlers of group `snapshots`: what runs changed, one file's diff, the session's changing
// runs, and restores. Domain code is in src/runs/snapshots/; this module mints the listings'
// continuations and shapes the answers.
import type { Continuations } from '../http/continuation.ts'
import { bindGroup } from '../http/route.ts'
import type { Snapshots } from '../runs/snapshots/service.ts'
import { HearthError } from '../schemas/problems.ts'
import { snapshotsOps } from '../schemas/snapshots.ts'
import { lower } from '../util/uuid.ts'

export interface SnapshotsApiDeps {
  snapshots: Snapshots
  continuations: Continuations
}

function position(d: SnapshotsApiDeps, kind: string, binding: Record<string, string>, next?: string) {
  if (next === undefined) return undefined
  const at = d.continuations.open<number>(kind, binding, next)
  if (!Number.isSafeInteger(at) || at < 0)
    throw new HearthError('invalid_continuation', 'Not a listing position')
  return at
}

export function snapshotsRoutes(d: SnapshotsApiDeps) {
  return bindGroup(snapshotsOps)({
    'snapshots.run_changes': async ({ params, query }) => {
      const binding = { session_id: lower(params.session_id), run_id: lower(params.run_id) }
      const offset = position(d, 'snapshots.run_changes', binding, query.next) ?? 0
      const page = await d.snapshots.runChanges(
        binding.session_id,
        binding.run_id,
        offset,
        query.limit ?? 200,
      )
      const { nextOffset, ...body } = page
      const next =
        nextOffset === null ? null : d.continuations.mint('snapshots.run_changes', binding, nextOffset)
      return { status: 200, body: { ...body, next } }
    },
    'snapshots.run_diff': async ({ params, query }) => {
      const diff = await d.snapshots.runDiff(
        lower(params.session_id),
        lower(params.run_id),
        query.root,
        query.path,
      )
      return { status: 200, body: diff }
    },
    'snapshots.session_changes': ({ params, query }) => {
      const binding = { session_id: lower(params.session_id) }
      const before = position(d, 'snapshots.session_changes', binding, query.next) ?? Number.MAX_SAFE_INTEGER
      const page = d.snapshots.sessionChanges(binding.session_id, before, query.limit ?? 200)
      const { nextSeq, ...body } = page
      const next =
        nextSeq === null ? null : d.continuations.mint('snapshots.session_changes', binding, nextSeq)
      return { status: 200, body: { ...body, next } }
    },
    'snapshots.restore_put': async (input) => {
      const sessionId = lower(input.params.session_id)
      // input.body validates when read: after the repeat lookup, like input admission.
      const { status, restore } = await d.snapshots.restores.put(
        sessionId,
        input.params.restore_id,
        input.rawBody,
        () => input.body,
      )
      const headers: Record<string, string> = {}
      if (status === 201) headers.location = `/sessions/${sessionId}/restores/${restore.id}`
      return { status, body: restore, headers }
    },
    'snapshots.restore_get': ({ params }) => ({
      status: 200,
      body: d.snapshots.restores.get(lower(params.session_id), params.restore_id),
    }),
  })
}
