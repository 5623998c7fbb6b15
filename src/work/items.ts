// Work items: one table, scoped by workspace. Every edit is one transaction committed with
// an fsync before it is answered, and bumps the item's revision (its ETag). Links are
// checked in the same transaction: a parent of the same workspace and no cycle, a session
// that exists, a run of that session. A deletion's note for a session is queued after the
// deletion committed (notes.ts): a note that cannot be queued never undoes the deletion.
import { v7 as uuidv7 } from 'uuid'
import { HearthError } from '../schemas/problems.ts'
import {
  WORK_ITEMS_PER_WORKSPACE,
  type WorkCreate,
  type WorkItem,
  type WorkNotification,
  type WorkPatch,
} from '../schemas/work.ts'
import { fullySynced } from '../store/db.ts'
import { etag, requireIfMatch } from '../util/preconditions.ts'
import { type NoteQueue, queueNote } from './notes.ts'

interface ItemRow {
  seq: number
  id: string
  workspace: string
  title: string
  notes: string
  parent_id: string | null
  session_id: string | null
  run_id: string | null
  status: WorkItem['status']
  revision: number
  created_at: string
  updated_at: string
}

/** The database, the clock and the sessions check that notes need too. */
export type WorkDeps = NoteQueue

/** The notification of an edit that names no session. */
export const NOT_REQUESTED: WorkNotification = { state: 'not_requested', code: null, detail: null }

export function workItemUrl(item: { id: string; workspace: string }): string {
  return `/extensions/work/items/${item.id}?workspace=${encodeURIComponent(item.workspace)}`
}

export function itemEtag(item: { revision: string | number }): string {
  return etag(item.revision)
}

function toItem(r: ItemRow): WorkItem {
  const { seq: _seq, revision, ...rest } = r
  return { ...rest, revision: String(revision) }
}

export class WorkItems {
  readonly d: WorkDeps
  constructor(deps: WorkDeps) {
    this.d = deps
  }

  /** A workspace's items after keyset `after` (a seq), oldest first. */
  list(workspace: string, limit: number, after: number): { items: WorkItem[]; after: number | null } {
    const rows = this.d.db
      .prepare('SELECT * FROM work_items WHERE workspace = ? AND seq > ? ORDER BY seq LIMIT ?')
      .all(workspace, after, limit + 1) as ItemRow[]
    const more = rows.length > limit
    const page = more ? rows.slice(0, limit) : rows
    return { items: page.map(toItem), after: more ? (page.at(-1) as ItemRow).seq : null }
  }

