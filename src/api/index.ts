// All route bindings of the daemon, and the capabilities they implement. A capability is
// listed only when its operations are registered here.
import type { Continuations } from '../http/continuation.ts'
import { checkBindings, type RouteBinding } from '../http/route.ts'
import { ALL_OPS } from '../schemas/index.ts'
import type { Notice } from '../schemas/server.ts'
import type { Db } from '../store/db.ts'
import { serverRoutes } from './server.ts'
import { storageRoutes } from './storage.ts'

export const CAPABILITIES: Readonly<Record<string, number>> = {
  zstd_requests: 1,
  storage_report: 1,
}

export interface ApiDeps {
  home: string
  db: Db
  dbPath: string
  instanceId: string
  build: string
  continuations: Continuations
  now: () => number
  notices: () => Notice[]
  draining: () => boolean
  requestShutdown: () => void
  openapi: () => unknown
}

export function allRoutes(d: ApiDeps): RouteBinding[] {
  const routes = [...serverRoutes({ ...d, capabilities: () => ({ ...CAPABILITIES }) }), ...storageRoutes(d)]
  checkBindings(routes, ALL_OPS)
  return routes
}
