// All route bindings of the daemon, and the capabilities they implement. A capability is
// listed only when its operations are registered here.
import type { Continuations } from '../http/continuation.ts'
import { checkBindings, type RouteBinding } from '../http/route.ts'
import { pruneInputs } from '../inputs/admit.ts'
import type { KernelPool } from '../kernel/pool.ts'
import { Runs } from '../runs/engine.ts'
import { recoverRuns } from '../runs/recover.ts'
import { ALL_OPS } from '../schemas/index.ts'
import type { Notice } from '../schemas/server.ts'
import { Sessions } from '../sessions/service.ts'
import type { Profiles } from '../settings/profiles.ts'
import type { Db } from '../store/db.ts'
import { snapshotMinter } from './history.ts'
import { inputsRoutes } from './inputs.ts'
import { serverRoutes } from './server.ts'
import { sessionsRoutes } from './sessions.ts'
import { storageRoutes } from './storage.ts'

export const CAPABILITIES: Readonly<Record<string, number>> = {
  zstd_requests: 1,
  storage_report: 1,
  session_replay: 1,
  collection_invalidation: 1,
  durable_inputs: 1,
}

/** How often decisions older than seven days are pruned. */
const PRUNE_EVERY_MS = 60 * 60 * 1000

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
  profiles: Profiles
  kernels: KernelPool
  /** Reports a failure of background work (runs, recovery) to the log. */
  onError: (err: unknown) => void
}

export interface Api {
  routes: RouteBinding[]
  /** Work that runs once the daemon listens: finishing what a previous run left half done. */
  start: () => Promise<void>
  /** Drain: running turns end as interrupted, kernels stop. */
  stop: () => void
}

export function createApi(d: ApiDeps): Api {
  const sessions = new Sessions(d.db, {
    now: d.now,
    defaults: {
      resolve: (profile, model) => {
        const name = profile ?? d.profiles.defaultProfile() ?? ''
        const p = name === '' ? undefined : d.profiles.resolve(name)
        return { provider_profile: name, model: model ?? p?.transport.model ?? '' }
      },
    },
    interrupt: async (sessionId) => {
      await runs.interrupt(sessionId)
    },
  })
  const core = sessions.core
  const runs = new Runs({ core, kernels: d.kernels, profiles: d.profiles, onError: d.onError })
  core.live.snapshotOf = snapshotMinter(d.continuations)
  const routes = [
    ...serverRoutes({ ...d, capabilities: () => ({ ...CAPABILITIES }) }),
    ...storageRoutes(d),
    ...sessionsRoutes({ sessions, continuations: d.continuations }),
    ...inputsRoutes({ core, runs, continuations: d.continuations }),
  ]
  checkBindings(routes, ALL_OPS)
  let pruner: NodeJS.Timeout | undefined
  return {
    routes,
    start: async () => {
      await sessions.resume()
      pruneInputs(core)
      for (const sessionId of recoverRuns(core)) runs.kick(sessionId)
      d.kernels.warm()
      pruner = setInterval(() => pruneInputs(core), PRUNE_EVERY_MS)
      pruner.unref()
    },
    stop: () => {
      clearInterval(pruner)
      runs.stop()
      d.kernels.close()
    },
  }
}

/** The route list alone (OpenAPI checks, tests). */
export function allRoutes(d: ApiDeps): RouteBinding[] {
  return createApi(d).routes
}
