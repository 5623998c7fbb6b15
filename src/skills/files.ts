// Finding skill folders and command files: the workspace's `.hearth/<kind>/` and hearth's
// home `<kind>/`. Every file is resolved to its real path and must still lie inside its
// root's base (the workspace, or hearth's home): a symlink that leads out is skipped with a
// reason, as the read tool would refuse it. Files are read with a cap, opened without
// following a last symlink or blocking on a FIFO, and read again only when their identity
// (device, inode, size, times) changed.
import { closeSync, constants, fstatSync, openSync, readdirSync, realpathSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { isWithin } from '../util/paths.ts'
import { decode, readPrefix } from '../util/text-file.ts'

export type Scope = 'workspace' | 'global'

/** A file found under a root, with its text (capped) or why it is not used. */
export interface Found {
  /** The entry's own name in the root directory (a skill's folder, a command's file). */
  entry: string
  /** The path as found (under the root, not resolved). */
  path: string
  scope: Scope
  text: string | null
  /** Only the beginning of the file is in `text`. */
  truncated: boolean
  reason: string | null
}

/** Entries of one root looked at at most; the rest are left out (a runaway directory). */
export const MAX_ENTRIES = 500
const CACHE_LIMIT = 2048

interface Cached {
  identity: string
  text: string | null
  truncated: boolean
  reason: string | null
}

export class RootFiles {
  readonly #cache = new Map<string, Cached>()

  /**
   * The files of `rootDir` (absolute) whose real paths lie within `base`: for each entry,
   * `pick(entry)` names the file to read relative to the root (null: not one of ours).
   */
  list(
    rootDir: string,
    base: string,
    scope: Scope,
    pick: (entry: string) => string | null,
    maxBytes: number,
  ): Found[] {
    let entries: string[]
    try {
      entries = readdirSync(rootDir).sort()
    } catch {
      return [] // no such directory: nothing of this kind here
    }
    let realBase: string
    try {
      realBase = realpathSync(base)
    } catch {
      return []
    }
    const out: Found[] = []
    for (const entry of entries.slice(0, MAX_ENTRIES)) {
      const rel = pick(entry)
      if (rel === null) continue
      const path = join(rootDir, rel)
      out.push({ entry, path, scope, ...this.#read(path, realBase, maxBytes) })
    }
    return out
  }

  #read(path: string, realBase: string, maxBytes: number): Omit<Found, 'entry' | 'path' | 'scope'> {
    let real: string
    try {
      real = realpathSync(path)
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      return miss(code === 'ENOENT' ? 'missing' : `cannot be resolved (${code ?? 'error'})`)
    }
    if (!isWithin(real, realBase))
      return miss(`leads through a symbolic link to ${real}, outside ${realBase}`)
    let identity: string
    try {
      const st = statSync(real)
      identity = `${real}:${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}:${maxBytes}`
    } catch {
      return miss('cannot be examined')
    }
    const hit = this.#cache.get(path)
    if (hit && hit.identity === identity) return hit
    const entry = { identity, ...readCapped(real, maxBytes) }
    if (this.#cache.size >= CACHE_LIMIT) this.#cache.clear()
    this.#cache.set(path, entry)
    return entry
  }
}

function miss(reason: string): Omit<Found, 'entry' | 'path' | 'scope'> {
  return { text: null, truncated: false, reason: reason === 'missing' ? null : reason }
}

/** Reads at most `maxBytes` of a regular file as strict UTF-8. */
function readCapped(real: string, maxBytes: number): Omit<Cached, 'identity'> {
  let fd: number
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY)
  } catch {
    return { text: null, truncated: false, reason: 'unreadable' }
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) return { text: null, truncated: false, reason: 'not a regular file' }
    const { bytes, truncated } = readPrefix(fd, st.size, maxBytes)
    const text = decode(bytes, truncated)
    if (text === null) return { text: null, truncated: false, reason: 'not UTF-8 text' }
    return { text, truncated, reason: null }
  } catch {
    return { text: null, truncated: false, reason: 'unreadable' }
  } finally {
    closeSync(fd)
  }
}

/** The two roots of a kind, workspace first (its entries win over the home's of a name). */
export function rootsOf(
  kind: 'skills' | 'commands',
  workspace: string,
  home: string | null,
): { dir: string; base: string; scope: Scope }[] {
  const ws = resolve(workspace)
  const roots: { dir: string; base: string; scope: Scope }[] = [
    { dir: join(ws, '.hearth', kind), base: ws, scope: 'workspace' },
  ]
  if (home !== null) roots.push({ dir: join(resolve(home), kind), base: resolve(home), scope: 'global' })
  return roots
}
