// Settings that change what a session runs with (its profile, its model's facts) raise its
// desired revision, so it shows needs_reload until a run or a reload loads the new one.
import type { SessionsCore } from './core.ts'

export interface ReloadScope {
  /** Sessions whose provider_profile is one of these. */
  profiles?: readonly string[]
  /** Sessions whose model is one of these. */
  models?: readonly string[]
  /** MCP servers (settings group `mcp`) that changed and were enabled before or after: sessions not turning them off. */
  mcpOn?: readonly string[]
  /** MCP servers that changed while disabled in settings: sessions that turn them on. */
  mcpOff?: readonly string[]
}

/** Marks the sessions in scope; returns how many. One transaction, one event per session. */
export function markNeedsReload(core: SessionsCore, scope: ReloadScope, group: string): number {
  const profiles = [...(scope.profiles ?? [])]
  const models = [...(scope.models ?? [])]
  const mcpOn = [...(scope.mcpOn ?? [])]
  const mcpOff = [...(scope.mcpOff ?? [])]
  if (profiles.length + models.length + mcpOn.length + mcpOff.length === 0) return 0
  return core.transact((tx) => {
    // A session's selection entry for a server: NULL (none), 1 (on) or 0 (off).
    const entry = `json_extract(selection, '$.mcp.' || json_quote(c.value))`
    const ids = core
      .sql(
        `SELECT id FROM sessions WHERE provider_profile IN (SELECT value FROM json_each(?))
           OR model IN (SELECT value FROM json_each(?))
           OR EXISTS (SELECT 1 FROM json_each(?) c WHERE ${entry} IS NOT 0)
           OR EXISTS (SELECT 1 FROM json_each(?) c WHERE ${entry} = 1)`,
      )
      .all(
        JSON.stringify(profiles),
        JSON.stringify(models),
        JSON.stringify(mcpOn),
        JSON.stringify(mcpOff),
      ) as {
      id: string
    }[]
    const bump = core.sql('UPDATE sessions SET desired_revision = desired_revision + 1 WHERE id = ?')
    for (const { id } of ids) {
      const before = core.row(id)
      if (!before) continue
      bump.run(id)
      const after = core.row(id)
      tx.append(id, 'session.reload_needed', {
        desired_revision: after?.desired_revision,
        reason: 'settings',
        group,
      })
      tx.changed({ session_id: id, reason: 'changed', before, after })
    }
    return ids.length
  })
}
