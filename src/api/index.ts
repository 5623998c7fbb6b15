// All route bindings of the daemon, and the capabilities they implement. A capability is
// listed only when its operations are registered here.
import { AuthService } from '../auth/service.ts'
import { turnCredentials } from '../auth/turns.ts'
import { type CatalogSources, sessionSide } from '../catalog/candidates.ts'
import { catalogRevisionHolds } from '../catalog/page.ts'
import { dependenciesOf, effectiveSelection, selectableSections } from '../catalog/selection.ts'
import { Hosts } from '../hosts/service.ts'
import type { Continuations } from '../http/continuation.ts'
import { checkBindings, type RouteBinding } from '../http/route.ts'
import { pruneInputs } from '../inputs/admit.ts'
import { Instructions } from '../instructions/index.ts'
import type { KernelPool } from '../kernel/pool.ts'
import { mcpServersOfSettings } from '../mcp/config.ts'
import type { CacheRule } from '../models/cache-policy.ts'
import { Runs } from '../runs/engine.ts'
import { nextEnvironment } from '../runs/launch.ts'
import { recoverRuns } from '../runs/recover.ts'
import { ALL_OPS } from '../schemas/index.ts'
import type { Notice } from '../schemas/server.ts'
import { markNeedsReload } from '../sessions/reload.ts'
import { Sessions } from '../sessions/service.ts'
import type { SessionRow } from '../sessions/types.ts'
import { usageModelOf } from '../sessions/views.ts'
import {
  compactionSettingsOf,
  enabledCapabilities,
  enabledExtensionsOf,
  instructionsSettingsOf,
  modelsSettingsOf,
  toolsSettingsOf,
} from '../settings/derived.ts'
import type { FileContents } from '../settings/files.ts'
import type { Profiles } from '../settings/profiles.ts'
import { reloadScope } from '../settings/reload-scope.ts'
import type { Settings } from '../settings/service.ts'
import { Commands } from '../skills/commands.ts'
import type { Db } from '../store/db.ts'
import { WorkItems } from '../work/items.ts'
import { Paperclips } from '../work/paperclips.ts'
import { authRoutes } from './auth.ts'
import { olderHistoryToken, snapshotMinter } from './history.ts'
import { hostsRoutes } from './hosts.ts'
import { inputsRoutes } from './inputs.ts'
import { modelsRoutes, modelsServiceOf } from './models.ts'
import { paperclipsRoutes } from './paperclips.ts'
import { serverRoutes } from './server.ts'
import { catalogRoutes, contextRoutes, kernelRoutes, reloadRoutes, sessionsRoutes } from './sessions.ts'
import { settingsRoutes } from './settings.ts'
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
}

/** How often decisions older than seven days are pruned. */
const PRUNE_EVERY_MS = 60 * 60 * 1000
/** How long after start the spare kernel is forked (see start). */
const SPARE_DELAY_MS = 250

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
  /** Reports a failure of background work (runs, recovery) to the log. */
  onError: (err: unknown) => void
  /** Logs a warning about background work (an MCP server that failed or exited). */
  onNotice?: (fields: Record<string, unknown>, message: string) => void
}

export interface Api {
  routes: RouteBinding[]
  /** The capabilities now on (settings may turn optional ones off). */
  capabilities: () => Record<string, number>
  /** The extensions now enabled (an op of a disabled one does not exist). */
  extensions: () => ReadonlySet<string>
  /** Work that runs once the daemon listens: finishing what a previous run left half done. */
  start: () => Promise<void>
  /** Drain: running turns end as interrupted, kernels stop. */
  stop: () => void
}

