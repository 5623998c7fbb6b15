// Restoring files to a snapshot. The plan compares three trees per root: the target (what to put
// back), the expected (what the run left) and the current (taken just before the restore); a
// file whose current state differs from the expected one is a conflict.
// Applying writes only inside the roots, whatever runs beside it (a background job, another
// session's command, the person): each path is checked lexically, then the root is held open
// and each directory on a file's way is opened from its parent's descriptor, never through a
// link, its real path checked inside the root (src/util/held-dir.ts). Every change happens in
// the held directory, reached as /proc/self/fd/N/name: the temp file and its rename over the
// target, a link's making, an unlink, the removal of a directory the restore emptied. A
// directory swapped for a symlink at any moment is met as a link and the restore refuses; it
// never writes where the link leads. A link the run itself left where the target has a
// directory is in the plan as a deletion: it is unlinked first, and the directory made in its
// place. Without procfs (other systems) entries are reached by path again and each directory's
// real path is checked as it is opened: a swap between that check and the write is not caught
// there.
import { randomBytes } from 'node:crypto'
import { constants, lstatSync, realpathSync } from 'node:fs'
import { access, chmod, lstat, realpath, rename, rmdir, symlink, unlink, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import {
  type HeldDir,
  holdDir,
  holdSubdir,
  holdSubdirMaking,
  NotHeld,
  type OpenedCheck,
  openedPath,
} from '../util/held-dir.ts'
import { isWithin } from '../util/paths.ts'
import { readBlobs } from './blobs.ts'
import { checkTrees, EMPTY_TREE } from './changes.ts'
import type { RestorePlanItem, RootTree } from './engine.ts'
import { type Git, nulFields } from './git.ts'

interface Side {
  mode: string
  blob: string
}
/** path → [side a, side b] of every file that differs between two trees (no rename pairing). */
type TreeDiff = Map<string, [Side | null, Side | null]>

const ABSENT = '000000'
const WRITABLE_MODES = ['100644', '100755', '120000']
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
  // a link or file the run left where the target has a directory of a chosen file goes too
  const inTheWay = (p: string) =>
    targetToExpected.get(p)?.[0] === null && files?.some((f) => f.startsWith(`${p}/`))
  const paths = files
    ? [...changed.filter((p) => chosen(p, files) || inTheWay(p)), ...unchanged]
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
  checkTrees(target, expected, current)
  const roots = [...new Set([...target, ...expected, ...current].map((r) => r.root))]
  const treeOf = (side: RootTree[], root: string) => side.find((r) => r.root === root)?.tree ?? EMPTY_TREE
  return roots.map((root) => ({
    root,
    trees: { target: treeOf(target, root), expected: treeOf(expected, root), current: treeOf(current, root) },
  }))
}

/**
 * Leaves out of the plan the files on disk now that a take does not capture (over the size
 * bound, or unreadable): their content is in no snapshot, so writing or deleting them could
 * not be undone. They are never touched.
 */
