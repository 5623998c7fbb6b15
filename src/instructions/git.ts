// The git state a run's environment block tells the model: the branch (or the commit when
// detached) and whether tracked files have changes not yet staged. Read from the repository's
// files, never by running git: `git status` in a workspace runs whatever the repository's
// config names (an fsmonitor hook, clean filters), code a model could have written there, on
// the host and outside any sandbox. docs/instructions.md says what is and is not seen.
import { type BigIntStats, lstatSync, readFileSync, type Stats } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { dirname, isAbsolute, join, resolve } from 'node:path'

export interface GitState {
  /** The branch HEAD names, or null when HEAD is detached. */
  branch: string | null
  /** The commit HEAD is at when detached (its first 12 hex digits), else null. */
  detached: string | null
  /**
   * A tracked file differs from the index (changed, removed, its mode changed) or a merge
   * left conflicts: true; none does: false; null when not checked (see MAX_INDEX_ENTRIES and
   * COMPARE_BUDGET_MS).
   */
  unstaged: boolean | null
}

/** Index entries compared with the working tree at most; a larger repository is not checked. */
export const MAX_INDEX_ENTRIES = 20_000
/**
 * How long comparing may go on past the first SLICE entries, counted from the comparison's
 * start (the read may begin before the input's admission is committed, and the commit's
 * time is not the comparison's): it must not hold the first request back. Past it the
 * changes are not told.
 */
export const COMPARE_BUDGET_MS = 2
/**
 * Entries compared in one go, with synchronous lstat calls (several times cheaper than
 * asynchronous ones); other work of the daemon runs between slices. The first slice is
 * always compared, whatever the time, so a small repository is always checked whole.
 */
const SLICE = 256

/** The git state of the repository holding `dir`, or null when `dir` is in none. */
export async function readGitState(dir: string): Promise<GitState | null> {
  const found = findGitDir(resolve(dir))
  if (!found) return null
  // Both files are read at once: each wait for the file system costs a turn of the loop.
  const [head, index] = await Promise.all([
    readFile(join(found.gitDir, 'HEAD'), 'utf8').catch(() => null),
    readFile(join(found.gitDir, 'index')).catch(() => null),
  ])
  if (head === null) return null
  const ref = /^ref:\s*refs\/heads\/(.+)$/m.exec(head)
  const sha = /^[0-9a-f]{40,64}$/m.exec(head.trim())
  return {
    branch: ref ? ref[1].trim() : null,
    detached: ref || !sha ? null : sha[0].slice(0, 12),
    unstaged: await unstagedChanges(index, found.workTree),
  }
}

/**
 * The nearest `.git` at or above `dir`: a directory, or a file naming one (worktrees,
 * submodules). Looked for synchronously, one lstat a level, as the instruction files are
 * (files.ts): a few microseconds, where waiting for the file system would cost the first
 * request a turn of the event loop per level.
 */
function findGitDir(dir: string): { gitDir: string; workTree: string } | null {
  for (let d = dir; ; d = dirname(d)) {
    const dotGit = join(d, '.git')
    const st = lstatQuietly(dotGit)
    if (st?.isDirectory()) return { gitDir: dotGit, workTree: d }
    if (st?.isFile()) {
      const named = /^gitdir:\s*(.+)$/m.exec(readQuietly(dotGit))?.[1].trim()
      if (named) return { gitDir: isAbsolute(named) ? named : resolve(d, named), workTree: d }
    }
    if (dirname(d) === d) return null
  }
}

function lstatQuietly(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false })
  } catch {
    return undefined // ENOTDIR, EACCES…: no repository there
  }
}

function readQuietly(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return ''
  }
}

interface IndexEntry {
  path: string
  mtimeSeconds: number
  mtimeNanos: number
  size: number
  mode: number
  /** Merge stage: not 0 for a conflict. */
  stage: number
  /** assume-unchanged or skip-worktree: git does not compare it either. */
  ignored: boolean
}

/** Whether a tracked file differs from the index by its stat data (git's own first check). */
async function unstagedChanges(bytes: Buffer | null, workTree: string): Promise<boolean | null> {
  const deadline = performance.now() + COMPARE_BUDGET_MS
  if (bytes === null) return false // a repository without an index tracks nothing yet
  const entries = indexEntries(bytes)
  if (entries === null) return null
  let seen = 0
  try {
    // Read as compared, so a comparison the budget stops reads no further.
    for (const e of entries) {
      if (e.stage !== 0) return true
      const submodule = (e.mode & 0o170000) === 0o160000
      if (!e.ignored && !submodule && differs(e, join(workTree, e.path))) return true
      if (++seen % SLICE === 0) {
        if (performance.now() > deadline) return null
        await new Promise((resolve) => setImmediate(resolve))
      }
    }
  } catch {
    return null // a damaged index
  }
  return false
}

function differs(e: IndexEntry, path: string): boolean {
  let st: BigIntStats | undefined
  try {
    st = lstatSync(path, { bigint: true, throwIfNoEntry: false })
  } catch {
    return true // ENOTDIR, EACCES…: not the file the index recorded
  }
  if (!st) return true
  const type = Number(st.mode) & 0o170000
  if (type !== (e.mode & 0o170000)) return true
  if (type === 0o100000 && (Number(st.mode) & 0o100) !== (e.mode & 0o100)) return true
  if (Number(st.size & 0xffffffffn) !== e.size) return true
  if (Number(st.mtimeNs / 1_000_000_000n) !== e.mtimeSeconds) return true
  // Some file systems keep no nanoseconds; git then stores 0 and compares seconds only.
  return e.mtimeNanos !== 0 && Number(st.mtimeNs % 1_000_000_000n) !== e.mtimeNanos
}

/**
 * The entries of an index file (format versions 2 and 3, which git writes unless told
 * otherwise), read one by one; null for another version or more than MAX_INDEX_ENTRIES. The
 * iteration throws on a damaged file.
 */
export function indexEntries(b: Buffer): Iterable<IndexEntry> | null {
  if (b.length < 12 || b.toString('latin1', 0, 4) !== 'DIRC') return null
  const version = b.readUInt32BE(4)
  const count = b.readUInt32BE(8)
  if ((version !== 2 && version !== 3) || count > MAX_INDEX_ENTRIES) return null
  return readEntries(b, version, count)
}

function* readEntries(b: Buffer, version: number, count: number): Generator<IndexEntry> {
  let at = 12
  for (let i = 0; i < count; i++) {
    if (at + 62 > b.length) throw new Error('index cut short')
    const flags = b.readUInt16BE(at + 60)
    const extended = version === 3 && (flags & 0x4000) !== 0
    const extra = extended ? b.readUInt16BE(at + 62) : 0
    const nameAt = at + (extended ? 64 : 62)
    const end = b.indexOf(0, nameAt)
    if (end < 0) throw new Error('index entry without its name')
    yield {
      path: b.toString('utf8', nameAt, end),
      mtimeSeconds: b.readUInt32BE(at + 8),
      mtimeNanos: b.readUInt32BE(at + 12),
      mode: b.readUInt32BE(at + 24),
      size: b.readUInt32BE(at + 36),
      stage: (flags >> 12) & 3,
      ignored: (flags & 0x8000) !== 0 || (extra & 0x4000) !== 0,
    }
    // Each entry is padded with 1 to 8 NUL bytes to a multiple of 8 bytes.
    at += (end - at + 8) & ~7
  }
}
