// Configuration changes. Ordinary fields merge and commit together under one revision; a
// workspace move is a standalone change guarded by the family revision, applied to the
// target's whole subtree (busy members follow once idle).

import { HearthError } from '../schemas/problems.ts'
import {
  MAX_SELECTION_BYTES,
  MAX_SELECTION_ENTRIES,
  type SessionChangeRequest,
} from '../schemas/session-configuration.ts'
import { requireIfMatch } from '../util/preconditions.ts'
import type { SessionsCore, Tx } from './core.ts'
import { indexSession } from './search.ts'
import type { SelectionMaps, SessionRow } from './types.ts'
import { configurationEtag, selectionOf } from './views.ts'
import { checkWorkspace } from './workspace.ts'

/** Fields whose change means the loaded composition is stale (needs_reload). */
const COMPOSITION_FIELDS = ['provider_profile', 'model', 'effort', 'selection', 'catalog_revision'] as const

export interface ChangeOutcome {
  row: SessionRow
  followers: string[]
}

function mergeSelection(
  current: SelectionMaps,
  patch: NonNullable<SessionChangeRequest['selection']>,
): SelectionMaps {
  const next: SelectionMaps = { ...current }
  for (const key of ['extensions', 'skills', 'instructions', 'mcp'] as const) {
    const p = patch[key]
    if (!p) continue
    const map = { ...current[key] }
    for (const [name, value] of Object.entries(p)) {
      if (value === null) delete map[name]
      else map[name] = value
    }
    if (Object.keys(map).length > MAX_SELECTION_ENTRIES) {
      throw new HearthError(
        'selection_too_large',
        `selection.${key} would hold more than ${MAX_SELECTION_ENTRIES} entries`,
      )
    }
    next[key] = map
  }
  if (Buffer.byteLength(JSON.stringify(next)) > MAX_SELECTION_BYTES) {
    throw new HearthError(
      'selection_too_large',
      `The selection would take more than ${MAX_SELECTION_BYTES} bytes`,
    )
  }
  return next
}

/** The model a session gets with a new profile and no model of its own: that profile's. */
export type ModelOf = (profile: string) => string

function applyFields(
  core: SessionsCore,
  r: SessionRow,
  req: SessionChangeRequest,
  tx: Tx,
  modelOf: ModelOf,
): SessionRow {
  const profile = req.provider_profile ?? r.provider_profile
  // A new profile re-resolves the model unless the same change names one.
  const model = req.model ?? (profile !== r.provider_profile ? modelOf(profile) : r.model)
  const next = {
    name: req.name ?? r.name,
    provider_profile: profile,
    model,
    effort: req.effort !== undefined ? req.effort : r.effort,
    pinned: req.preferences?.pinned === undefined ? r.pinned : Number(req.preferences.pinned),
    pin_order: req.preferences?.pin_order !== undefined ? req.preferences.pin_order : r.pin_order,
    archived: req.preferences?.archived === undefined ? r.archived : Number(req.preferences.archived),
    selection: JSON.stringify(req.selection ? mergeSelection(selectionOf(r), req.selection) : selectionOf(r)),
    catalog_revision: req.catalog_revision !== undefined ? req.catalog_revision : r.catalog_revision,
    approval_policy: req.approval_policy !== undefined ? req.approval_policy : r.approval_policy,
    allow_git_writes: req.allow_git_writes === undefined ? r.allow_git_writes : Number(req.allow_git_writes),
  }
  const changed = (Object.keys(next) as (keyof typeof next)[]).filter((k) => next[k] !== r[k])
  if (changed.length === 0) return r
  const recompose = changed.some((k) => (COMPOSITION_FIELDS as readonly string[]).includes(k))
  core
    .sql(
      `UPDATE sessions SET name = ?, provider_profile = ?, model = ?, effort = ?, pinned = ?, pin_order = ?,
         archived = ?, selection = ?, catalog_revision = ?, approval_policy = ?, allow_git_writes = ?,
         revision = revision + 1,
         desired_revision = desired_revision + ? WHERE id = ?`,
    )
    .run(
      next.name,
      next.provider_profile,
      next.model,
      next.effort,
      next.pinned,
      next.pin_order,
      next.archived,
      next.selection,
      next.catalog_revision,
      next.approval_policy,
      next.allow_git_writes,
      recompose ? 1 : 0,
      r.id,
    )
  // The event carries wire values: the selection as an object and the preference flags as
  // booleans (the row stores them as 0/1), as the configuration resource shows them.
  const wire = (k: (typeof changed)[number]) =>
    k === 'selection'
      ? JSON.parse(next.selection)
      : k === 'pinned' || k === 'archived' || k === 'allow_git_writes'
        ? next[k] === 1
        : next[k]
  const changes = Object.fromEntries(changed.map((k) => [k, wire(k)]))
  tx.append(r.id, 'session.configured', { revision: r.revision + 1, changes })
  const after = core.row(r.id)!
  if (changed.includes('name')) indexSession(core, after)
  tx.changed({ session_id: r.id, reason: 'changed', before: r, after })
  return after
}

