// The daemon's domain services, made once and wired to each other: sessions, runs, sign-in,
// the catalog, models, hosts and the extensions' records. The API layer only translates
// requests to them (src/api/index.ts); what they do in the background (resuming work a
// previous run left, pruning, the reserve kernel) starts and stops here.
import type { ServicesOfApi } from '../api/index.ts'
import { listingCredential, runCredentials } from '../auth/run-credentials.ts'
import { AuthService } from '../auth/service.ts'
import { type CatalogSources, sessionSide } from '../catalog/candidates.ts'
import { catalogRevisionHolds } from '../catalog/page.ts'
import { dependenciesOf, effectiveSelection, selectableSections } from '../catalog/selection.ts'
import { Hosts } from '../hosts/service.ts'
import { pruneInputs } from '../inputs/admit.ts'
import { Instructions } from '../instructions/index.ts'
import type { KernelPool } from '../kernel/pool.ts'
import { mcpServersOfSettings } from '../mcp/config.ts'
import { DaemonMcpAccess } from '../mcp/oauth/access.ts'
import { McpSignIns } from '../mcp/oauth/signins.ts'
import { SessionMcpServerLists, withSessionServers } from '../mcp/session-servers.ts'
import type { CacheRule } from '../models/cache-policy.ts'
import { Catalogue } from '../models/catalogue.ts'
import { modelsCachePath } from '../models/catalogue-shape.ts'
import { ModelsService } from '../models/service.ts'
import { quotaService } from '../quota/service.ts'
import { QuotaStore } from '../quota/store.ts'
import { Runs } from '../runs/engine.ts'
import { recoverRuns } from '../runs/recover.ts'
import { Snapshots } from '../runs/snapshots/service.ts'
import { markNeedsReload } from '../sessions/reload.ts'
import { Sessions } from '../sessions/service.ts'
import type { SessionRow } from '../sessions/types.ts'
import { usageModelOf } from '../sessions/views.ts'
import {
  compactionSettingsOf,
  instructionsSettingsOf,
  modelsSettingsOf,
  toolsSettingsOf,
} from '../settings/derived.ts'
import type { FileContents } from '../settings/files.ts'
import type { Profiles } from '../settings/profiles.ts'
import { reloadScope } from '../settings/reload-scope.ts'
import type { Settings } from '../settings/service.ts'
import { Commands } from '../skills/commands.ts'
import { SnapshotEngine } from '../snapshots/engine.ts'
import type { Db } from '../store/db.ts'
import { SnapshotRows } from '../store/snapshots.ts'
import { WorkItems } from '../work/items.ts'
import { Paperclips } from '../work/paperclips.ts'

/** How often decisions older than seven days are pruned. */
const PRUNE_EVERY_MS = 60 * 60 * 1000
/** How long after start the first quota round runs (spawning cores holds the event loop too). */
const QUOTA_START_DELAY_MS = 500
/** How long after start the spare kernel is forked (see start). */
const SPARE_DELAY_MS = 250

export interface ServicesDeps {
  home: string
  db: Db
  now: () => number
  profiles: Profiles
  settings: Settings
  kernels: KernelPool
  /** Reports a failure of background work (runs, recovery) to the log. */
  onError: (err: unknown) => void
  /** Logs a warning about background work (an MCP server that failed or exited). */
  onNotice?: (fields: Record<string, unknown>, message: string) => void
}

export interface Services extends ServicesOfApi {
  /** Work that runs once the daemon listens: finishing what a previous run left half done. */
  start: () => Promise<void>
  /** Drain: runs in progress end as interrupted, kernels stop. */
  stop: () => void
}