export async function withoutUncaptured(
  root: string,
  items: RestorePlanItem[],
  maxFileBytes: number,
): Promise<RestorePlanItem[]> {
  const realRoot = await realpath(root).catch(() => null)
  if (!realRoot) return items
  const uncaptured = await Promise.all(
    items.map(async (item) => {
      if (item.action === 'keep') return false
      const file = join(realRoot, ...pathParts(item.path))
      const info = await lstat(file).catch(() => null)
      if (info?.isFile() !== true) return false
      if (info.size > maxFileBytes) return true
      return access(file, constants.R_OK).then(
        () => false,
        () => true,
      )
    }),
  )
  return items.filter((_, i) => !uncaptured[i])
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
 * A root held open for one apply, with the check every directory under it must pass when
 * opened: its real path (what the descriptor names on Linux; without procfs, the path
 * resolved) inside the root and outside hearth's home.
 */
interface HeldRoot {
  real: string
  dir: HeldDir
  check: OpenedCheck
}

function holdRoot(realRoot: string, realHome: string): HeldRoot {
  const check: OpenedCheck = (fd, path) => {
    const opened = openedPath(fd) ?? realpathSync(path)
    if (!isWithin(opened, realRoot)) return 'leads outside the root'
    return isWithin(opened, realHome) ? "leads into hearth's home" : null
  }
  try {
    return { real: realRoot, dir: holdDir(realRoot, check), check }
  } catch (err) {
    throw new Error(`refused to restore into ${realRoot}: it could not be opened as a directory`, {
      cause: err,
    })
  }
}

/** The refusal for a directory on the way to `path` that could not be held. */
function refusal(root: HeldRoot, path: string, parent: HeldDir, part: string, err: NotHeld): Error {
  const shown = relative(root.real, join(parent.path, part))
  if (err.reason === 'outside')
    return new Error(
      `refused to restore ${path}: ${shown} ${err.cause instanceof Error ? err.cause.message : 'leads outside the root'}`,
    )
  if (err.reason !== 'link')
    return new Error(`could not restore ${path}: ${shown} could not be opened`, { cause: err.cause })
  let where = 'a link'
  try {
    if (lstatSync(parent.at(part)).isSymbolicLink()) {
      const real = realpathSync(parent.at(part))
      where = isWithin(real, root.real)
        ? 'a link (a restore never writes through one)'
        : 'a link that leads outside the root'
    } else where = 'not a directory'
  } catch {
    where = 'a link that leads outside the root' // dangling: nowhere a restore may follow
  }
  return new Error(`refused to restore ${path}: ${shown} is ${where}`)
}

/**
 * Runs `use` in the held parent directory of `path` with the file's name: each directory on
 * the way is opened from its parent's descriptor, never through a link, and checked (missing
 * ones are made inside their held parent when `create`; otherwise `use` is not run and the
 * answer is null). Throws the refusal when a directory on the way is a link or leads outside.
 */
async function inParent<T>(
  root: HeldRoot,
  path: string,
  create: boolean,
  use: (dir: HeldDir, name: string) => Promise<T>,
  ownNonDirs: ReadonlySet<string> = NONE,
): Promise<T | null> {
  const parts = pathParts(path)
  const name = parts.pop() as string
  let dir = root.dir
  try {
    for (const [i, part] of parts.entries()) {
      let next: HeldDir
      try {
        next = create ? holdSubdirMaking(dir, part, root.check) : holdSubdir(dir, part, root.check)
      } catch (err) {
        if (!(err instanceof NotHeld)) throw err
        if (err.reason === 'missing' && !create) return null
        // the plan's own link or file (ownNonDirs): nothing on the way to check or delete under it
        if (err.reason === 'link' && ownNonDirs.has(parts.slice(0, i + 1).join('/'))) return null
        throw refusal(root, path, dir, part, err)
      }
      if (dir !== root.dir) dir.close()
      dir = next
    }
    return await use(dir, name)
  } finally {
    if (dir !== root.dir) dir.close()
  }
}

const NONE: ReadonlySet<string> = new Set()

/**
 * For each item, the paths on its way where a link or file met is the plan's own: for a write,
 * those the plan deletes (gone first, a directory then made there inside the held parent); for
 * a delete, those it deletes or writes as well (a link or file the plan puts there has nothing
 * under it left to delete: met when the plan is applied again).
 */
function ownNonDirsOf(items: RestorePlanItem[]): (item: RestorePlanItem) => ReadonlySet<string> {
  const deleted = new Set(items.filter((i) => i.action === 'delete').map((i) => i.path))
  const put = new Set([...deleted, ...items.filter((i) => i.action === 'write').map((i) => i.path)])
  return (item) => (item.action === 'delete' ? put : deleted)
}

/**
 * Checks every item of one root before anything is written: a plain path, not in hearth's home,
 * no existing parent that is a link or leads outside the root, except a link or file the plan
 * itself deletes (apply deletes first, then makes a directory there inside the held parent). A
 * refusal leaves every root as it was. (Apply checks each directory again as it holds it: this
 * check only spares a half-applied plan in the common case.)
 */
export async function checkRoot(root: string, items: RestorePlanItem[], realHome: string): Promise<void> {
  const realRoot = await realpath(root)
  for (const item of items) {
    if (item.action === 'keep') continue
    if (isWithin(join(realRoot, ...pathParts(item.path)), realHome)) {
      throw new Error(`refused to restore ${item.path}: it is in hearth's home`)
    }
    const writable = /^[0-9a-f]{40}$/.test(item.blob ?? '') && WRITABLE_MODES.includes(item.mode ?? '')
    if (item.action === 'write' && !writable) {
      throw new Error(`restore plan of ${item.path}: a write without a blob and mode it can write`)
    }
  }
  const ownNonDirs = ownNonDirsOf(items)
  const held = holdRoot(realRoot, realHome)
  try {
    for (const item of items) {
      if (item.action === 'keep') continue
      await inParent(held, item.path, false, async () => {}, ownNonDirs(item))
    }
  } finally {
    held.dir.close()
  }
}

/**
 * Applies the items of one root, every change made through held directories (inParent): what
 * the target removes goes first, shallowest first (a link or file standing where the target has
 * a directory is unlinked in its held parent, never followed), then the directories it emptied,
 * then the writes make the directories they need and put the files. Applied again, each step
 * finds its work done.
 */
export async function applyRoot(
  git: Git,
  root: string,
  items: RestorePlanItem[],
  realHome: string,
): Promise<void> {
  const held = holdRoot(await realpath(root), realHome)
  try {
    await applyHeld(git, held, items)
  } finally {
    held.dir.close()
  }
}

async function applyHeld(git: Git, root: HeldRoot, items: RestorePlanItem[]): Promise<void> {
  const deletes = items.filter((i) => i.action === 'delete').sort((a, b) => depth(a.path) - depth(b.path))
  const ownNonDirs = ownNonDirsOf(items)
  for (const item of deletes) await deleteFile(root, item.path, ownNonDirs(item))
  for (const item of deletes) await removeEmptyParents(root, item.path)
  const writes = items.filter((i) => i.action === 'write')
  const byBlob = new Map<string, RestorePlanItem[]>()
  for (const item of writes) {
    const blob = item.blob as string
    byBlob.set(blob, [...(byBlob.get(blob) ?? []), item])
  }
  // up to WRITES_AT_ONCE files are written at a time, each blob held until its files are
  const pending = new Set<Promise<void>>()
  let failure: unknown = null
  await readBlobs(git, [...byBlob.keys()], async (blob, content) => {
    for (const item of byBlob.get(blob) ?? []) {
      const write: Promise<void> = writeItem(root, item, content)
        .catch((e) => {
          failure ??= e
        })
        .finally(() => pending.delete(write))
      pending.add(write)
      if (pending.size >= WRITES_AT_ONCE) await Promise.race(pending)
      if (failure) throw failure
    }
  })
  await Promise.all(pending)
  if (failure) throw failure
}

const WRITES_AT_ONCE = 16

const depth = (path: string) => path.split('/').length

async function deleteFile(root: HeldRoot, path: string, ownNonDirs: ReadonlySet<string>): Promise<void> {
  const unlinkHere = async (dir: HeldDir, name: string) => {
    try {
      await unlink(dir.at(name))
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code !== 'ENOENT' && code !== 'EISDIR' && code !== 'EPERM') throw e // a directory there now: left as it is
    }
  }
  await inParent(root, path, false, unlinkHere, ownNonDirs)
}

/** Removes the directories above a deleted file that are now empty, up to the root. */
async function removeEmptyParents(root: HeldRoot, path: string): Promise<void> {
  const parts = pathParts(path).slice(0, -1)
  while (parts.length > 0) {
    try {
      // rmdir removes only an empty directory, never a link (ENOTDIR)
      await inParent(root, parts.join('/'), false, (dir, name) => rmdir(dir.at(name)))
    } catch {
      return // not empty, not there, or a link on the way: left as it is
    }
    parts.pop()
  }
}

async function writeItem(root: HeldRoot, item: RestorePlanItem, content: Buffer): Promise<void> {
  await inParent(root, item.path, true, async (dir, name) => {
    const temp = dir.at(`.${randomBytes(6).toString('hex')}.hearth-restore`)
    try {
      if (item.mode === '120000') await symlink(content.toString('utf8'), temp)
      else {
        const mode = item.mode === '100755' ? 0o755 : 0o644
        await writeFile(temp, content, { mode, flag: 'wx' })
        await chmod(temp, mode) // the umask does not decide a restored file's mode
      }
      await replace(temp, dir.at(name))
    } catch (e) {
      await unlink(temp).catch(() => {})
      throw e
    }
  })
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