export function createApi(d: ApiDeps): Api {
  const sessions = new Sessions(d.db, {
    now: d.now,
    defaults: {
      resolve: (profile, model) => d.profiles.sessionDefaults(profile, model),
    },
    interrupt: async (sessionId) => {
      await runs.interrupt(sessionId)
    },
  })
  const core = sessions.core
  core.instructions = new Instructions(d.home)
  core.instructions.settings = () => instructionsSettingsOf(d.settings)
  const catalogSources: CatalogSources = {
    files: () => settingsOrEmpty(d.settings),
    instructions: core.instructions,
    commands: new Commands(d.home),
  }
  core.composed = (row) => {
    const side = sessionSide(row)
    const sections = selectableSections(catalogSources, side)
    const extension = d.profiles.extensionOf(row.provider_profile)
    return {
      effective: effectiveSelection(sections, side),
      dependencies: dependenciesOf(
        sections,
        extension === null ? null : { name: row.provider_profile, extension },
      ),
    }
  }
  core.catalogRevisionHolds = (row, revision) =>
    catalogRevisionHolds(catalogSources, sessionSide(row), revision)
  d.settings.onCommit = (group, before, after) =>
    markNeedsReload(core, reloadScope(group, before, after), group)
  const auth = new AuthService({ db: d.db, settings: d.settings, now: d.now, onError: d.onError })
  const window = (row: SessionRow) => models.contextWindow(row.provider_profile, row.model)
  const compaction = () => compactionSettingsOf(d.settings)
  const runs = new Runs({
    core,
    kernels: d.kernels,
    profiles: d.profiles,
    onError: d.onError,
    credentials: turnCredentials(auth, d.settings),
    tools: () => toolsSettingsOf(d.settings),
    mcp: (workspace, selection) => mcpServersOfSettings(d.settings, workspace, selection),
    onNotice: d.onNotice,
    window: (row) => window(row),
    compaction,
    cacheRules: () => modelsSettingsOf(d.settings).cache_rules as CacheRule[],
  })
  core.live.snapshotOf = snapshotMinter(d.continuations)
  core.olderHistory = (sessionId, before) => olderHistoryToken(d.continuations, sessionId, before)
  const models = modelsServiceOf({
    ...d,
    cacheRules: () => modelsSettingsOf(d.settings).cache_rules as CacheRule[],
    overrides: () => modelsSettingsOf(d.settings).overrides,
  })
  core.inMaintenance = (id) => runs.held(id)
  core.contextWindowOf = (row) => models.contextWindowNow(row.provider_profile, usageModelOf(row))
  // What the extension records (work items, clips) need: the store, the clock, sessions.
  const records = { db: d.db, now: d.now, requireSession: (id: string) => void core.require(id) }
  const hosts = new Hosts({ db: d.db, now: d.now })
  const routes = [
    ...serverRoutes({
      ...d,
      capabilities: () => enabledCapabilities(d.settings, CAPABILITIES),
      extensions: () => enabledExtensionsOf(d.settings),
      sandbox: () => d.kernels.sandbox,
    }),
    ...settingsRoutes(d.settings),
    ...authRoutes(auth),
    ...storageRoutes(d),
    ...sessionsRoutes({
      sessions,
      continuations: d.continuations,
      contextWindow: (profile, model) => models.contextWindow(profile, model),
    }),
    ...inputsRoutes({ core, runs, continuations: d.continuations }),
    ...contextRoutes({
      core,
      runs,
      continuations: d.continuations,
      tools: runs.tools,
      window,
      compaction,
      defaultPolicy: () => toolsSettingsOf(d.settings).approval_policy,
      environment: (row) => nextEnvironment(runs.deps, row.id),
    }),
    ...catalogRoutes({ core, sources: catalogSources, continuations: d.continuations }),
    ...reloadRoutes({ runs, settings: d.settings, home: d.home }),
    ...kernelRoutes({ runs }),
    ...modelsRoutes({ ...d, models }),
    ...workRoutes({ items: new WorkItems(records), continuations: d.continuations }),
    ...paperclipsRoutes({ clips: new Paperclips(records), continuations: d.continuations }),
    ...workspacesRoutes({ db: d.db, continuations: d.continuations }),
    ...hostsRoutes({ hosts, continuations: d.continuations }),
  ]
  checkBindings(routes, ALL_OPS)
  let pruner: NodeJS.Timeout | undefined
  let spare: NodeJS.Timeout | undefined
  return {
    routes,
    capabilities: () => enabledCapabilities(d.settings, CAPABILITIES),
    extensions: () => new Set(enabledExtensionsOf(d.settings).map((e) => e.name)),
    start: async () => {
      auth.engine.start()
      await sessions.resume()
      pruneInputs(core)
      for (const sessionId of recoverRuns(core)) runs.kick(sessionId)
      // The spare kernel a moment later: forking it holds the event loop ~15 ms, which a
      // request sent as soon as daemon.json appears would otherwise wait for. A run that
      // needs a kernel before then starts its own.
      spare = setTimeout(() => d.kernels.warm(), SPARE_DELAY_MS)
      spare.unref()
      // A new session is the moment a first turn is near: a reserve kernel released while
      // the daemon sat idle is started again (warm() is a no-op when there is room).
      core.hub.subscribeCollection((c) => {
        if (c.reason === 'created') d.kernels.warm()
        // A deleted session's background jobs stop with their process groups.
        if (c.reason === 'deleted') d.kernels.stopJobs(c.session_id)
      })
      pruner = setInterval(() => pruneInputs(core), PRUNE_EVERY_MS)
      pruner.unref()
    },
    stop: () => {
      clearTimeout(spare)
      clearInterval(pruner)
      auth.engine.stop()
      hosts.stop()
      runs.stop()
      d.kernels.close()
    },
  }
}

/** The settings files; an unreadable config.json reads as empty here (GET /settings says why). */
function settingsOrEmpty(settings: Settings): FileContents {
  try {
    return settings.files()
  } catch {
    return { 'config.json': {}, 'creds.json': {}, 'extensions.json': {} }
  }
}

/** The route list alone (OpenAPI checks, tests). */
export function allRoutes(d: ApiDeps): RouteBinding[] {
  return createApi(d).routes
}
