// Which sessions a committed settings change affects: those using a profile whose public
// fields or key changed, and those using a model whose overrides changed.
import type { SettingsGroup } from '../schemas/settings.ts'
import type { ReloadScope } from '../sessions/reload.ts'
import type { FileContents } from './files.ts'
import { profilesOf } from './groups/providers.ts'
import { objectAt } from './merge.ts'

function changedKeys(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)])
  return [...keys].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]))
}

export function reloadScope(group: SettingsGroup, before: FileContents, after: FileContents): ReloadScope {
  if (group === 'providers') {
    const keys = (f: FileContents) => objectAt(f['creds.json'], 'providers')
    return {
      profiles: [
        ...new Set([
          ...changedKeys(profilesOf(before['config.json']), profilesOf(after['config.json'])),
          ...changedKeys(keys(before), keys(after)),
        ]),
      ],
    }
  }
  if (group === 'models') {
    const overrides = (f: FileContents) => objectAt(objectAt(f['config.json'], 'models'), 'overrides')
    return { models: changedKeys(overrides(before), overrides(after)) }
  }
  return {}
}
