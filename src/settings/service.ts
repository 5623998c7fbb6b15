// The settings service: reads with per-group ETags, and PATCH as one locked
// read-validate-commit. The lock serialises every settings and credential mutation, so
// two PATCHes carrying the same ETag cannot both pass the If-Match check.
import { createHmac } from 'node:crypto'
import { HearthError } from '../schemas/problems.ts'
import { GROUP_PATCH, SETTINGS_GROUPS, type SettingsGroup } from '../schemas/settings.ts'
import { requireIfMatch } from '../util/preconditions.ts'
import {
  commitFiles,
  type FileContents,
  fileText,
  type JsonObject,
  readAllSettings,
  SETTINGS_FILES,
} from './files.ts'
import { GROUPS } from './groups/index.ts'
import { profilesOf } from './groups/providers.ts'
import type { CredentialLock } from './lock.ts'
import { isObject, objectAt } from './merge.ts'

/** Where each group keeps its public part and its secrets. */
const SECRETS_OF: Partial<Record<SettingsGroup, string>> = { providers: 'providers', mcp: 'mcp' }

export interface SettingsDeps {
  home: string
  lock: CredentialLock
  /** Keys the ETags: they cover secrets (a rotated key changes the ETag) without revealing them. */
  etagKey: Buffer
  /**
   * Profiles the daemon adds itself (the demo profile), as reads show them: listed read-only
   * in the providers group (a saved profile of the same name wins), and a default may name
   * them; a PATCH cannot create or change one.
   */
  builtInProfiles?: () => Record<string, JsonObject>
}

/** Told what a PATCH changed once committed; returns how many sessions now need a reload. */
export type CommitHook = (group: SettingsGroup, before: FileContents, after: FileContents) => number

type Checker = (schema: unknown, value: unknown) => unknown

export class Settings {
  readonly #d: SettingsDeps
  /** Set by the sessions side once it exists (settings are created first, at start). */
  onCommit: CommitHook | undefined

  constructor(d: SettingsDeps) {
    this.#d = d
  }

  files(): FileContents {
    return readAllSettings(this.#d.home)
  }

  etagOf(group: SettingsGroup, files: FileContents): string {
    const secrets = SECRETS_OF[group]
    const mac = createHmac('sha256', this.#d.etagKey)
      .update(group)
      .update(JSON.stringify(GROUPS[group].read(files)))
      .update(secrets ? JSON.stringify(objectAt(files['creds.json'], secrets)) : '')
    return `"${mac.digest('base64url').slice(0, 22)}"`
  }

  /** A group as reads show it: the files' view, plus the built-in profiles in providers. */
  #readGroup(group: SettingsGroup, files: FileContents): unknown {
    const read = GROUPS[group].read(files)
    const builtIn = this.#d.builtInProfiles?.()
    if (group !== 'providers' || !builtIn) return read
    const r = read as { profiles: Record<string, unknown> }
    return { ...r, profiles: { ...builtIn, ...r.profiles } }
  }

  read(group?: SettingsGroup): { body: unknown; etag: string } {
    const files = this.files()
    if (group)
      return { body: { group, settings: this.#readGroup(group, files) }, etag: this.etagOf(group, files) }
    const settings = Object.fromEntries(SETTINGS_GROUPS.map((g) => [g, this.#readGroup(g, files)]))
    const etags = Object.fromEntries(SETTINGS_GROUPS.map((g) => [g, this.etagOf(g, files)]))
    const whole = createHmac('sha256', this.#d.etagKey).update(JSON.stringify(etags)).digest('base64url')
    return { body: { settings, validators: GROUP_PATCH, etags }, etag: `"${whole.slice(0, 22)}"` }
  }

  /** PATCH of one group: If-Match, the group's schema, the whole candidate, one commit. */
  async patch(group: SettingsGroup, ifMatch: string | undefined, raw: unknown) {
    const { checkBody } = (await import('../validate/check.ts')) as { checkBody: Checker }
    const patch = checkBody(GROUP_PATCH[group], raw) as Record<string, unknown>
    if (ifMatch === undefined)
      throw new HearthError('precondition_required', 'PATCH /settings needs If-Match')
    return this.#d.lock.run(() => {
      const before = this.files()
      requireIfMatch(ifMatch, this.etagOf(group, before))
      const builtIn = new Set(Object.keys(this.#d.builtInProfiles?.() ?? {}))
      if (group === 'providers') refuseBuiltIn(patch, before, builtIn)
      const candidate = GROUPS[group].apply(before, patch)
      checkCandidate(group, candidate, checkBody, builtIn)
      const changedFiles = SETTINGS_FILES.filter((f) => fileText(before[f]) !== fileText(candidate[f]))
      commitFiles(this.#d.home, Object.fromEntries(changedFiles.map((f) => [f, candidate[f]])))
      const reload = changedFiles.length > 0 ? (this.onCommit?.(group, before, candidate) ?? 0) : 0
      const etag = this.etagOf(group, candidate)
      return {
        etag,
        body: {
          group,
          etag,
          settings: this.#readGroup(group, candidate),
          changed: changedFiles.length > 0 ? Object.keys(patch) : [],
          reload_sessions: reload,
        },
      }
    })
  }

  /**
   * A mutation outside PATCH (migration, sign-in, token refresh): `fn` sees the files as
   * they are under the lock and returns the ones to commit, or nothing.
   */
  update(
    fn: (
      files: FileContents,
    ) => Partial<FileContents> | undefined | Promise<Partial<FileContents> | undefined>,
  ): Promise<void> {
    // The lock is held across `fn`'s awaits (a token refresh calls the network under it).
    return this.#d.lock.run(async () => {
      const changed = await fn(this.files())
      if (changed) commitFiles(this.#d.home, changed)
    })
  }
}

/**
 * The whole candidate group: its stored public part must satisfy the group's schema (a
 * hand edit may have broken it), then the group's own rules. A hand-written `apiKey` is
 * set aside here: it is a secret in the wrong file, moved at the next start, not an error.
 */
function checkCandidate(
  group: SettingsGroup,
  candidate: FileContents,
  checkBody: Checker,
  builtIn: ReadonlySet<string>,
): void {
  const file = group === 'extensions' ? candidate['extensions.json'] : candidate['config.json']
  let stored: unknown = group === 'extensions' ? file : objectAt(file, group)
  if (group === 'providers') {
    const profiles = Object.fromEntries(
      Object.entries(profilesOf(candidate['config.json'])).map(([name, p]) => {
        if (!isObject(p)) return [name, p]
        const { apiKey: _hand, ...rest } = p
        return [name, rest]
      }),
    )
    stored = { ...(stored as object), ...(Object.keys(profiles).length > 0 ? { profiles } : {}) }
  }
  try {
    checkBody(GROUP_PATCH[group], stored)
  } catch (err) {
    if (err instanceof HearthError) throw new HearthError('invalid_settings', `${group}: ${err.message}`)
    throw err
  }
  GROUPS[group].check(candidate, builtIn)
}

/** A PATCH may not save over a built-in profile (unless one of that name is saved already). */
function refuseBuiltIn(patch: Record<string, unknown>, before: FileContents, builtIn: ReadonlySet<string>) {
  const saved = profilesOf(before['config.json'])
  for (const name of Object.keys((patch.profiles ?? {}) as object))
    if (builtIn.has(name) && !isObject(saved[name]))
      throw new HearthError(
        'invalid_settings',
        `profile ${name} is built into this daemon (--demo) and read-only`,
      )
}
