// Group `providers`: config.json `providers` {default_profile, profiles} and the keys in
// creds.json `providers.<profile>.apiKey`. A key written by hand as `apiKey` inside a
// config.json profile is used (and wins) until the next start moves it into creds.json;
// reads never show it either.

import { hasTransport, PROVIDERS, providerIds, providerOf } from '../../providers/registry.ts'
import { DEFAULT_EXTENSION, PROVIDER_EXTENSIONS } from '../../schemas/extensions.ts'
import { HearthError } from '../../schemas/problems.ts'
import type { FileContents, JsonObject } from '../files.ts'
import { isObject, mergePatch, objectAt, SAVED, setOrDrop } from '../merge.ts'
import { enabledExtensions } from './extensions.ts'
import { copyFiles, type GroupCodec } from './types.ts'

/**
 * `providers.sign_in` with the defaults filled in: one entry per provider whose sign-in
 * settings may name another OAuth client (its descriptor's `signIn.settings`).
 */
export function signInSettings(config: JsonObject): Record<string, JsonObject> {
  const stored = objectAt(objectAt(config, 'providers'), 'sign_in')
  return Object.fromEntries(
    PROVIDERS.flatMap((p) =>
      p.signIn?.settings ? [[p.id, { ...p.signIn.settings, ...objectAt(stored, p.id) }]] : [],
    ),
  )
}

/** Public profile fields, in the order reads show them. */
const PUBLIC_FIELDS = [
  'extension',
  'endpoint',
  'protocol',
  'model',
  'effort',
  'image_edge',
  'account_id',
  'project',
  'location',
  'stream_idle_timeout_ms',
  'request_max_retries',
] as const

export const profilesOf = (config: JsonObject): Record<string, JsonObject> =>
  objectAt(objectAt(config, 'providers'), 'profiles') as Record<string, JsonObject>

/** The key a run uses: the hand-written one first, else the saved one. */
export function keyOf(files: FileContents, name: string): string | null {
  const hand = profilesOf(files['config.json'])[name]?.apiKey
  if (typeof hand === 'string' && hand !== '') return hand
  const saved = objectAt(objectAt(files['creds.json'], 'providers'), name).apiKey
  return typeof saved === 'string' && saved !== '' ? saved : null
}

function readProfile(files: FileContents, name: string, stored: JsonObject) {
  const out: JsonObject = {}
  for (const field of PUBLIC_FIELDS) if (stored[field] !== undefined) out[field] = stored[field]
  out.extension = typeof stored.extension === 'string' ? stored.extension : DEFAULT_EXTENSION
  out.api_key = keyOf(files, name) === null ? null : SAVED
  return out
}

/** A profile of a known extension that no transport serves yet (src/providers/registry.ts). */
export function unsupported(profile: string, extension: string): HearthError {
  return new HearthError(
    'provider_unsupported',
    `profile ${profile}: hearth cannot talk to ${extension} yet; usable extensions: ${providerIds().join(', ')}`,
  )
}

export const providers: GroupCodec = {
  read(files) {
    const pub = objectAt(files['config.json'], 'providers')
    const profiles = Object.entries(profilesOf(files['config.json'])).filter(([, p]) => isObject(p))
    return {
      default_profile: typeof pub.default_profile === 'string' ? pub.default_profile : null,
      profiles: Object.fromEntries(profiles.map(([name, p]) => [name, readProfile(files, name, p)])),
      sign_in: signInSettings(files['config.json']),
    }
  },

  apply(files, patch) {
    const next = copyFiles(files)
    const pub = objectAt(next['config.json'], 'providers')
    const keys = objectAt(next['creds.json'], 'providers')
    if (patch.default_profile !== undefined) {
      if (patch.default_profile === null) delete pub.default_profile
      else pub.default_profile = patch.default_profile
    }
    if (patch.sign_in !== undefined)
      setOrDrop(pub, 'sign_in', mergePatch(objectAt(pub, 'sign_in'), patch.sign_in) as JsonObject)
    const profiles = objectAt(pub, 'profiles')
    for (const [name, change] of Object.entries(
      (patch.profiles ?? {}) as Record<string, JsonObject | null>,
    )) {
      if (change === null) {
        delete profiles[name]
        delete keys[name]
        continue
      }
      const { api_key, ...fields } = change
      const merged = mergePatch(objectAt(profiles, name), fields) as JsonObject
      merged.extension ??= DEFAULT_EXTENSION // newly saved profiles carry their extension
      if (api_key !== undefined) {
        // The patch is the newer intent: a hand-written key must not win over it (or be
        // moved over it at the next start).
        delete merged.apiKey
        if (api_key === null) delete keys[name]
        else keys[name] = { ...objectAt(keys, name), apiKey: api_key }
      }
      profiles[name] = merged
    }
    setOrDrop(pub, 'profiles', profiles)
    setOrDrop(next['config.json'], 'providers', pub)
    setOrDrop(next['creds.json'], 'providers', keys)
    return next
  },

  check(candidate, builtIn) {
    const pub = objectAt(candidate['config.json'], 'providers')
    const profiles = profilesOf(candidate['config.json'])
    const enabled = enabledExtensions(candidate)
    const bad = (detail: string) => new HearthError('invalid_settings', detail)
    const named = pub.default_profile
    if (typeof named === 'string' && !isObject(profiles[named]) && !builtIn?.has(named))
      throw bad(`default_profile names ${pub.default_profile}, which is not a saved profile`)
    for (const [name, p] of Object.entries(profiles)) {
      if (!isObject(p)) throw bad(`profile ${name} is not an object`)
      const extension = typeof p.extension === 'string' ? p.extension : DEFAULT_EXTENSION
      if (!(PROVIDER_EXTENSIONS as readonly string[]).includes(extension))
        throw bad(`profile ${name}: unknown extension ${extension}`)
      if (!hasTransport(extension)) throw unsupported(name, extension)
      if (!enabled.has(extension)) throw bad(`profile ${name}: extension ${extension} is disabled`)
      const rules = providerOf(extension)?.profile
      if (rules?.needsEndpoint && typeof p.endpoint !== 'string')
        throw bad(`profile ${name}: an ${extension} profile needs an endpoint`)
      if (rules?.needsModel && typeof p.model !== 'string')
        throw bad(
          `profile ${name}: ${/^[aeiou]/.test(extension) ? 'an' : 'a'} ${extension} profile needs a model`,
        )
      const wrong = rules?.check?.(p)
      if (wrong) throw bad(`profile ${name}: ${wrong}`)
    }
  },
}
