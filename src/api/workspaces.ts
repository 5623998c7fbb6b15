// Handler of GET /workspaces. Domain code is in src/workspaces/; this module mints and opens
// the continuations (each bound to its location and include) and shapes the answer.
import type { Continuations } from '../http/continuation.ts'
import { bindGroup } from '../http/route.ts'
import { HearthError } from '../schemas/problems.ts'
import { workspacesOps } from '../schemas/workspaces.ts'
import type { Db } from '../store/db.ts'
import { directoryAt, listDirectory, locationOf, previewOf, recentWorkspaces } from '../workspaces/browse.ts'

export interface WorkspacesApiDeps {
  db: Db
  continuations: Continuations
}

type Key = [number, string]

function isKey(k: unknown): k is Key {
  return Array.isArray(k) && k.length === 2 && Number.isSafeInteger(k[0]) && typeof k[1] === 'string'
}

export function workspacesRoutes(d: WorkspacesApiDeps) {
  return bindGroup(workspacesOps)({
    'workspaces.get': ({ query }) => {
      if (query.include === 'preview' && query.location === undefined)
        throw new HearthError('invalid_parameter', 'include=preview needs a location')
      const limit = query.limit ?? 100
      const dir = query.location === undefined ? null : directoryAt(query.location)
      const binding = { location: dir ?? '', include: query.include ?? '' }
      let after: Key | null = null
      if (query.next) {
        const key = d.continuations.open<unknown>('workspaces', binding, query.next)
        if (!isKey(key)) throw new HearthError('invalid_continuation', 'Not a workspaces position')
        after = key
      }
      const mint = (key: Key | null) =>
        key === null ? null : d.continuations.mint('workspaces', binding, key)
      if (dir === null) {
        const page = recentWorkspaces(d.db, limit, after)
        return {
          status: 200,
          body: {
            location: null,
            items: page.items,
            truncated: false,
            preview: null,
            next: mint(page.after),
          },
        }
      }
      const page = listDirectory(dir, limit, after)
      // The preview describes the directory, not the page: it comes with the first page only.
      const preview = query.include === 'preview' && after === null ? previewOf(dir, page.all) : null
      return {
        status: 200,
        body: {
          location: locationOf(dir),
          items: page.items,
          truncated: page.truncated,
          preview,
          next: mint(page.after),
        },
      }
    },
  })
}
