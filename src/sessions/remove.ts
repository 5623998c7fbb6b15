// Deletion. A leaf goes in one transaction. A subtree deletion first gates the family (no
// new members), then deletes members deepest first, each in its own transaction, and
// reports every member's outcome; a start after a crash finishes a gated deletion.
import { HearthError } from '../schemas/problems.ts'
import { checkConfigurationMatch, subtreeOf } from './configure.ts'
import type { SessionsCore } from './core.ts'
import { unindexSession } from './search.ts'
import type { SessionRow } from './types.ts'

export interface MemberOutcome {
  id: string
  depth: number
  outcome: 'deleted' | 'interrupted_then_deleted' | 'failed'
  code: string | null
  detail: string | null
}

export interface DeletionOutcome {
  scope: 'leaf' | 'subtree'
  outcome: 'deleted' | 'partial' | 'failed'
  members: MemberOutcome[]
  family_revision: number | null
}

/** Stops a busy member's run before it is deleted; resolves when it is idle. */
export type Interrupter = (sessionId: string) => Promise<void>

/** A session that compaction, a reload or a kernel upgrade holds cannot be deleted yet. */
function maintained(id: string): HearthError {
  return new HearthError(
    'session_busy',
    `Session ${id} is being maintained (compaction, reload or kernel upgrade); delete it once that ends`,
  )
}

function deleteRow(core: SessionsCore, r: SessionRow): void {
  core.transact((tx) => {
    if (r.parent_id !== null && core.row(r.parent_id))
      tx.append(r.parent_id, 'session.child_removed', { child_id: r.id })
    for (const table of ['events', 'visits', 'entries', 'entry_images', 'context_requests', 'session_notes'])
      core.sql(`DELETE FROM ${table} WHERE session_id = ?`).run(r.id)
    // Its inputs stay readable for seven days; those still waiting will never run.
    core
      .sql(
        `DELETE FROM input_images WHERE input_id IN
           (SELECT id FROM inputs WHERE session_id = ? AND delivery IN ('pending', 'running'))`,
      )
      .run(r.id)
    core
      .sql(
        `UPDATE inputs SET delivery = 'cancelled', blocking_reason = 'session_deleted', decided_ms = ?
         WHERE session_id = ? AND delivery IN ('pending', 'running')`,
      )
      .run(tx.now, r.id)
    core
      .sql('UPDATE runs SET ended_at = ?, outcome = ? WHERE session_id = ? AND ended_at IS NULL')
      .run(tx.at, 'interrupted', r.id)
    unindexSession(core, r.rowid)
    core.sql('DELETE FROM sessions WHERE id = ?').run(r.id)
    core.sql('INSERT OR IGNORE INTO deleted_sessions (id, deleted_at) VALUES (?, ?)').run(r.id, tx.at)
    if (r.root_id === r.id) core.sql('DELETE FROM families WHERE root_id = ?').run(r.id)
    else core.sql('UPDATE families SET revision = revision + 1 WHERE root_id = ?').run(r.root_id)
    tx.changed({ session_id: r.id, reason: 'deleted', before: r, after: undefined })
  })
}

export function deleteLeaf(core: SessionsCore, id: string, ifMatch: string | undefined): DeletionOutcome {
  const r = core.require(id)
  checkConfigurationMatch(r, ifMatch)
  if (r.phase !== 'idle') throw new HearthError('session_busy', `Session ${id} is ${r.phase}`)
  if (core.inMaintenance(id)) throw maintained(id)
  const children = core.sql('SELECT COUNT(*) AS n FROM sessions WHERE parent_id = ?').get(id) as {
    n: number
  }
  if (children.n > 0)
    throw new HearthError('session_has_children', `Session ${id} has ${children.n} children`)
  deleteRow(core, r)
  return {
    scope: 'leaf',
    outcome: 'deleted',
    members: [{ id, depth: r.depth, outcome: 'deleted', code: null, detail: null }],
    family_revision: r.root_id === id ? null : r.family_revision + 1,
  }
}

export async function deleteSubtree(
  core: SessionsCore,
  id: string,
  ifMatch: string | undefined,
  familyRevision: number | undefined,
  interrupt: Interrupter,
): Promise<DeletionOutcome> {
  const r = core.require(id)
  checkConfigurationMatch(r, ifMatch)
  if (familyRevision === undefined)
    throw new HearthError('precondition_required', 'Subtree deletion needs family_revision')
  if (familyRevision !== r.family_revision) {
    throw new HearthError('precondition_failed', `The family is at revision ${r.family_revision}`)
  }
  // One subtree deletion per family at a time: a second would race the first member by member.
  core.requireFamilyOpen(r.root_id)
  core.sql('UPDATE families SET deleting = ? WHERE root_id = ?').run(id, r.root_id)
  return finishSubtree(core, r, interrupt)
}

async function finishSubtree(
  core: SessionsCore,
  target: SessionRow,
  interrupt: Interrupter,
): Promise<DeletionOutcome> {
  const members = subtreeOf(core, target.id).sort((a, b) => b.depth - a.depth)
  const outcomes: MemberOutcome[] = []
  for (const m of members) {
    let outcome: MemberOutcome['outcome'] = 'deleted'
    try {
      // Maintenance is not interrupted: it ends on its own, and the member is left as it is.
      if (core.inMaintenance(m.id)) throw maintained(m.id)
      if (m.phase !== 'idle') {
        await interrupt(m.id)
        outcome = 'interrupted_then_deleted'
      }
      const current = core.row(m.id)
      if (current) deleteRow(core, current)
      outcomes.push({ id: m.id, depth: m.depth, outcome, code: null, detail: null })
    } catch (err) {
      const code = err instanceof HearthError ? err.code : 'internal'
      outcomes.push({ id: m.id, depth: m.depth, outcome: 'failed', code, detail: (err as Error).message })
    }
  }
  const family = core.sql('SELECT revision FROM families WHERE root_id = ?').get(target.root_id) as
    | { revision: number }
    | undefined
  if (family) core.sql('UPDATE families SET deleting = NULL WHERE root_id = ?').run(target.root_id)
  const failed = outcomes.filter((o) => o.outcome === 'failed').length
  return {
    scope: 'subtree',
    outcome: failed === 0 ? 'deleted' : failed === outcomes.length ? 'failed' : 'partial',
    members: outcomes,
    family_revision: family?.revision ?? null,
  }
}

/** At start: finish subtree deletions a previous daemon left gated. */
export async function resumeDeletions(core: SessionsCore, interrupt: Interrupter): Promise<void> {
  const gated = core.sql('SELECT root_id, deleting FROM families WHERE deleting IS NOT NULL').all() as {
    root_id: string
    deleting: string
  }[]
  for (const g of gated) {
    const target = core.row(g.deleting)
    if (target) await finishSubtree(core, target, interrupt)
    else core.sql('UPDATE families SET deleting = NULL WHERE root_id = ?').run(g.root_id)
  }
}
