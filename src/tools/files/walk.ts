// The directory walk under list, glob and grep's built-in engine. It goes down through
// held directories (held-dir.ts): each subdirectory is opened from its parent's descriptor
// and never through a symlink, so a link swapped in while the walk runs is met as a link (or
// the subdirectory as gone), never followed, and nothing outside the held start is reached.
// It skips the ignored directory names, hearth's home and the hidden paths, reads each directory's names in
// byte order (as `rg --sort path` does, so both grep engines agree), and stops at a budget
// of entries so a huge tree cannot hold a call for long.
import type { Dirent } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { hearthHomePath, type Roots } from '../confine.ts'
import { isHiddenPath } from '../hidden-paths.ts'
import { type HeldDir, holdSubdir } from './held-dir.ts'

/** Directory names skipped unless asked for: version-control data and installed packages. */
export const IGNORED_DIRS: readonly string[] = ['.git', 'node_modules']

export type EntryKind = 'file' | 'dir' | 'symlink' | 'other'

export interface WalkEntry {
  /** The entry's path under the start's real path (what the model is shown). */
  abs: string
  /** A path that reaches this very entry through its held directory; valid until the walk moves on. */
  at: string
  /** Relative to the walk's start, with `/` separators. */
  rel: string
  kind: EntryKind
  /** 1 for the start's own entries. */
  depth: number
}

export interface WalkOptions {
  /** Directory names not descended into (nor reported). */
  ignore: ReadonlySet<string>
  /** Deepest level reported (1: the start's entries only). */
  maxDepth: number
  /** Entries looked at before the walk gives up. */
  maxEntries: number
  signal: AbortSignal
  /** The roots every directory descended into must still lie in. */
  roots: Roots
}

export interface WalkStats {
  visited: number
  /** The entry budget ran out before the tree did. */
  exhausted: boolean
  /** Ignored directories met (names relative to the start). */
  ignored: string[]
  /** Directories that could not be read (permissions, removed meanwhile). */
  unreadable: number
}

export function newWalkStats(): WalkStats {
  return { visited: 0, exhausted: false, ignored: [], unreadable: 0 }
}

function kindOf(d: Dirent): EntryKind {
  if (d.isSymbolicLink()) return 'symlink'
  if (d.isDirectory()) return 'dir'
  if (d.isFile()) return 'file'
  return 'other'
}

const byteOrder = (a: Dirent, b: Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

export async function* walk(
  dir: HeldDir,
  opts: WalkOptions,
  stats: WalkStats,
  rel = '',
  depth = 1,
): AsyncGenerator<WalkEntry> {
  let names: Dirent[]
  try {
    names = await readdir(dir.at(), { withFileTypes: true })
  } catch {
    stats.unreadable++
    return
  }
  names.sort(byteOrder)
  const home = hearthHomePath()
  for (const d of names) {
    if (opts.signal.aborted) return
    if (stats.visited >= opts.maxEntries) {
      stats.exhausted = true
      return
    }
    const abs = join(dir.path, d.name)
    const entryRel = rel === '' ? d.name : `${rel}/${d.name}`
    const kind = kindOf(d)
    if (kind === 'dir' && opts.ignore.has(d.name)) {
      stats.ignored.push(entryRel)
      continue
    }
    if (home !== null && abs === home) continue
    if (isHiddenPath(abs)) continue
    stats.visited++
    yield { abs, at: dir.at(d.name), rel: entryRel, kind, depth }
    if (kind === 'dir' && depth < opts.maxDepth)
      yield* walkInto(dir, d.name, opts, stats, entryRel, depth + 1)
  }
}

/** Walks a subdirectory, held from its parent; one that turned into a link meanwhile is skipped. */
async function* walkInto(
  parent: HeldDir,
  name: string,
  opts: WalkOptions,
  stats: WalkStats,
  rel: string,
  depth: number,
): AsyncGenerator<WalkEntry> {
  let sub: HeldDir
  try {
    sub = holdSubdir(parent, name, opts.roots)
  } catch {
    stats.unreadable++
    return
  }
  try {
    yield* walk(sub, opts, stats, rel, depth)
  } finally {
    sub.close()
  }
}
