// Start-time migration of secrets kept elsewhere into creds.json:
//   - HOME/auth.json      accounts by store key (one object or an array) → creds.accounts
//   - HOME/mcp-auth.json  MCP server secrets by server name               → creds.mcp
//   - config.json         each profile's hand-written `apiKey`            → creds.providers
// creds.json is committed first (with config.json, through the settings journal); then
// each legacy file is renamed into backups/<name>-before-creds-<ms> and its mode cleared.
// With nothing to move, a creds.json without its three sections (or none) is written with
// them.
// Every step is safe to repeat, so a start interrupted anywhere is finished by the next:
// merging again adds nothing, a file already moved is not there to move, and a backup
// whose mode bits survived a crash is cleared on the next pass.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { HearthError } from '../schemas/problems.ts'
import type { Notice } from '../schemas/server.ts'
import { CREDS_SECTIONS, type FileContents, type JsonObject, readSettingsFile } from './files.ts'
import { profilesOf } from './groups/providers.ts'
import { isObject, objectAt, setOrDrop } from './merge.ts'
import type { Settings } from './service.ts'

export const LEGACY_FILES = { accounts: 'auth.json', mcp: 'mcp-auth.json' } as const

function readLegacy(home: string, name: string): JsonObject | undefined {
  const path = join(home, name)
  if (!existsSync(path)) return undefined
  try {
    chmodSync(path, 0o600) // a crash may have left it unreadable to its owner; it is ours
    const value = JSON.parse(readFileSync(path, 'utf8')) as unknown
    return isObject(value) ? value : undefined
  } catch {
    return undefined // not JSON: left in place and untouched, never half-moved
  }
}

/** MCP secrets of one server from the legacy shape (also an OAuth `tokens.access_token`). */
function mcpSecrets(value: unknown): JsonObject {
  if (!isObject(value)) return {}
  const out: JsonObject = {}
  if (typeof value.bearerToken === 'string') out.bearerToken = value.bearerToken
  else if (isObject(value.tokens) && typeof value.tokens.access_token === 'string')
    out.bearerToken = value.tokens.access_token
  if (isObject(value.headers)) out.headers = value.headers
  if (isObject(value.env)) out.env = value.env
  return out
}

/** The files with the legacy secrets merged in; entries already in creds.json win (they may be newer). */
function merged(
  files: FileContents,
  auth?: JsonObject,
  mcpAuth?: JsonObject,
): Partial<FileContents> | undefined {
  const creds = structuredClone(files['creds.json'])
  const config = structuredClone(files['config.json'])
  let changed = false
  const accounts = objectAt(creds, 'accounts')
  for (const [key, value] of Object.entries(auth ?? {})) {
    if (accounts[key] === undefined && (isObject(value) || Array.isArray(value))) {
      accounts[key] = value
      changed = true
    }
  }
  setOrDrop(creds, 'accounts', accounts)
  const mcp = objectAt(creds, 'mcp')
  for (const [server, value] of Object.entries(mcpAuth ?? {})) {
    const secrets = mcpSecrets(value)
    if (mcp[server] === undefined && Object.keys(secrets).length > 0) {
      mcp[server] = secrets
      changed = true
    }
  }
  setOrDrop(creds, 'mcp', mcp)
  const keys = objectAt(creds, 'providers')
  const profiles = profilesOf(config)
  let configChanged = false
  for (const [name, p] of Object.entries(profiles)) {
    if (!isObject(p) || typeof p.apiKey !== 'string') continue
    keys[name] = { ...objectAt(keys, name), apiKey: p.apiKey } // the hand-written key wins
    delete p.apiKey
    configChanged = true
  }
  setOrDrop(creds, 'providers', keys)
  if (!changed && !configChanged) return undefined
  return configChanged ? { 'creds.json': creds, 'config.json': config } : { 'creds.json': creds }
}

/** Clears the mode bits of backups a crash left readable. */
function sealBackups(backups: string): void {
  if (!existsSync(backups)) return
  for (const name of readdirSync(backups)) {
    const path = join(backups, name)
    if (name.includes('-before-creds-') && (statSync(path).mode & 0o7777) !== 0) chmodSync(path, 0)
  }
}

/** Runs the migration under the credential lock; returns the notices of this start. */
export async function migrateSecrets(home: string, settings: Settings, now = Date.now): Promise<Notice[]> {
  const backups = join(home, 'backups')
  sealBackups(backups)
  const auth = readLegacy(home, LEGACY_FILES.accounts)
  const mcpAuth = readLegacy(home, LEGACY_FILES.mcp)
  const handKeys = Object.entries(profilesOf(safeConfig(home))).filter(
    ([, p]) => isObject(p) && typeof p.apiKey === 'string',
  )
  if (!auth && !mcpAuth && handKeys.length === 0) {
    await completeCreds(home, settings)
    return []
  }
  const notices: Notice[] = []
  const at = now()
  await settings.update((files) => merged(files, auth, mcpAuth))
  if (handKeys.length > 0)
    notices.push(
      notice(
        'config.json',
        null,
        at,
        handKeys.map(([n]) => n),
      ),
    )
  for (const [legacy, present] of [
    [LEGACY_FILES.accounts, auth],
    [LEGACY_FILES.mcp, mcpAuth],
  ] as const) {
    if (!present) continue
    mkdirSync(backups, { recursive: true, mode: 0o700 })
    const backup = join(backups, `${legacy}-before-creds-${at}`)
    renameSync(join(home, legacy), backup)
    chmodSync(backup, 0)
    notices.push(notice(legacy, `backups/${legacy}-before-creds-${at}`, at, []))
  }
  return notices
}

/**
 * creds.json with its three sections (an older start, or a hand edit, may have left one
 * out, or no file at all): written once, through the settings commit, which adds them.
 * An unreadable file is left alone; GET /settings says why.
 */
async function completeCreds(home: string, settings: Settings): Promise<void> {
  let creds: JsonObject
  try {
    creds = readSettingsFile(home, 'creds.json')
  } catch {
    return
  }
  if (CREDS_SECTIONS.every((section) => isObject(creds[section]))) return
  try {
    await settings.update((files) => ({ 'creds.json': files['creds.json'] }))
  } catch (err) {
    if (!(err instanceof HearthError)) throw err // an unreadable config.json: left for GET /settings
  }
}

function safeConfig(home: string): JsonObject {
  try {
    return readSettingsFile(home, 'config.json')
  } catch {
    return {}
  }
}

function notice(source: string, backup: string | null, at: number, profiles: string[]): Notice {
  return {
    id: `credentials-migrated:${source}:${at}`,
    kind: 'credentials_migrated',
    source,
    backup,
    profiles,
    migrated_at: new Date(at).toISOString(),
  }
}

/** The notices of this start that `ui.dismissed_notices` does not name. Reading consumes nothing. */
export function undismissed(settings: Settings, notices: readonly Notice[]): Notice[] {
  if (notices.length === 0) return []
  let dismissed: unknown = []
  try {
    dismissed = objectAt(settings.files()['config.json'], 'ui').dismissed_notices
  } catch {
    // an unreadable config.json dismisses nothing
  }
  const gone = new Set(Array.isArray(dismissed) ? dismissed : [])
  return notices.filter((n) => !gone.has(n.id))
}
