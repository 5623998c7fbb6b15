// Handlers of extension `work` (GET/POST /extensions/work/items, GET/PATCH/DELETE
// /extensions/work/items/{item_id}). Domain code is in src/work/; this module names the
// workspace, mints the listing's continuations and shapes the answers.
import type { Continuations } from '../http/continuation.ts'
import { bindGroup } from '../http/route.ts'
import { HearthError } from '../schemas/problems.ts'
import { type WorkItem, type WorkNotification, workOps } from '../schemas/work.ts'
import { absolutePath, checkWorkspace } from '../sessions/workspace.ts'
import { lower } from '../util/uuid.ts'
import { itemEtag, NOT_REQUESTED, type WorkItems, workItemUrl } from '../work/items.ts'

export interface WorkApiDeps {
  items: WorkItems
  continuations: Continuations
}

/** A workspace named in a query: absolute, normalised (reads need not find the directory). */
const workspaceOf = (path: string) => absolutePath(path)

/** A lower-cased id, or null/undefined as given. */
function idOrNull<T extends string | null | undefined>(id: T): T {
  return (typeof id === 'string' ? lower(id) : id) as T
}

function change(item: WorkItem, notification: WorkNotification) {
  const etag = itemEtag(item)
  return { resource: { url: workItemUrl(item), etag, value: item }, notification }
}

export function workRoutes(d: WorkApiDeps) {
  return bindGroup(workOps)({
    'work.list': ({ query }) => {
      const workspace = workspaceOf(query.workspace)
      const binding = { workspace }
      const after = query.next ? d.continuations.open<number>('work.items', binding, query.next) : 0
      if (!Number.isSafeInteger(after))
        throw new HearthError('invalid_continuation', 'Not a work listing position')
      const page = d.items.list(workspace, query.limit ?? 100, after)
      const next = page.after === null ? null : d.continuations.mint('work.items', binding, page.after)
      return { status: 200, body: { items: page.items, next } }
    },
    'work.create': ({ query, body }) => {
      const workspace = checkWorkspace(query.workspace)
      const item = d.items.create(workspace, {
        ...body,
        parent_id: idOrNull(body.parent_id),
        session_id: idOrNull(body.session_id),
        run_id: idOrNull(body.run_id),
      })
      const answer = change(item, NOT_REQUESTED)
      return {
        status: 201,
        body: answer,
        headers: { location: answer.resource.url, etag: answer.resource.etag },
      }
    },
    'work.get': ({ params, query }) => {
      const item = d.items.get(workspaceOf(query.workspace), lower(params.item_id))
      return { status: 200, body: item, headers: { etag: itemEtag(item) } }
    },
    'work.patch': ({ params, query, ifMatch, body }) => {
      const item = d.items.patch(workspaceOf(query.workspace), lower(params.item_id), ifMatch, {
        ...body,
        parent_id: idOrNull(body.parent_id),
        session_id: idOrNull(body.session_id),
        run_id: idOrNull(body.run_id),
      })
      const answer = change(item, NOT_REQUESTED)
      return { status: 200, body: answer, headers: { etag: answer.resource.etag } }
    },
    'work.delete': ({ params, query, ifMatch }) => {
      const workspace = workspaceOf(query.workspace)
      const notify = query.notify_session_id === undefined ? undefined : lower(query.notify_session_id)
      const gone = d.items.delete(workspace, lower(params.item_id), ifMatch, notify)
      return {
        status: 200,
        body: {
          resource: {
            url: workItemUrl({ id: gone.id, workspace }),
            id: gone.id,
            deleted_at: gone.deleted_at,
          },
          notification: gone.notification,
        },
      }
    },
  })
}
