// Restoring files to a snapshot. The plan compares three trees per root: the target (what to put
// back), the expected (what the run left) and the current (taken just before the restore); a
// file whose current state differs from the expected one is a conflict. Applying writes only
// inside the roots: each path is checked lexically, its parent directory must resolve inside
// the root (a symlink planted by a command is refused), files are written to a temp file and
// renamed over, deletions are unlinks, and directories a restore left empty are removed.
import { randomBytes } from 'node:crypto'
import { chmod, lstat, mkdir, realpath, rename, rmdir, symlink, unlink, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { isWithin } from '../util/paths.ts'
import { readBlobs } from './blobs.ts'
import { EMPTY_TREE } from './changes.ts'
import type { RestorePlanItem, RootTree } from './engine.ts'
import { type Git, nulFields } from './git.ts'

interface Side {
  mode: string
  blob: string
}
/** path → [side a, side b] of every file that differs between two trees (no rename pairing). */
type TreeDiff = Map<string, [Side | null, Side | null]>

const ABSENT = '000000'
const GITLINK = '160000'

async function treeDiff(git: Git, a: string, b: string): Promise<TreeDiff> {
  const out: TreeDiff = new Map()
  if (a === b) return out
  const { stdout } = await git.run(['diff-tree', '-r', '-z', '--no-renames', '--raw', a, b])
  const fields = nulFields(stdout)
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [oldMode, newMode, oldBlob, newBlob] = fields[i].slice(1).split(' ')
    const side = (mode: string, blob: string) => (mode === ABSENT ? null : { mode, blob })
    out.set(fields[i + 1], [side(oldMode, oldBlob), side(newMode, newBlob)])
  }
  return out
}

const sameSide = (x: Side | null, y: Side | null) => x?.mode === y?.mode && x?.blob === y?.blob

/** Whether `path` is chosen by one of `wanted` (a file, or a directory and all under it). */
function chosen(path: string, wanted: readonly string[]): boolean {
  return wanted.some((w) => path === w || path.startsWith(`${w.replace(/\/+$/, '')}/`))
}

/** The plan of one root. */
export async function planRoot(
  git: Git,
  root: string,
  trees: { target: string; expected: string; current: string },
  files: readonly string[] | null,
): Promise<RestorePlanItem[]> {
  const [targetToExpected, targetToCurrent, expectedToCurrent] = await Promise.all([
    treeDiff(git, trees.target, trees.expected),
    treeDiff(git, trees.target, trees.current),
    treeDiff(git, trees.expected, trees.current),
  ])
  const changed = [...new Set([...targetToExpected.keys(), ...targetToCurrent.keys()])]
  // a chosen path that names no changed file and no directory of one is a file already at the target
  const unchanged = (files ?? []).filter((f) => !changed.some((p) => chosen(p, [f])))
  const paths = files
    ? [...changed.filter((p) => chosen(p, files)), ...unchanged]
    : [...targetToExpected.keys()]
  const items: RestorePlanItem[] = []
  for (const path of paths.sort()) {
    const pair = targetToCurrent.get(path)
    const target = pair ? pair[0] : null
    if (pair && (pair[0]?.mode === GITLINK || pair[1]?.mode === GITLINK)) continue // nested repositories stay as they are
    if (!pair || sameSide(pair[0], pair[1])) {
      items.push({ root, path, action: 'keep', conflict: false, mode: null, blob: null })
      continue
    }
    const conflict = expectedToCurrent.has(path)
    if (!target) items.push({ root, path, action: 'delete', conflict, mode: null, blob: null })
    else items.push({ root, path, action: 'write', conflict, mode: target.mode, blob: target.blob })
  }
  return items
}

/** The target, expected and current trees of every root named on any side (empty where absent). */
export function rootsOfPlan(target: RootTree[], expected: RootTree[], current: RootTree[]) {
  const roots = [...new Set([...target, ...expected, ...current].map((r) => r.root))]
  const treeOf = (side: RootTree[], root: string) => side.find((r) => r.root === root)?.tree ?? EMPTY_TREE
  return roots.map((root) => ({
    root,
    trees: { target: treeOf(target, root), expected: treeOf(expected, root), current: treeOf(current, root) },
  }))
}

/** Leaves out of the plan the files over the size bound on disk now: never captured, never touched. */
export async function withoutLargeFiles(
  root: string,
  items: RestorePlanItem[],
  maxFileBytes: number,
): Promise<RestorePlanItem[]> {
  const realRoot = await realpath(root).catch(() => null)
  if (!realRoot) return items
  const large = await Promise.all(
    items.map(async (item) => {
      if (item.action === 'keep') return false
      const info = await lstat(join(realRoot, ...pathParts(item.path))).catch(() => null)
      return info?.isFile() === true && info.size > maxFileBytes
    }),
  )
  return items.filter((_, i) => !large[i])
}

