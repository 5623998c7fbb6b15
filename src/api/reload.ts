// Handler of POST /sessions/{id}/reload. Domain code is in src/runs/session-kernel/reload.ts;
// this module says where the model catalogue comes from (settings `models.catalogue_url`) and
// goes to (the home's cache, the file GET /models reads).
import { bindGroup } from '../http/route.ts'
import { refreshCatalogue } from '../models/refresh.ts'
import type { Runs } from '../runs/engine.ts'
import { reloadSession } from '../runs/session-kernel/reload.ts'
import { reloadOps } from '../schemas/reload.ts'
import { modelsSettingsOf } from '../settings/derived.ts'
import type { Settings } from '../settings/service.ts'
import { lower } from '../util/uuid.ts'

export interface ReloadApiDeps {
  runs: Runs
  settings: Settings
  home: string
}

export function reloadRoutes(d: ReloadApiDeps) {
  const catalogue = {
    source: () => modelsSettingsOf(d.settings).catalogue_url,
    refresh: (url: URL) => refreshCatalogue(url, d.home),
  }
  return bindGroup(reloadOps)({
    'sessions.reload': async ({ params, body }) => ({
      status: 200,
      body: await reloadSession(d.runs, lower(params.session_id), body, {
        catalogue,
        readSettings: () => void d.settings.files(),
      }),
    }),
  })
}
