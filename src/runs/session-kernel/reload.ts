// POST /sessions/{id}/reload without HTTP. `composition`: the session's kernel brings its MCP
// servers to the settings now (quarantined ones are started again although their settings
// are unchanged) and the instructions are read again; then the session records the desired
// revision as loaded (needs_reload false). `models`: the catalogue the pickers read is
// downloaded again (src/models/refresh.ts). The two are independent: each has its own
// outcome, a success stands when the other fails, and nothing is replayed.
import { compositionOf } from '../../mcp/composition.ts'
import { RefreshError } from '../../models/refresh.ts'
import { HearthError, problemBody } from '../../schemas/problems.ts'
import type { ReloadRequest, ReloadResult } from '../../schemas/reload.ts'
import { selectionOf } from '../../sessions/views.ts'
import type { Runs } from '../engine.ts'
import { loadMcp } from './mcp.ts'

export interface ReloadDeps {
  catalogue: CatalogueRefresh
  /**
   * Throws when the settings files cannot be read now: a run's start then loads no server,
   * but a reload fails rather than unload every server of the session.
   */
  readSettings: () => void
}

export interface CatalogueRefresh {
  /** The URL the catalogue is read from (settings `models.catalogue_url`). */
  source: () => string
  refresh: (url: URL) => Promise<{ providers: number; models: number }>
}

type CompositionOutcome = ReloadResult['composition']
type ModelsOutcome = ReloadResult['models']

export function reloadSession(
  runs: Runs,
  sessionId: string,
  body: ReloadRequest,
  deps: ReloadDeps,
): Promise<ReloadResult> {
  return runs.holdIdle(sessionId, 'reload', async () => {
    const wants = new Set(body.targets)
    const [composition, models] = await Promise.all([
      wants.has('composition')
        ? reloadComposition(runs, sessionId, deps.readSettings)
        : compositionNotRequested(runs, sessionId),
      wants.has('models') ? refreshModels(deps.catalogue) : modelsNotRequested(),
    ])
    return { composition, models }
  })
}

function compositionNotRequested(runs: Runs, sessionId: string): Promise<CompositionOutcome> {
  const row = runs.deps.core.require(sessionId)
  return Promise.resolve({
    outcome: 'not_requested',
    problem: null,
    loaded_revision: row.loaded_revision,
    needs_reload: row.loaded_revision !== row.desired_revision,
    quarantine: runs.deps.core.live.compositionOf(sessionId).quarantine,
    instructions: [],
  })
}

function modelsNotRequested(): Promise<ModelsOutcome> {
  return Promise.resolve({
    outcome: 'not_requested',
    problem: null,
    source: null,
    providers: null,
    models: null,
  })
}

async function reloadComposition(
  runs: Runs,
  sessionId: string,
  readSettings: () => void,
): Promise<CompositionOutcome> {
  const d = runs.deps
  const row = d.core.require(sessionId)
  const failed = (detail: string): CompositionOutcome => ({
    outcome: 'failed',
    problem: problemBody('composition_load_failed', detail),
    loaded_revision: row.loaded_revision,
    needs_reload: row.loaded_revision !== row.desired_revision,
    quarantine: d.core.live.compositionOf(sessionId).quarantine,
    instructions: [],
  })
  let instructions: CompositionOutcome['instructions']
  let servers: unknown[]
  try {
    // Read again now: a file changed or added since the last step is what the next one sends.
    instructions = d.core.instructions.of(row.workspace, selectionOf(row)).sources
    // Settings that do not parse fail here, before the kernel is asked for anything.
    readSettings()
    servers = d.mcp?.(row.workspace, selectionOf(row).mcp) ?? []
  } catch (err) {
    return failed(err instanceof Error ? err.message : String(err))
  }
  // No server to load and none loaded: no kernel is started for nothing.
  const kernel = servers.length > 0 || d.kernels.current(sessionId) ? d.kernels.acquire(sessionId) : undefined
  if (kernel) {
    try {
      await kernel.ready
      if (!kernel.alive) return failed('The session kernel did not start')
      await loadMcp(d, kernel, row.workspace, selectionOf(row).mcp, true)
      if (!kernel.alive) return failed('The session kernel exited while loading the MCP servers')
    } finally {
      if (kernel.alive) d.kernels.release(sessionId)
    }
  }
  const after = d.core.transact((tx) => {
    const before = d.core.require(sessionId)
    d.core.sql('UPDATE sessions SET loaded_revision = ? WHERE id = ?').run(row.desired_revision, sessionId)
    const now = d.core.require(sessionId)
    tx.changed({ session_id: sessionId, reason: 'changed', before, after: now })
    return now
  })
  return {
    outcome: 'reloaded',
    problem: null,
    loaded_revision: after.loaded_revision,
    needs_reload: after.loaded_revision !== after.desired_revision,
    quarantine: compositionOf(kernel?.mcp).quarantine,
    instructions,
  }
}

async function refreshModels(catalogue: CatalogueRefresh): Promise<ModelsOutcome> {
  const source = catalogue.source()
  const failed = (detail: string): ModelsOutcome => ({
    outcome: 'failed',
    problem: problemBody('catalogue_refresh_failed', detail),
    source,
    providers: null,
    models: null,
  })
  let url: URL
  try {
    url = new URL(source)
  } catch {
    return failed(`${source} is not a URL`)
  }
  try {
    const r = await catalogue.refresh(url)
    return { outcome: 'refreshed', problem: null, source, providers: r.providers, models: r.models }
  } catch (err) {
    if (err instanceof RefreshError || err instanceof HearthError) return failed(err.message)
    throw err
  }
}
