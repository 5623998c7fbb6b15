// All route bindings of the daemon, and the capabilities they implement. A capability is
// listed only when its operations are registered here.
import type { Continuations } from '../http/continuation.ts'
import { checkBindings, type RouteBinding } from '../http/route.ts'
import { ALL_OPS } from '../schemas/index.ts'
import type { Notice } from '../schemas/server.ts'
import { Sessions } from '../sessions/service.ts'
import type { Db } from '../store/db.ts'
import { serverRoutes } from './server.ts'
import { sessionsRoutes } from './sessions.ts'
import { storageRoutes } from './storage.ts'

export const CAPABILITIES: Readonly<Record<string, number>> = {
  zstd_requests: 1,
  storage_report: 1,
  session_replay: 1,
  collection_invalidation: 1,
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

export interface Api {
  routes: RouteBinding[]
  /** Work that runs once the daemon listens: finishing what a previous run left half done. */
  start: () => Promise<void>
}

export function createApi(d: ApiDeps): Api {
  const sessions = new Sessions(d.db, {
    now: d.now,
    // Provider settings arrive with the settings group; until then a session keeps what it asked for.
    defaults: { resolve: (profile, model) => ({ provider_profile: profile ?? '', model: model ?? '' }) },
    // Runs arrive with inputs; until then no session is ever busy.
    interrupt: async () => {},
  })
  const routes = [
    ...serverRoutes({ ...d, capabilities: () => ({ ...CAPABILITIES }) }),
    ...storageRoutes(d),
    ...sessionsRoutes({ sessions, continuations: d.continuations }),
  ]
  checkBindings(routes, ALL_OPS)
  return { routes, start: () => sessions.resume() }
}

/** The route list alone (OpenAPI checks, tests). */
export function allRoutes(d: ApiDeps): RouteBinding[] {
  return createApi(d).routes
}
