// Taking a snapshot of one root: the private index keeps git's stat data, so only what git
// lists as new, modified or deleted is looked at; of those, files over the size bound and files
// that cannot be read are left out (and named), the rest added; then the index becomes a tree.
import { constants } from 'node:fs'
import { access, lstat, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { SkippedFile } from './engine.ts'
import { GitError, nulFields } from './git.ts'
import { clearStaleLock, type RootRepo, type SnapshotStore, syncExclude } from './store.ts'

export interface RootCapture {
  tree: string
  skipped: SkippedFile[]
}

/** What the last take of a root wrote, so an unchanged root needs no write-tree. */
interface TreeMemo {
  index: string
  tree: string
}

const memo = new Map<string, TreeMemo>()

/** Takes one root's snapshot under refs/hearth/<id>; runs in the root's queue. */
export function takeRoot(
  store: SnapshotStore,
  repo: RootRepo,
  id: string,
  maxFileBytes: number,
  signal?: AbortSignal,
): Promise<RootCapture> {
  return store.queue.run(repo.key, async () => {
    signal?.throwIfAborted()
    await clearStaleLock(repo.git.gitDir)
    await syncExclude(repo)
    const candidates = await listCandidates(repo, signal)
    const sorted = await sortCandidates(repo, candidates, maxFileBytes)
    const skipped: SkippedFile[] = sorted.skipped.map((s) => ({ root: repo.root, ...s }))
    if (sorted.add.length > 0) skipped.push(...(await addPaths(repo, sorted.add, signal)))
    if (sorted.untrack.length > 0) await untrack(repo, sorted.untrack, signal)
    const tree = await writeTree(repo, signal)
    await store.commit(repo.git, tree, id, repo.root)
    return { tree, skipped }
  })
}

interface Candidate {
  path: string
  tracked: boolean
}

/**
 * What git sees as untracked (not ignored), modified or deleted against the private index:
 * `git status` with HEAD at the root's last snapshot. Unlike `ls-files` it uses the untracked
 * cache (a directory whose mtime did not change is not read again) and refreshes stat data in
 * threads. Only the work tree column matters: what differs from the private index.
 */
async function listCandidates(repo: RootRepo, signal?: AbortSignal): Promise<Candidate[]> {
  const status = [
    'status',
    '--porcelain=v2',
    '-z',
    '--untracked-files=all',
    '--no-renames',
    '--ignore-submodules=dirty',
  ]
  const { stdout } = await repo.git.run(status, { signal }).catch(async (e) => {
    // a HEAD whose commit is unreadable (lost in a crash): start again from an unborn one
    await writeFile(join(repo.git.gitDir, 'HEAD'), 'ref: refs/heads/none\n')
    if (signal?.aborted) throw e
    return repo.git.run(status, { signal })
  })
  const out: Candidate[] = []
  for (const field of nulFields(stdout)) {
    if (field.startsWith('? ')) out.push({ path: field.slice(2), tracked: false })
    else if (field.startsWith('1 ') && field[3] !== '.') {
      out.push({ path: field.split(' ').slice(8).join(' '), tracked: true })
    }
  }
  return out
}

interface Sorted {
  add: string[]
  /** Tracked paths now too large or unreadable: out of the index, so the tree does not lie. */
  untrack: string[]
  skipped: Omit<SkippedFile, 'root'>[]
}

async function sortCandidates(
  repo: RootRepo,
  candidates: Candidate[],
  maxFileBytes: number,
): Promise<Sorted> {
  const sorted: Sorted = { add: [], untrack: [], skipped: [] }
  const verdicts = await Promise.all(
    candidates.map(async (c) => {
      const verdict = await verdictOf(join(repo.real, c.path), maxFileBytes)
      // Gone behind a directory a symlink replaced: git refuses a path beyond a link.
      return verdict === 'add' && (await beyondLink(repo.real, c.path)) ? 'beyond_link' : verdict
    }),
  )
  for (const [i, c] of candidates.entries()) {
    const verdict = verdicts[i]
    if (verdict === 'beyond_link') sorted.untrack.push(c.path)
    else if (verdict === 'add') sorted.add.push(c.path)
    else if (verdict !== 'ignore') {
      sorted.skipped.push({ path: c.path, reason: verdict })
      if (c.tracked) sorted.untrack.push(c.path)
    }
  }
  return sorted
}

/** Whether a directory on the way to `path` (under `real`) is a symbolic link. */
async function beyondLink(real: string, path: string): Promise<boolean> {
  const parts = path.replace(/\/$/, '').split('/').slice(0, -1)
  for (let i = 1; i <= parts.length; i++) {
    try {
      if ((await lstat(join(real, ...parts.slice(0, i)))).isSymbolicLink()) return true
    } catch {
      return false
    }
  }
  return false
}

async function verdictOf(
  file: string,
  maxFileBytes: number,
): Promise<'add' | 'ignore' | 'too_large' | 'unreadable'> {
  let info: Awaited<ReturnType<typeof lstat>>
  try {
    info = await lstat(file)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'add' : 'unreadable' // gone: add records the deletion
  }
  if (info.isSymbolicLink() || info.isDirectory()) return 'add' // a link as a link; a nested repository
  if (!info.isFile()) return 'ignore' // sockets, fifos: git has no such thing
  if (info.size > maxFileBytes) return 'too_large'
  try {
    await access(file, constants.R_OK)
    return 'add'
  } catch {
    return 'unreadable'
  }
}

/** Errors `add --ignore-errors` reports per path, and what they mean for the snapshot. */
const ADD_ERRORS = [
  /^error: open\("(.+)"\): /,
  /^error: unable to index file '?(.+?)'?$/,
  /^error: '(.+)' does not have a commit checked out$/,
]

/**
 * Adds the paths (deleted ones are removed). `update-index` takes exactly these paths, with no
 * walk of the tree and no pathspec matching; when it refuses one (a file unreadable after all, a
 * nested repository without a commit, a file that became a directory) `add --ignore-errors` does
 * the same work path by path, and what it could not read comes back as skipped.
 */
async function addPaths(repo: RootRepo, paths: string[], signal?: AbortSignal): Promise<SkippedFile[]> {
  const input = `${paths.map((p) => p.replace(/\/$/, '')).join('\0')}\0`
  try {
    await repo.git.run(['update-index', '--add', '--remove', '-z', '--stdin'], { input, signal })
    return []
  } catch (e) {
    if (signal?.aborted || !(e instanceof GitError)) throw e
  }
  const { stderr } = await repo.git.run(
    ['add', '-A', '--ignore-errors', '--pathspec-from-file=-', '--pathspec-file-nul'],
    { input, signal, okCodes: [1] },
  )
  const skipped = new Map<string, SkippedFile>()
  for (const line of stderr.split('\n')) {
    for (const pattern of ADD_ERRORS) {
      const path = pattern.exec(line)?.[1]?.replace(/\/$/, '')
      if (path) skipped.set(path, { root: repo.root, path, reason: 'unreadable' })
    }
  }
  return [...skipped.values()]
}

async function untrack(repo: RootRepo, paths: string[], signal?: AbortSignal): Promise<void> {
  await repo.git.run(['update-index', '--force-remove', '-z', '--stdin'], {
    input: `${paths.join('\0')}\0`,
    signal,
  })
}

/** The index as a tree; skipped when the index is the one the last take wrote a tree from. */
async function writeTree(repo: RootRepo, signal?: AbortSignal): Promise<string> {
  const index = await indexStamp(repo.git.gitDir)
  const known = memo.get(repo.git.gitDir)
  if (known && index !== null && known.index === index) return known.tree
  const { stdout } = await repo.git.run(['write-tree'], { signal })
  const tree = stdout.toString('utf8').trim()
  const after = await indexStamp(repo.git.gitDir)
  if (after !== null) memo.set(repo.git.gitDir, { index: after, tree })
  return tree
}

/** The index file's identity and change time: any write by git replaces or touches it. */
async function indexStamp(gitDir: string): Promise<string | null> {
  try {
    const s = await stat(join(gitDir, 'index'), { bigint: true })
    return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`
  } catch {
    return null
  }
}
