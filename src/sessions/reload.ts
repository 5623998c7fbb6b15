// Settings that change what a session runs with (its profile, its model's facts) raise its
// desired revision, so it shows needs_reload until a run or a reload loads the new one.
import type { SessionsCore } from './core.ts'

export interface ReloadScope {
  /** Sessions whose provider_profile is one of these. */
  profiles?: readonly string[]
  /** Sessions whose model is one of these. */
  models?: readonly string[]
}

/** Marks the sessions in scope; returns how many. One transaction, one event per session. */
export function markNeedsReload(core: SessionsCore, scope: ReloadScope, group: string): number {
  const profiles = [...(scope.profiles ?? [])]
  const models = [...(scope.models ?? [])]
  if (profiles.length === 0 && models.length === 0) return 0
  return core.transact((tx) => {
    const ids = core
      .sql(
        `SELECT id FROM sessions WHERE provider_profile IN (SELECT value FROM json_each(?))
           OR model IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify(profiles), JSON.stringify(models)) as { id: string }[]
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