  get(workspace: string, id: string): WorkItem {
    return toItem(this.#row(workspace, id))
  }

  create(workspace: string, body: WorkCreate): WorkItem {
    return this.#durably(() => {
      const { n } = this.d.db
        .prepare('SELECT COUNT(*) AS n FROM work_items WHERE workspace = ?')
        .get(workspace) as { n: number }
      if (n >= WORK_ITEMS_PER_WORKSPACE)
        throw new HearthError('work_items_full', `${workspace} holds ${n} work items`)
      const links = this.#links(workspace, null, {
        parent_id: body.parent_id ?? null,
        session_id: body.session_id ?? null,
        run_id: body.run_id ?? null,
      })
      const at = new Date(this.d.now()).toISOString()
      const id = uuidv7()
      this.d.db
        .prepare(
          `INSERT INTO work_items (id, workspace, title, notes, parent_id, session_id, run_id, status,
             revision, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)`,
        )
        .run(
          id,
          workspace,
          body.title,
          body.notes ?? '',
          links.parent_id,
          links.session_id,
          links.run_id,
          body.status ?? 'open',
          at,
          at,
        )
      return toItem(this.#row(workspace, id))
    })
  }

  patch(workspace: string, id: string, ifMatch: string | undefined, patch: WorkPatch): WorkItem {
    return this.#durably(() => {
      const row = this.#row(workspace, id)
      requireIfMatch(ifMatch, itemEtag(row))
      const pick = <K extends 'parent_id' | 'session_id' | 'run_id'>(k: K) =>
        patch[k] === undefined ? row[k] : (patch[k] ?? null)
      // Clearing the session clears the run it named, unless the patch names one (refused below).
      const session_id = pick('session_id')
      const run_id = patch.run_id === undefined && session_id === null ? null : pick('run_id')
      const links = this.#links(workspace, id, { parent_id: pick('parent_id'), session_id, run_id })
      this.d.db
        .prepare(
          `UPDATE work_items SET title = ?, notes = ?, status = ?, parent_id = ?, session_id = ?,
             run_id = ?, revision = revision + 1, updated_at = ? WHERE id = ?`,
        )
        .run(
          patch.title ?? row.title,
          patch.notes ?? row.notes,
          patch.status ?? row.status,
          links.parent_id,
          links.session_id,
          links.run_id,
          new Date(this.d.now()).toISOString(),
          id,
        )
      return toItem(this.#row(workspace, id))
    })
  }

  /** Deletes a childless item; then queues the note, whose outcome the deletion never waits on. */
  delete(
    workspace: string,
    id: string,
    ifMatch: string | undefined,
    notify: string | undefined,
  ): { id: string; deleted_at: string; notification: WorkNotification } {
    const at = new Date(this.d.now()).toISOString()
    const title = this.#durably(() => {
      const row = this.#row(workspace, id)
      requireIfMatch(ifMatch, itemEtag(row))
      const child = this.d.db.prepare('SELECT id FROM work_items WHERE parent_id = ? LIMIT 1').get(id) as
        | { id: string }
        | undefined
      if (child)
        throw new HearthError(
          'work_item_has_children',
          `Work item ${child.id} is below it; delete or move it first`,
        )
      this.d.db.prepare('DELETE FROM work_items WHERE id = ?').run(id)
      return row.title
    })
    const notification =
      notify === undefined
        ? NOT_REQUESTED
        : queueNote(this.d, notify, `Work item "${title}" (${id}) in ${workspace} was deleted.`)
    return { id, deleted_at: at, notification }
  }

  #row(workspace: string, id: string): ItemRow {
    const row = this.d.db
      .prepare('SELECT * FROM work_items WHERE id = ? AND workspace = ?')
      .get(id, workspace) as ItemRow | undefined
    if (!row) throw new HearthError('work_item_not_found', `No work item ${id} in ${workspace}`)
    return row
  }

  /** Checks an item's links; `self` is the item being changed (null on create). */
  #links<L extends { parent_id: string | null; session_id: string | null; run_id: string | null }>(
    workspace: string,
    self: string | null,
    links: L,
  ): L {
    if (links.parent_id !== null) this.#checkParent(workspace, self, links.parent_id)
    if (links.run_id !== null && links.session_id === null)
      throw new HearthError('work_run_without_session', 'run_id names a run of session_id; send both')
    if (links.session_id !== null) this.d.requireSession(links.session_id)
    if (links.run_id !== null) {
      const run = this.d.db.prepare('SELECT session_id FROM runs WHERE id = ?').get(links.run_id) as
        | { session_id: string }
        | undefined
      if (run?.session_id !== links.session_id)
        throw new HearthError(
          'work_run_without_session',
          `Run ${links.run_id} is not a run of ${links.session_id}`,
        )
    }
    return links
  }

  /** The parent exists in this workspace and is neither `self` nor below it. */
  #checkParent(workspace: string, self: string | null, parent: string): void {
    const parentRow = this.d.db
      .prepare('SELECT id FROM work_items WHERE id = ? AND workspace = ?')
      .get(parent, workspace)
    if (!parentRow) throw new HearthError('work_parent_not_found', `No work item ${parent} in ${workspace}`)
    if (self === null) return
    // Walk up from the new parent: meeting `self` means a cycle. Depth is bounded by the table.
    const up = this.d.db.prepare('SELECT parent_id FROM work_items WHERE id = ?')
    for (
      let at: string | null = parent, steps = 0;
      at !== null && steps <= WORK_ITEMS_PER_WORKSPACE;
      steps++
    ) {
      if (at === self) throw new HearthError('work_parent_cycle', `${parent} is ${self} or below it`)
      at = ((up.get(at) as { parent_id: string | null } | undefined)?.parent_id ?? null) as string | null
    }
  }

  /** One transaction whose commit is fsynced: an answered edit survives power loss. */
  #durably<T>(fn: () => T): T {
    return fullySynced(this.d.db, () => this.d.db.transaction(fn)())
  }
}