export function composeServices(d: ServicesDeps): Services {
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
  const catalogSources = composeCatalog(d, sessions)
  d.settings.onCommit = (group, before, after) =>
    markNeedsReload(core, reloadScope(group, before, after), group)
  const mcpAccess = new DaemonMcpAccess({ files: d.settings, now: d.now, onError: d.onError })
  const mcpSignIns = new McpSignIns({ files: d.settings, now: d.now })
  const auth = new AuthService({
    db: d.db,
    settings: d.settings,
    now: d.now,
    onError: d.onError,
    mcp: mcpSignIns,
  })
  const cacheRules = () => modelsSettingsOf(d.settings).cache_rules as CacheRule[]
  const models = new ModelsService({
    catalogue: new Catalogue(modelsCachePath(d.home)),
    profiles: d.profiles,
    cacheRules,
    overrides: () => modelsSettingsOf(d.settings).overrides,
    discovery: { home: d.home, credential: listingCredential(auth, d.settings) },
  })
  const window = (row: SessionRow) => models.contextWindow(row.provider_profile, row.model)
  const compaction = () => compactionSettingsOf(d.settings)
  const snapshots = composeSnapshots(d, core, (id, work) => runs.holdIdle(id, 'restore', work))
  const sessionMcp = new SessionMcpServerLists()
  const runs = new Runs({
    core,
    kernels: d.kernels,
    profiles: d.profiles,
    onError: d.onError,
    credentials: runCredentials(auth, d.settings, { home: d.home }),
    tools: () => toolsSettingsOf(d.settings),
    mcp: (workspace, selection, sessionId) =>
      withSessionServers(
        mcpServersOfSettings(d.settings, workspace, selection),
        sessionId ? sessionMcp.of(sessionId, workspace) : [],
      ),
    mcpAccess,
    onNotice: d.onNotice,
    window,
    compaction,
    cacheRules,
    snapshots,
  })
  core.inMaintenance = (id) => runs.held(id)
  core.contextWindowOf = (row) => models.contextWindowNow(row.provider_profile, usageModelOf(row))
  // What the extension records (work items, clips) need: the store, the clock, sessions.
  const records = { db: d.db, now: d.now, requireSession: (id: string) => void core.require(id) }
  const hosts = new Hosts({ db: d.db, now: d.now })
  const background = backgroundWork(d, sessions, runs, snapshots, sessionMcp)
  const quota = new QuotaStore(d.db, { now: d.now })
  const quotaPoller = quotaService({
    settings: d.settings,
    plugins: () => auth.plugins(),
    store: quota,
    log: (level, fields, message) => (level === 'warn' ? d.onNotice?.(fields, message) : undefined),
  })
  return {
    sessions,
    runs,
    auth,
    models,
    hosts,
    catalogSources,
    items: new WorkItems(records),
    quota,
    clips: new Paperclips(records),
    window,
    compaction,
    snapshots,
    sessionMcp,
    start: async () => {
      auth.engine.start()
      await background.start()
      quotaPoller.start(QUOTA_START_DELAY_MS)
    },
    stop: () => {
      void quotaPoller.stop() // the cores in flight killed, their directories removed
      background.stop()
      auth.engine.stop()
      hosts.stop()
      runs.stop()
      d.kernels.close()
    },
  }
}

/** Workspace snapshots of runs and restores (src/runs/snapshots/, engine src/snapshots/). */
function composeSnapshots(
  d: ServicesDeps,
  core: Sessions['core'],
  holdIdle: <T>(sessionId: string, work: () => Promise<T>) => Promise<T>,
): Snapshots {
  const settings = () => toolsSettingsOf(d.settings).snapshots
  const engine = new SnapshotEngine({ home: d.home, maxFileBytes: settings().max_file_bytes })
  return new Snapshots(
    { core, engine, rows: new SnapshotRows(d.db), home: d.home, settings, onError: d.onError },
    { holdIdle },
  )
}

/** A session's system text and catalog: its instructions, skills and commands. */
function composeCatalog(d: ServicesDeps, sessions: Sessions): CatalogSources {
  const core = sessions.core
  core.instructions = new Instructions(d.home)
  core.instructions.settings = () => instructionsSettingsOf(d.settings)
  const sources: CatalogSources = {
    files: () => settingsOrEmpty(d.settings),
    instructions: core.instructions,
    commands: new Commands(d.home),
  }
  core.composed = (row) => {
    const side = sessionSide(row)
    const sections = selectableSections(sources, side)
    const extension = d.profiles.extensionOf(row.provider_profile)
    return {
      effective: effectiveSelection(sections, side),
      dependencies: dependenciesOf(
        sections,
        extension === null ? null : { name: row.provider_profile, extension },
      ),
    }
  }
  core.catalogRevisionHolds = (row, revision) => catalogRevisionHolds(sources, sessionSide(row), revision)
  return sources
}

/** Resuming sessions and runs, pruning old decisions, and keeping a kernel in reserve. */
function backgroundWork(
  d: ServicesDeps,
  sessions: Sessions,
  runs: Runs,
  snapshots: Snapshots,
  sessionMcp: SessionMcpServerLists,
) {
  const core = sessions.core
  let pruner: NodeJS.Timeout | undefined
  let spare: NodeJS.Timeout | undefined
  return {
    start: async () => {
      await sessions.resume()
      pruneInputs(core)
      const waiting = recoverRuns(core)
      // Before any run starts: a restore a crash interrupted is finished, and runs it left
      // with a `before` snapshot only get their `after`.
      await snapshots.recover().catch(d.onError)
      for (const sessionId of waiting) runs.kick(sessionId)
      // The spare kernel a moment later: forking it holds the event loop ~15 ms, which a
      // request sent as soon as daemon.json appears would otherwise wait for. A run that
      // needs a kernel before then starts its own.
      spare = setTimeout(() => d.kernels.warm(), SPARE_DELAY_MS)
      spare.unref()
      // A new session is the moment a first run is near: a reserve kernel released while
      // the daemon sat idle is started again (warm() is a no-op when there is room).
      core.hub.subscribeCollection((c) => {
        if (c.reason === 'created') d.kernels.warm()
        // A deleted session's background jobs stop with their process groups.
        if (c.reason === 'deleted') {
          d.kernels.stopJobs(c.session_id)
          sessionMcp.forget(c.session_id)
          void snapshots.retention.dropSession(c.session_id).catch(d.onError)
        }
      })
      pruner = setInterval(() => pruneInputs(core), PRUNE_EVERY_MS)
      pruner.unref()
    },
    stop: () => {
      clearTimeout(spare)
      clearInterval(pruner)
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