function moveWorkspace(core: SessionsCore, r: SessionRow, req: SessionChangeRequest, tx: Tx): ChangeOutcome {
  const extra = Object.keys(req).filter((k) => k !== 'workspace' && k !== 'family_revision')
  if (extra.length > 0) {
    throw new HearthError('workspace_change_not_standalone', `Send ${extra.join(', ')} in a separate change`)
  }
  if (req.family_revision === undefined) throw new HearthError('family_revision_required')
  if (req.family_revision !== r.family_revision) {
    throw new HearthError('precondition_failed', `The family is at revision ${r.family_revision}`)
  }
  core.requireFamilyOpen(r.root_id)
  if (r.phase !== 'idle') throw new HearthError('session_busy', `Session ${r.id} is ${r.phase}`)
  const workspace = checkWorkspace(req.workspace!)
  core.sql('UPDATE families SET revision = revision + 1 WHERE root_id = ?').run(r.root_id)
  const followers: string[] = []
  for (const member of subtreeOf(core, r.id)) {
    if (member.phase === 'idle') {
      core
        .sql(
          'UPDATE sessions SET workspace = ?, workspace_change = NULL, revision = revision + 1 WHERE id = ?',
        )
        .run(workspace, member.id)
      tx.append(member.id, 'session.workspace_moved', { workspace, family_revision: r.family_revision + 1 })
    } else {
      const pending = { workspace, requested_at: tx.at, state: 'waiting_for_idle' }
      core
        .sql('UPDATE sessions SET workspace_change = ?, revision = revision + 1 WHERE id = ?')
        .run(JSON.stringify(pending), member.id)
      tx.append(member.id, 'session.workspace_change_pending', pending)
      core.pendingMoves.add(member.id)
      followers.push(member.id)
    }
    tx.changed({ session_id: member.id, reason: 'changed', before: member, after: core.row(member.id) })
  }
  return { row: core.row(r.id)!, followers }
}

/** The session and all its descendants, parents before children. */
export function subtreeOf(core: SessionsCore, id: string): SessionRow[] {
  const ids = core
    .sql(
      `WITH RECURSIVE tree(id, depth) AS (
         SELECT id, depth FROM sessions WHERE id = ?
         UNION ALL SELECT s.id, s.depth FROM sessions s JOIN tree t ON s.parent_id = t.id)
       SELECT id FROM tree ORDER BY depth, id`,
    )
    .all(id) as { id: string }[]
  return ids.map((x) => core.row(x.id)!)
}

/**
 * Applies a pending workspace move of a session that is idle now, inside the caller's
 * transaction; returns whether it moved. The move was committed while the session was busy
 * (its family revision already counts it), so the family revision does not change again.
 */
export function followPendingMove(core: SessionsCore, id: string, tx: Tx): boolean {
  const r = core.row(id)
  if (!r || r.workspace_change === null || r.phase !== 'idle') return false
  const { workspace } = JSON.parse(r.workspace_change) as { workspace: string }
  core
    .sql('UPDATE sessions SET workspace = ?, workspace_change = NULL, revision = revision + 1 WHERE id = ?')
    .run(workspace, id)
  tx.append(id, 'session.workspace_moved', { workspace, family_revision: r.family_revision })
  tx.changed({ session_id: id, reason: 'changed', before: r, after: core.row(id) })
  return true
}

export function changeSession(
  core: SessionsCore,
  id: string,
  ifMatch: string | undefined,
  req: SessionChangeRequest,
  modelOf: ModelOf,
) {
  return core.transact((tx): ChangeOutcome => {
    const r = core.require(id)
    checkConfigurationMatch(r, ifMatch)
    if (req.workspace !== undefined) return moveWorkspace(core, r, req, tx)
    if (req.family_revision !== undefined) {
      throw new HearthError('read_only_field', 'family_revision is sent only with a workspace move')
    }
    // A selection made from a catalog page that has changed since is refused before any write.
    if (typeof req.catalog_revision === 'string' && !core.catalogRevisionHolds(r, req.catalog_revision)) {
      throw new HearthError(
        'catalog_changed',
        'The catalog changed since the page this change was made from; read it again',
      )
    }
    return { row: applyFields(core, r, req, tx, modelOf), followers: [] }
  })
}

export function checkConfigurationMatch(r: SessionRow, ifMatch: string | undefined): void {
  requireIfMatch(ifMatch, configurationEtag(r))
}
