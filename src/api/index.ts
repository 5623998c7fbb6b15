// All route bindings of the daemon, and the capabilities they implement. A capability is
// listed only when its operations are registered here. The domain services are made by the
// daemon (src/daemon/services.ts); the routes only translate requests to them.

import type { AuthService } from '../auth/service.ts'
import type { CatalogSources } from '../catalog/candidates.ts'
import type { ContextDeps } from '../context/summary.ts'
import type { DaemonLog } from '../deferred-log.ts'
import type { Hosts } from '../hosts/service.ts'
import type { Continuations } from '../http/continuation.ts'
import { checkBindings, type RouteBinding } from '../http/route.ts'
import type { KernelPool } from '../kernel/pool.ts'
import type { SessionMcpServerLists } from '../mcp/session-servers.ts'
import type { ModelsService } from '../models/service.ts'
import type { QuotaStore } from '../quota/store.ts'
import type { Runs } from '../runs/engine.ts'
import { nextEnvironment } from '../runs/launch.ts'
import type { Snapshots } from '../runs/snapshots/service.ts'
import { ALL_OPS } from '../schemas/index.ts'
import type { Notice } from '../schemas/server.ts'
import type { Sessions } from '../sessions/service.ts'
import { enabledCapabilities, enabledExtensionsOf, toolsSettingsOf } from '../settings/derived.ts'
import type { Profiles } from '../settings/profiles.ts'
import type { Settings } from '../settings/service.ts'
import type { Db } from '../store/db.ts'
import type { WorkItems } from '../work/items.ts'
import type { Paperclips } from '../work/paperclips.ts'
import { authRoutes } from './auth.ts'
import { olderHistoryToken, snapshotMinter } from './history.ts'
import { hostsRoutes } from './hosts.ts'
import { inputsRoutes } from './inputs.ts'
import { modelsRoutes } from './models.ts'
import { paperclipsRoutes } from './paperclips.ts'
import { serverRoutes } from './server.ts'
import {
  catalogRoutes,
  contextRoutes,
  kernelRoutes,
  reloadRoutes,
  sessionMcpRoutes,
  sessionsRoutes,
} from './sessions.ts'
import { settingsRoutes } from './settings.ts'
import { snapshotsRoutes } from './snapshots.ts'
import { storageRoutes } from './storage.ts'
import { workRoutes } from './work.ts'
import { workspacesRoutes } from './workspaces.ts'

export const CAPABILITIES: Readonly<Record<string, number>> = {
  zstd_requests: 1,
  storage_report: 1,
  session_replay: 1,
  collection_invalidation: 1,
  durable_inputs: 1,
  provider_auth: 1,
  tool_progress: 1,
  context: 1,
  catalog: 1,
  workspace_browsing: 1,
  host_probes: 1,
  snapshots: 1,
}

/** The domain services the routes translate requests to. */
export interface ServicesOfApi {
  sessions: Sessions
  runs: Runs
  auth: AuthService
  models: ModelsService
  hosts: Hosts
  catalogSources: CatalogSources
  items: WorkItems
  clips: Paperclips
  /** The context window of a session's model, when the catalogue knows it now. */
  window: ContextDeps['window']
  compaction: ContextDeps['compaction']
  /** Stored quota readings (GET /server). */
  quota: QuotaStore
  /** Workspace snapshots of runs, and restores. */
  snapshots: Snapshots
  /** Each session's own MCP servers (a client's, in memory only). */
  sessionMcp: SessionMcpServerLists
}

/** The daemon's own facts and parts the routes report or use. */
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
  settings: Settings
  kernels: KernelPool
  /** The daemon's log (none in tests that build the routes alone). */
  log?: DaemonLog
}

export interface Api {
  routes: RouteBinding[]
  /** The capabilities now on (settings may turn optional ones off). */
  capabilities: () => Record<string, number>
  /** The extensions now enabled (an op of a disabled one does not exist). */
  extensions: () => ReadonlySet<string>
}

export function createApi(d: ApiDeps, s: ServicesOfApi): Api {
  const { core } = s.sessions
  // Tokens are the HTTP layer's: the sessions mint them through these.
  core.live.snapshotOf = snapshotMinter(d.continuations)
  core.olderHistory = (sessionId, before) => olderHistoryToken(d.continuations, sessionId, before)
  const routes = [
    ...serverRoutes({
      ...d,
      capabilities: () => enabledCapabilities(d.settings, CAPABILITIES),
      extensions: () => enabledExtensionsOf(d.settings),
      sandbox: () => d.kernels.sandbox,
      quota: s.quota,
    }),
    ...settingsRoutes(d.settings),
    ...authRoutes(s.auth),
    ...storageRoutes(d),
    ...sessionsRoutes({
      sessions: s.sessions,
      continuations: d.continuations,
      contextWindow: (profile, model) => s.models.contextWindow(profile, model),
      onStream: (sessionId) => d.log?.debug?.({ session_id: sessionId }, 'session stream opened'),
    }),
    ...inputsRoutes({ core, runs: s.runs, continuations: d.continuations }),
    ...contextRoutes({
      core,
      runs: s.runs,
      continuations: d.continuations,
      tools: s.runs.tools,
      window: s.window,
      compaction: s.compaction,
      defaultPolicy: () => toolsSettingsOf(d.settings).approval_policy,
      environment: (row) => nextEnvironment(s.runs.deps, row.id),
    }),
    ...catalogRoutes({ core, sources: s.catalogSources, continuations: d.continuations }),
    ...reloadRoutes({ runs: s.runs, settings: d.settings, home: d.home }),
    ...kernelRoutes({ runs: s.runs }),
    ...sessionMcpRoutes({ core, lists: s.sessionMcp }),
    ...modelsRoutes({ ...d, models: s.models }),
    ...workRoutes({ items: s.items, continuations: d.continuations }),
    ...paperclipsRoutes({ clips: s.clips, continuations: d.continuations }),
    ...workspacesRoutes({ db: d.db, continuations: d.continuations }),
    ...hostsRoutes({ hosts: s.hosts, continuations: d.continuations }),
    ...snapshotsRoutes({ snapshots: s.snapshots, continuations: d.continuations }),
  ]
  checkBindings(routes, ALL_OPS)
  return {
    routes,
    capabilities: () => enabledCapabilities(d.settings, CAPABILITIES),
    extensions: () => new Set(enabledExtensionsOf(d.settings).map((e) => e.name)),
  }
}
