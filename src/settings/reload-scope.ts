// Which sessions a committed settings change affects: those using a profile whose public
// fields or key changed, those using a model whose overrides changed, and those using an
// MCP server whose settings or secrets changed (by their selection and the server's enabled).
import type { SettingsGroup } from '../schemas/settings.ts'
import type { ReloadScope } from '../sessions/reload.ts'
import type { FileContents } from './files.ts'
import { profilesOf } from './groups/providers.ts'
import { isObject, objectAt } from './merge.ts'

function changedKeys(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)])
  return [...keys].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]))
}

/** Servers whose settings entry or secrets changed, by whether settings enabled them before or after. */
function mcpScope(before: FileContents, after: FileContents): ReloadScope {
  const servers = (f: FileContents) => objectAt(objectAt(f['config.json'], 'mcp'), 'servers')
  const secrets = (f: FileContents) => objectAt(f['creds.json'], 'mcp')
  const [a, b] = [servers(before), servers(after)]
  const changed = new Set([...changedKeys(a, b), ...changedKeys(secrets(before), secrets(after))])
  const enabled = (s: Record<string, unknown>, name: string) =>
    isObject(s[name]) && (s[name] as Record<string, unknown>).enabled !== false
  const mcpOn = [...changed].filter((name) => enabled(a, name) || enabled(b, name))
  return { mcpOn, mcpOff: [...changed].filter((name) => !mcpOn.includes(name)) }
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
  if (group === 'mcp') return mcpScope(before, after)
  if (group === 'models') {
    const overrides = (f: FileContents) => objectAt(objectAt(f['config.json'], 'models'), 'overrides')
    return { models: changedKeys(overrides(before), overrides(after)) }
  }
  return {}
}
