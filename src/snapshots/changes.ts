// What changed between two snapshots: git's tree-to-tree diff with renames (raw records for
// status and modes, numstat for +/− where `-` means binary), blob sizes from one
// `cat-file --batch-check`, and one file's patch bounded in bytes.
import type { ChangeStatus, FileChange, FileDiff, RootTree } from './engine.ts'
import { type Git, nulFields } from './git.ts'

/** git's empty tree: the state of a root that had no snapshot on one side. */
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904'
const ZERO = /^0+$/

/** The roots of both sides, each with its tree on either side (the empty tree where absent). */
export function pairRoots(before: RootTree[], after: RootTree[]): { root: string; a: string; b: string }[] {
  const roots = [...new Set([...after.map((r) => r.root), ...before.map((r) => r.root)])]
  const treeOf = (side: RootTree[], root: string) => side.find((r) => r.root === root)?.tree ?? EMPTY_TREE
  return roots.map((root) => ({ root, a: treeOf(before, root), b: treeOf(after, root) }))
}

interface RawRecord {
  oldMode: string
  newMode: string
  oldBlob: string
  newBlob: string
  letter: string
  oldPath: string | null
  path: string
}

const RAW = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) ([A-Z])\d*$/
const NUMSTAT = /^(\d+|-)\t(\d+|-)\t(.*)$/s

/** Parses `diff-tree -z --raw --numstat`: the raw records, then a numstat record for each. */
export function parseRawNumstat(out: Buffer): { raw: RawRecord[]; numstat: [string, string][] } {
  const fields = nulFields(out)
  const raw: RawRecord[] = []
  const numstat: [string, string][] = []
  let i = 0
  while (i < fields.length) {
    const meta = RAW.exec(fields[i])
    if (meta && numstat.length === 0) {
      const [, oldMode, newMode, oldBlob, newBlob, letter] = meta
      const twoPaths = letter === 'R' || letter === 'C'
      const oldPath = twoPaths ? fields[i + 1] : null
      const path = twoPaths ? fields[i + 2] : fields[i + 1]
      raw.push({ oldMode, newMode, oldBlob, newBlob, letter, oldPath, path })
      i += twoPaths ? 3 : 2
      continue
    }
    const counts = NUMSTAT.exec(fields[i])
    if (!counts) throw new Error(`unexpected git diff-tree output near ${JSON.stringify(fields[i])}`)
    numstat.push([counts[1], counts[2]])
    i += counts[3] === '' ? 3 : 1 // a rename's paths follow as two fields
  }
  return { raw, numstat }
}

const STATUS: Record<string, ChangeStatus> = {
  A: 'added',
  D: 'deleted',
  M: 'modified',
  R: 'renamed',
  C: 'added',
  T: 'type_changed',
}

/** The files that differ between two trees of one root. */
export async function changesOfRoot(git: Git, root: string, a: string, b: string): Promise<FileChange[]> {
  if (a === b) return []
  const { stdout } = await git.run([
    'diff-tree',
    '-r',
    '-z',
    '-M',
    '--raw',
    '--numstat',
    '--no-ext-diff',
    '--no-textconv',
    a,
    b,
  ])
  const { raw, numstat } = parseRawNumstat(stdout)
  const sizes = await blobSizes(
    git,
    raw.flatMap((r) => [r.oldBlob, r.newBlob]),
  )
  return raw.map((r, i) => {
    const [added, deleted] = numstat[i] ?? ['-', '-']
    const binary = added === '-' && !r.oldMode.startsWith('16') && !r.newMode.startsWith('16')
    const absent = (mode: string) => mode === '000000'
    return {
      root,
      path: r.path,
      old_path: r.oldPath,
      status: STATUS[r.letter] ?? 'modified',
      old_mode: absent(r.oldMode) ? null : r.oldMode,
      new_mode: absent(r.newMode) ? null : r.newMode,
      binary,
      additions: added === '-' ? null : Number(added),
      deletions: deleted === '-' ? null : Number(deleted),
      size_before: absent(r.oldMode) ? null : (sizes.get(r.oldBlob) ?? null),
      size_after: absent(r.newMode) ? null : (sizes.get(r.newBlob) ?? null),
    }
  })
}

/** Sizes of blobs by id (gitlinks and unknown objects left out). */
export async function blobSizes(git: Git, blobs: string[]): Promise<Map<string, number>> {
  const wanted = [...new Set(blobs.filter((b) => !ZERO.test(b)))]
  const sizes = new Map<string, number>()
  if (wanted.length === 0) return sizes
  const { stdout } = await git.run(['cat-file', '--batch-check'], { input: `${wanted.join('\n')}\n` })
  for (const line of stdout.toString('utf8').split('\n')) {
    const [id, type, size] = line.split(' ')
    if (type === 'blob') sizes.set(id, Number(size))
  }
  return sizes
}

/** One file's patch between two trees (its old path too, for a rename), cut at maxBytes. */
export async function diffOfFile(
  git: Git,
  root: string,
  a: string,
  b: string,
  path: string,
  maxBytes: number,
): Promise<FileDiff> {
  const change = (await changesOfRoot(git, root, a, b)).find((c) => c.path === path || c.old_path === path)
  if (!change) return { root, path, binary: false, truncated: false, text: '' }
  const paths = change.old_path ? [change.old_path, change.path] : [change.path]
  const { stdout, cut } = await git.run(
    ['diff-tree', '-p', '-M', '--no-color', '--no-ext-diff', '--no-textconv', a, b, '--', ...paths],
    { maxBytes },
  )
  const text = cutUtf8(stdout, maxBytes)
  return { root, path, binary: change.binary, truncated: cut || stdout.length > maxBytes, text }
}

/** At most maxBytes of UTF-8, never splitting a character. */
function cutUtf8(bytes: Buffer, maxBytes: number): string {
  if (bytes.length <= maxBytes) return bytes.toString('utf8')
  let end = maxBytes
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--
  return bytes.subarray(0, end).toString('utf8')
}
