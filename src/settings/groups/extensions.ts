// Group `extensions`: enablement per extension and the quota poller's settings, kept in
// extensions.json (the poller re-reads that file every round). Every extension is enabled
// unless the file says otherwise. An enabled extension needs what it requires enabled.

import { PROVIDERS } from '../../providers/registry.ts'
import { DEFAULT_EXTENSION, EXTENSIONS, type Extension } from '../../schemas/extensions.ts'
import { HearthError } from '../../schemas/problems.ts'
import type { FileContents, JsonObject } from '../files.ts'
import { isObject, mergePatch, objectAt, setOrDrop } from '../merge.ts'
import { copyFiles, type GroupCodec } from './types.ts'

/** What each extension needs enabled to work: a provider's says its descriptor; the others need none. */
export const REQUIRES = Object.fromEntries(
  EXTENSIONS.map((e) => [e, PROVIDERS.find((p) => p.id === e)?.extension.requires ?? []]),
) as Record<Extension, readonly string[]>

export const QUOTA_DEFAULTS = { enabled: true, pollSeconds: 600, busyPollSeconds: 120 }

export function enabledExtensions(files: FileContents): Set<string> {
  const stored = objectAt(files['extensions.json'], 'extensions')
  return new Set(EXTENSIONS.filter((e) => objectAt(stored, e).enabled !== false))
}

export const extensions: GroupCodec = {
  read(files) {
    const enabled = enabledExtensions(files)
    const quota = objectAt(files['extensions.json'], 'quota')
    return {
      extensions: Object.fromEntries(
        EXTENSIONS.map((e) => [e, { enabled: enabled.has(e), requires: [...REQUIRES[e]] }]),
      ),
      quota: {
        enabled: typeof quota.enabled === 'boolean' ? quota.enabled : QUOTA_DEFAULTS.enabled,
        pollSeconds: Number.isInteger(quota.pollSeconds) ? quota.pollSeconds : QUOTA_DEFAULTS.pollSeconds,
        busyPollSeconds: Number.isInteger(quota.busyPollSeconds)
          ? quota.busyPollSeconds
          : QUOTA_DEFAULTS.busyPollSeconds,
      },
    }
  },

  apply(files, patch) {
    const next = copyFiles(files)
    const file = next['extensions.json']
    for (const key of ['extensions', 'quota'] as const) {
      if (patch[key] !== undefined)
        setOrDrop(file, key, mergePatch(objectAt(file, key), patch[key]) as JsonObject)
    }
    return next
  },

  check(candidate) {
    const enabled = enabledExtensions(candidate)
    for (const e of enabled) {
      const missing = REQUIRES[e as keyof typeof REQUIRES].filter((r) => !enabled.has(r))
      if (missing.length > 0)
        throw new HearthError('extension_dependency', `${e} requires ${missing.join(', ')} to be enabled`)
    }
    const profiles = objectAt(objectAt(candidate['config.json'], 'providers'), 'profiles')
    for (const [name, p] of Object.entries(profiles)) {
      const extension = isObject(p) && typeof p.extension === 'string' ? p.extension : DEFAULT_EXTENSION
      if (!enabled.has(extension))
        throw new HearthError(
          'extension_in_use',
          `profile ${name} uses ${extension}; change or remove it first`,
        )
    }
  },
}