/** A snapshot path as its parts: relative, `/`-separated, no `.`/`..`/empty parts, never in `.git`. */
export function pathParts(path: string): string[] {
  const parts = path.split('/')
  const bad = path.includes('\0') || path.startsWith('/') || path.includes('\\')
  if (bad || parts.some((p) => p === '' || p === '.' || p === '..' || p.toLowerCase() === '.git')) {
    throw new Error(`refused to restore ${JSON.stringify(path)}: not a plain path inside the root`)
  }
  return parts
}

/**
 * The absolute path of `path` under the real root, its parent directory created (when `create`)
 * and checked to resolve inside the root; null when the parent does not exist and is not wanted.
 */
async function confined(realRoot: string, path: string, create: boolean): Promise<string | null> {
  const parts = pathParts(path)
  const file = join(realRoot, ...parts)
  if (!isWithin(file, realRoot) || file === realRoot)
    throw new Error(`refused to restore ${path}: outside the root`)
  let dir = realRoot
  for (const part of parts.slice(0, -1)) {
    dir = join(dir, part)
    let info: Awaited<ReturnType<typeof lstat>> | null = null
    try {
      info = await lstat(dir)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
    }
    if (!info) {
      if (!create) return null
      await mkdir(dir)
      continue
    }
    if (info.isSymbolicLink() && !isWithin(await realpath(dir), realRoot)) {
      throw new Error(`refused to restore ${path}: ${dir} is a link that leads outside the root`)
    }
  }
  const parent = await realpath(dirname(file))
  if (!isWithin(parent, realRoot))
    throw new Error(`refused to restore ${path}: its directory is outside the root`)
  return join(parent, parts.at(-1) as string)
}

/** Applies the items of one root (deletions first, so a file can replace a directory and back). */
export async function applyRoot(git: Git, root: string, items: RestorePlanItem[]): Promise<void> {
  const realRoot = await realpath(root)
  // every path checked before anything is written: a refused one leaves the root as it was
  for (const item of items) if (item.action !== 'keep') await confined(realRoot, item.path, false)
  const deletes = items.filter((i) => i.action === 'delete')
  for (const item of deletes) await deleteFile(realRoot, item.path)
  for (const item of deletes) await removeEmptyParents(realRoot, item.path)
  const writes = items.filter((i) => i.action === 'write')
  const byBlob = new Map<string, RestorePlanItem[]>()
  for (const item of writes) {
    if (!item.blob || !item.mode) throw new Error(`restore plan of ${item.path}: a write without its blob`)
    byBlob.set(item.blob, [...(byBlob.get(item.blob) ?? []), item])
  }
  await readBlobs(git, [...byBlob.keys()], async (blob, content) => {
    for (const item of byBlob.get(blob) ?? []) await writeItem(realRoot, item, content)
  })
}

async function deleteFile(realRoot: string, path: string): Promise<void> {
  const file = await confined(realRoot, path, false)
  if (!file) return
  try {
    await unlink(file)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code !== 'ENOENT' && code !== 'EISDIR' && code !== 'EPERM') throw e // a directory there now: left as it is
  }
}

/** Removes the directories above a deleted file that are now empty, up to the root. */
async function removeEmptyParents(realRoot: string, path: string): Promise<void> {
  const parts = pathParts(path).slice(0, -1)
  while (parts.length > 0) {
    const dir = join(realRoot, ...parts)
    try {
      const info = await lstat(dir)
      if (!info.isDirectory()) return
      await rmdir(dir)
    } catch {
      return // not empty, or not there
    }
    parts.pop()
  }
}

async function writeItem(realRoot: string, item: RestorePlanItem, content: Buffer): Promise<void> {
  const file = (await confined(realRoot, item.path, true)) as string
  const temp = join(dirname(file), `.${randomBytes(6).toString('hex')}.hearth-restore`)
  try {
    if (item.mode === '120000') await symlink(content.toString('utf8'), temp)
    else {
      const mode = item.mode === '100755' ? 0o755 : 0o644
      await writeFile(temp, content, { mode, flag: 'wx' })
      await chmod(temp, mode) // the umask does not decide a restored file's mode
    }
    await replace(temp, file)
  } catch (e) {
    await unlink(temp).catch(() => {})
    throw e
  }
}

/** Renames over the destination; an empty directory in the way (a file that was one) goes first. */
async function replace(temp: string, file: string): Promise<void> {
  try {
    await rename(temp, file)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code !== 'EISDIR' && code !== 'ENOTEMPTY' && code !== 'EEXIST') throw e
    await rmdir(file)
    await rename(temp, file)
  }
}
