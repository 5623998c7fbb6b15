// The settings files and their all-or-nothing commit. A PATCH may change config.json,
// creds.json and extensions.json together; a crash must leave all of them old or all new.
//
// Commit protocol (a roll-forward journal beside the files, never in state.db, so secrets
// stay in creds.json and its short-lived next version only):
//   1. each new file is written in full to `<name>.next` (0600, fsynced);
//   2. the journal `settings.journal` names them (written atomically, fsynced): this is the
//      commit point;
//   3. each `<name>.next` is renamed over `<name>` and the directory fsynced;
//   4. the journal is removed.
// At start, `recoverCommit` finishes step 3 when a journal exists (roll forward) and
// removes stray `.next` files when none does (the commit never happened: roll back).
import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
} from 'node:fs'
import { join } from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import { HearthError } from '../schemas/problems.ts'

/** The files a settings commit may touch, by their name in the home. */
export const SETTINGS_FILES = ['config.json', 'creds.json', 'extensions.json'] as const
export type SettingsFile = (typeof SETTINGS_FILES)[number]

export type JsonObject = Record<string, unknown>
export type FileContents = Record<SettingsFile, JsonObject>

const JOURNAL = 'settings.journal'

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v)

/** The last parse of each file, keyed by what a change of the file would change. */
const parsed = new Map<string, { stamp: string; value: JsonObject }>()
/**
 * Reads one settings file: missing is `{}`. A file that is not a JSON object is an error
 * whose detail names the file and never quotes it (config.json may hold a hand-written key).
 * Sessions, runs and GET /server read settings often: a file whose inode, size and
 * modification time are unchanged is not read and parsed again (a commit renames a new
 * inode into place; a hand edit changes the time). Callers get their own copy.
 */
export function readSettingsFile(home: string, name: SettingsFile): JsonObject {
  return copyJson(readChecked(join(home, name), name)) as JsonObject
}

/**
 * A deep copy of parsed JSON (objects, arrays and primitives only): what structuredClone
 * makes of it, several times faster on the small objects settings are (~19 against ~4 µs a
 * config.json; each step of a run reads the settings half a dozen times).
 */
function copyJson(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) return value.map(copyJson)
  const out: JsonObject = {}
  for (const key of Object.keys(value)) {
    const copy = copyJson((value as JsonObject)[key])
    // A `__proto__` key of the file stays a key, as JSON.parse made it, not a prototype.
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true })
    else out[key] = copy
  }
  return out
}

/** The file as it is now: read and parsed again only when its stat says it changed. */
function readChecked(path: string, name: SettingsFile): JsonObject {
  // No exception for a missing file: most homes have no extensions.json, and a create reads
  // the settings once.
  const st = statSync(path, { bigint: true, throwIfNoEntry: false })
  if (!st) return {}
  const stamp = `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`
  const cached = parsed.get(path)
  if (cached?.stamp === stamp) return cached.value
  const value = parseSettings(name, readFileSync(path, 'utf8'))
  parsed.set(path, { stamp, value })
  return value
}

function parseSettings(name: SettingsFile, text: string): JsonObject {
  if (text.trim() === '') return {}
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new HearthError('settings_unreadable', `${name} is not valid JSON; fix or remove it`)
  }
  if (!isObject(value)) throw new HearthError('settings_unreadable', `${name} does not hold a JSON object`)
  return value
}

export function readAllSettings(home: string): FileContents {
  return {
    'config.json': readSettingsFile(home, 'config.json'),
    'creds.json': readSettingsFile(home, 'creds.json'),
    'extensions.json': readSettingsFile(home, 'extensions.json'),
  }
}

function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** JSON as the files keep it: two-space indented (hand-editable), newline at the end. */
export const fileText = (value: JsonObject) => `${JSON.stringify(value, null, 2)}\n`

/** The sections creds.json always has, in this order (protocol 3, "Credentials file"). */
export const CREDS_SECTIONS = ['accounts', 'providers', 'mcp'] as const

/**
 * creds.json as it is written: its three sections first, an empty one as `{}` (code that
 * empties a section may drop it; the file still shows it), then anything else kept as it is.
 */
export function withCredsSections(creds: JsonObject): JsonObject {
  const out: JsonObject = {}
  for (const section of CREDS_SECTIONS) out[section] = isObject(creds[section]) ? creds[section] : {}
  for (const [key, value] of Object.entries(creds)) if (!(key in out)) out[key] = value
  return out
}

/** Commits the given files together (see the protocol above). Every file is written 0600. */
export function commitFiles(home: string, changed: Partial<FileContents>): void {
  const names = SETTINGS_FILES.filter((n) => changed[n] !== undefined)
  if (names.length === 0) return
  for (const name of names) {
    const value = changed[name] as JsonObject
    const text = fileText(name === 'creds.json' ? withCredsSections(value) : value)
    writeFileAtomic.sync(join(home, `${name}.next`), text, {
      mode: 0o600,
      fsync: true,
    })
  }
  writeFileAtomic.sync(join(home, JOURNAL), `${JSON.stringify({ files: names })}\n`, {
    mode: 0o600,
    fsync: true,
  })
  rollForward(home, names)
}

function rollForward(home: string, names: readonly string[]): void {
  for (const name of names) {
    const next = join(home, `${name}.next`)
    if (existsSync(next)) renameSync(next, join(home, name))
  }
  fsyncDir(home) // the renames are durable before the journal goes
  // Not fsynced: a journal that comes back after a crash only repeats renames already done.
  unlinkSync(join(home, JOURNAL))
}

/** At start: finish a commit a crash interrupted, or discard one that never reached its journal. */
export function recoverCommit(home: string): 'none' | 'rolled_forward' | 'rolled_back' {
  const journal = join(home, JOURNAL)
  if (existsSync(journal)) {
    let names: string[] = []
    try {
      const parsed = JSON.parse(readFileSync(journal, 'utf8')) as { files?: unknown }
      if (Array.isArray(parsed.files)) {
        names = parsed.files.filter((n): n is string => (SETTINGS_FILES as readonly unknown[]).includes(n))
      }
    } catch {
      // write-file-atomic renames a complete journal into place: a torn one cannot exist.
    }
    rollForward(home, names)
    return 'rolled_forward'
  }
  let removed = false
  for (const name of SETTINGS_FILES) {
    const next = join(home, `${name}.next`)
    if (existsSync(next)) {
      unlinkSync(next)
      removed = true
    }
  }
  return removed ? 'rolled_back' : 'none'
}
