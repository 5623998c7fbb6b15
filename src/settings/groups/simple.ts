// Groups without secrets, each a top-level key of config.json: `capabilities` (optional
// capabilities an operator may turn off), `models` (catalogue source and per-model
// overrides) and `ui` (client preferences, including dismissed notices).
import { HearthError } from '../../schemas/problems.ts'
import { OPTIONAL_CAPABILITIES } from '../../schemas/settings.ts'
import type { FileContents, JsonObject } from '../files.ts'
import { isObject, mergePatch, objectAt, setOrDrop } from '../merge.ts'
import { copyFiles, type GroupCodec } from './types.ts'

export const DEFAULT_CATALOGUE_URL = 'https://models.dev/api.json'

/** A codec for a plain config.json group: merge patch onto its stored object. */
function plain(key: string, read: (stored: JsonObject) => unknown, check?: (stored: JsonObject) => void) {
  const codec: GroupCodec = {
    read: (files) => read(objectAt(files['config.json'], key)),
    apply(files: FileContents, patch) {
      const next = copyFiles(files)
      setOrDrop(next['config.json'], key, mergePatch(objectAt(next['config.json'], key), patch) as JsonObject)
      return next
    },
    check: (candidate) => check?.(objectAt(candidate['config.json'], key)),
  }
  return codec
}

export const capabilities = plain('capabilities', (s) =>
  Object.fromEntries(OPTIONAL_CAPABILITIES.map((c) => [c, s[c] !== false])),
)

export const models = plain(
  'models',
  (s) => ({
    catalogue_url: typeof s.catalogue_url === 'string' ? s.catalogue_url : DEFAULT_CATALOGUE_URL,
    overrides: objectAt(s, 'overrides'),
    cache_rules: Array.isArray(s.cache_rules) ? s.cache_rules : [],
  }),
  (s) => {
    for (const [id, o] of Object.entries(objectAt(s, 'overrides'))) {
      if (!isObject(o) || Object.keys(o).length === 0)
        throw new HearthError('invalid_settings', `models.overrides.${id} sets no fact`)
    }
  },
)

export const ui = plain('ui', (s) => ({
  dismissed_notices: Array.isArray(s.dismissed_notices) ? s.dismissed_notices : [],
  theme: typeof s.theme === 'string' ? s.theme : null,
  show_reasoning: s.show_reasoning !== false,
}))

/** The public `models` group as the catalogue and cache-policy views consume it. */
export function modelsSettings(files: FileContents): {
  catalogue_url: string
  overrides: Record<string, Record<string, unknown>>
  cache_rules: unknown[]
} {
  return models.read(files) as never
}
