// What other parts of the daemon read from the settings: the capabilities and extensions
// GET /server lists, and the models group GET /models applies. An unreadable config.json
// reads as the defaults here; GET /settings is where its problem is reported.
import { PROVIDERS } from '../providers/registry.ts'
import { EXTENSIONS } from '../schemas/extensions.ts'
import { enabledExtensions } from './groups/extensions.ts'
import {
  COMPACTION_DEFAULTS,
  capabilities,
  compactionSettings,
  INSTRUCTIONS_DEFAULTS,
  instructionsSettings,
  modelsSettings,
  TOOL_DEFAULTS,
  toolsSettings,
} from './groups/simple.ts'
import type { Settings } from './service.ts'

/** The capabilities minus those the `capabilities` settings group turns off. */
export function enabledCapabilities(
  settings: Settings,
  all: Readonly<Record<string, number>>,
): Record<string, number> {
  let on: Record<string, unknown> = {}
  try {
    on = capabilities.read(settings.files()) as Record<string, unknown>
  } catch {
    // An unreadable config.json turns nothing off.
  }
  return Object.fromEntries(Object.entries(all).filter(([name]) => on[name] !== false))
}

/** The versions of the extensions that are not providers (a provider's says its descriptor). */
const BUILT_IN_VERSIONS: Readonly<Record<string, number>> = { models: 1, work: 1, paperclips: 1 }

/** Extensions this build implements, each with its version, in the contract's order. */
const IMPLEMENTED_EXTENSIONS: Readonly<Record<string, number>> = Object.fromEntries(
  EXTENSIONS.map((e) => [e, PROVIDERS.find((p) => p.id === e)?.extension.version ?? BUILT_IN_VERSIONS[e]]),
)

/** The implemented extensions the `extensions` settings group leaves enabled. */
export function enabledExtensionsOf(settings: Settings): { name: string; version: number }[] {
  let enabled: Set<string>
  try {
    enabled = enabledExtensions(settings.files())
  } catch {
    enabled = new Set(Object.keys(IMPLEMENTED_EXTENSIONS))
  }
  return Object.entries(IMPLEMENTED_EXTENSIONS)
    .filter(([name]) => enabled.has(name))
    .map(([name, version]) => ({ name, version }))
}

/** The `models` settings group; an unreadable config.json reads as the defaults. */
export function modelsSettingsOf(settings: Settings) {
  try {
    return modelsSettings(settings.files())
  } catch {
    return { catalogue_url: '', overrides: {}, cache_rules: [] }
  }
}

/** The `tools` settings group; an unreadable config.json reads as the defaults. */
export function toolsSettingsOf(settings: Settings) {
  try {
    return toolsSettings(settings.files())
  } catch {
    return { ...TOOL_DEFAULTS }
  }
}

/** The `compaction` settings group; an unreadable config.json reads as the defaults. */
export function compactionSettingsOf(settings: Settings) {
  try {
    return compactionSettings(settings.files())
  } catch {
    return { ...COMPACTION_DEFAULTS }
  }
}

/** The `instructions` settings group; an unreadable config.json reads as the defaults. */
export function instructionsSettingsOf(settings: Settings) {
  try {
    return instructionsSettings(settings.files())
  } catch {
    return { ...INSTRUCTIONS_DEFAULTS }
  }
}
