// Creating sessions: new roots, forks (a copy of a source's history up to an entry) and
// children (a member of the parent's family, one level deeper). The session, its family
// membership and its first log event commit in one transaction.
import { HearthError } from '../schemas/problems.ts'
import type { SessionCreationRequest } from '../schemas/session-configuration.ts'
import type { SessionsCore, Tx } from './core.ts'
import { indexSession } from './search.ts'
import { EMPTY_SELECTION, type SessionRow } from './types.ts'
import { checkWorkspace } from './workspace.ts'

/** A creation request with its ids in canonical form. */
export type CreationRequest = SessionCreationRequest

export interface ProfileDefaults {
  /** The provider profile and model a session gets when its request names none. */
  resolve: (
    profile: string | undefined,
    model: string | undefined,
  ) => { provider_profile: string; model: string }
}

interface Placement {
  parent_id: string | null
  root_id: string
  depth: number
  workspace: string
  inherit?: SessionRow
  /** Fork only: the last source position copied, and where the source history ends. */
  through?: number
  end?: number
}

function historyEnd(core: SessionsCore, id: string): number {
  const r = core.sql('SELECT MAX(position) AS end FROM entries WHERE session_id = ?').get(id) as {
    end: number | null
  }
  return r.end ?? 0
}

function place(core: SessionsCore, id: string, req: CreationRequest, tx: Tx): Placement {
  if (req.kind === 'new')
    return { parent_id: null, root_id: id, depth: 0, workspace: checkWorkspace(req.workspace) }
  if (req.kind === 'forked') {
    const source = core.row(req.source_id)
    if (!source) throw new HearthError('source_unavailable', `No session ${req.source_id} to fork`)
    // The entries table is the history; positions start at 1, so 0 copies nothing.
    const end = historyEnd(core, source.id)
    const through = req.through_entry ?? end
    if (through > end) throw new HearthError('entry_out_of_range', `Source history ends at entry ${end}`)
    const workspace = req.workspace === undefined ? source.workspace : checkWorkspace(req.workspace)
    return { parent_id: null, root_id: id, depth: 0, workspace, inherit: source, through, end }
  }
  const parent = core.row(req.parent_id)
  if (!parent) throw new HearthError('parent_unavailable', `No session ${req.parent_id} to be the parent`)
  core.requireFamilyOpen(parent.root_id)
  requireFamilyRoom(core, parent.root_id)
  core.sql('UPDATE families SET revision = revision + 1 WHERE root_id = ?').run(parent.root_id)
  tx.append(parent.id, 'session.child_added', { child_id: id })
  const workspace = req.workspace === undefined ? parent.workspace : checkWorkspace(req.workspace)
  return {
    parent_id: parent.id,
    root_id: parent.root_id,
    depth: parent.depth + 1,
    workspace,
    inherit: parent,
  }
}

/**
 * Sessions one family may hold, root included. Children are how a run delegates work; a
 * loop that keeps delegating would otherwise grow one family without end. Forks start
 * families of their own and are not counted.
 */
export const FAMILY_MEMBER_LIMIT = 1024

/** 429 family_full when the family holds FAMILY_MEMBER_LIMIT sessions already. */
function requireFamilyRoom(core: SessionsCore, rootId: string): void {
  const members = core.sql('SELECT COUNT(*) FROM sessions WHERE root_id = ?').pluck().get(rootId) as number
  if (members >= FAMILY_MEMBER_LIMIT) {
    throw new HearthError(
      'family_full',
      `Family ${rootId} holds ${members} sessions, the most one family may hold; delete some to add children`,
    )
  }
}

/** Copies the source entries up to `through`; returns how many were copied. */
function copyHistory(core: SessionsCore, from: string, to: string, through: number): number {
  core
    .sql(
      `INSERT INTO entry_images (session_id, position, field, media_type, data)
       SELECT ?, position, field, media_type, data FROM entry_images WHERE session_id = ? AND position <= ?`,
    )
    .run(to, from, through)
  return core
    .sql(
      `INSERT INTO entries (session_id, position, grp, kind, created_at, content)
       SELECT ?, position, grp, kind, created_at, content FROM entries WHERE session_id = ? AND position <= ?`,
    )
    .run(to, from, through).changes
}

export function createSession(
  core: SessionsCore,
  defaults: ProfileDefaults,
  id: string,
  req: CreationRequest,
): SessionRow {
  return core.transact((tx) => {
    if (core.row(id)) throw new HearthError('precondition_failed', `Session ${id} already exists`)
    if (core.isDeleted(id))
      throw new HearthError('session_deleted', `Session ${id} was deleted; ids are never reused`)
    const p = place(core, id, req, tx)
    if (p.root_id === id) core.sql('INSERT INTO families (root_id, revision) VALUES (?, 1)').run(id)
    const inherited = req.kind === 'new' ? undefined : p.inherit
    // Another profile than the inherited one brings its own model unless one is named.
    const otherProfile =
      req.provider_profile !== undefined && req.provider_profile !== inherited?.provider_profile
    const resolved = defaults.resolve(
      req.provider_profile ?? inherited?.provider_profile,
      req.model ?? (otherProfile ? undefined : inherited?.model),
    )
    const effort = req.effort !== undefined ? req.effort : (inherited?.effort ?? null)
    const submitted = {
      kind: req.kind,
      workspace: req.workspace ?? null,
      name: req.name ?? null,
      provider_profile: req.provider_profile ?? null,
      model: req.model ?? null,
      effort: req.effort ?? null,
      source_id: req.kind === 'forked' ? req.source_id : null,
      // What the client sent, not what it resolved to: this proves the original intent.
      through_entry: req.kind === 'forked' ? (req.through_entry ?? null) : null,
      parent_id: req.kind === 'child' ? req.parent_id : null,
    }
    const familyRevision = (
      core.sql('SELECT revision FROM families WHERE root_id = ?').get(p.root_id) as {
        revision: number
      }
    ).revision
    const creation = {
      submitted,
      resolved: { workspace: p.workspace, ...resolved, effort, revision: 1, family_revision: familyRevision },
    }
    const wholeFork = req.kind === 'forked' && p.through === p.end
    core
      .sql(
        `INSERT INTO sessions (id, parent_id, root_id, depth, name, automatic_name, workspace, provider_profile, model,
           effort, selection, revision, desired_revision, creation, created_at, activity_ms, preview_text,
           preview_truncated, transcript_count)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, 1, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        p.parent_id,
        p.root_id,
        p.depth,
        req.name ?? '',
        // A fork that copies the first exchange keeps the name it gave.
        req.kind === 'forked' && p.through! > 0 ? p.inherit!.automatic_name : '',
        p.workspace,
        resolved.provider_profile,
        resolved.model,
        effort,
        JSON.stringify(EMPTY_SELECTION),
        JSON.stringify(creation),
        tx.at,
        tx.now,
        // A fork of the whole history shows the source preview; a partial copy has none yet.
        wholeFork ? p.inherit!.preview_text : '',
        wholeFork ? p.inherit!.preview_truncated : 0,
        0,
      )
    if (req.kind === 'forked') {
      const copied = copyHistory(core, p.inherit!.id, id, p.through!)
      core.sql('UPDATE sessions SET transcript_count = ? WHERE id = ?').run(copied, id)
    }
    tx.append(id, 'session.created', { creation })
    const row = core.row(id)!
    indexSession(core, row)
    tx.changed({ session_id: id, reason: 'created', before: undefined, after: row })
    return row
  })
}
