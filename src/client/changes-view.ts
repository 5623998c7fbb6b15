// A run's changes worded for a person, the same in `hearth diff`/`undo`/`redo` and in the
// terminal client's /diff, /undo, /redo: a file's path as typed (relative to the workspace,
// absolute in another root), its status and +/- line counts, a diff's lines sorted for
// colouring, and what a refused or finished restore says.
import { isAbsolute } from 'node:path'
import type { Problem } from '../schemas/problems.ts'
import type { FileChange, FileRef, Restore, RestoredFile, RunChanges } from './changes.ts'

/** A file as a person names it: relative to the workspace, else absolute (another root). */
export function shownPath(f: { root: string; path: string }, workspace: string): string {
  return f.root === workspace ? f.path : `${f.root.replace(/\/+$/, '')}/${f.path}`
}

/** `+3 -1`, `binary`, or `` for a change without line counts (a deleted link, say). */
export function countsText(c: FileChange): string {
  if (c.binary) return 'binary'
  if (c.additions === null && c.deletions === null) return ''
  return `+${c.additions ?? 0} -${c.deletions ?? 0}`
}

/** The path column: `old → new` for a rename, a mode change noted after. */
export function pathText(c: FileChange, workspace: string): string {
  const path = shownPath(c, workspace)
  const renamed =
    c.old_path !== null && c.old_path !== c.path
      ? `${shownPath({ root: c.root, path: c.old_path }, workspace)} → `
      : ''
  const mode =
    c.old_mode !== null && c.new_mode !== null && c.old_mode !== c.new_mode
      ? `  (mode ${c.old_mode} → ${c.new_mode})`
      : ''
  return `${renamed}${path}${mode}`
}

/** Rows of a change list: status, counts, path. */
export function changeRows(items: readonly FileChange[], workspace: string): string[][] {
  return items.map((c) => [c.status, countsText(c), pathText(c, workspace)])
}

/** The line above a run's change list. */
export function changesHeading(changes: RunChanges): string {
  const n = changes.items.length
  const running = changes.state === 'running' ? ' so far (the run is still going)' : ''
  const approximate = changes.approximate ? ' (approximate: recorded when the daemon started again)' : ''
  return `run ${changes.run_id}: ${n} file${n === 1 ? '' : 's'} changed${running}${approximate}`
}

/** Why a run's change list is empty, in a sentence. */
export function noChangesText(changes: RunChanges): string {
  if (changes.state === 'none')
    return `run ${changes.run_id} has no recorded changes (it only read, snapshots are off, or they were pruned).`
  return `run ${changes.run_id} changed no files.`
}

/** Files the capture left out, one line each. */
export function skippedLines(changes: RunChanges, workspace: string): string[] {
  return changes.skipped.map((s) => `skipped: ${s.reason.replaceAll('_', ' ')}  ${shownPath(s, workspace)}`)
}

/**
 * The change `given` names: its shown path, its path in its root, or its absolute path (a
 * `./` start and a trailing slash ignored); a rename is named by its new or old path.
 */
export function findChange(
  items: readonly FileChange[],
  given: string,
  workspace: string,
): FileChange | undefined {
  const want = given.replace(/^\.\/+/, '').replace(/\/+$/, '')
  const abs = (root: string, p: string) => `${root.replace(/\/+$/, '')}/${p}`
  return items.find(
    (c) =>
      shownPath(c, workspace) === want ||
      (!isAbsolute(want) && c.root === workspace && c.old_path === want) ||
      abs(c.root, c.path) === want ||
      (c.old_path !== null && abs(c.root, c.old_path) === want),
  )
}

/** A file named on the command line or in the client, as a restore request names it. */
export function fileRefOf(given: string, items: readonly FileChange[], workspace: string): FileRef {
  const found = findChange(items, given, workspace)
  if (found) return { root: found.root, path: found.path }
  const want = given.replace(/^\.\/+/, '')
  if (isAbsolute(want) && want.startsWith(`${workspace.replace(/\/+$/, '')}/`))
    return { path: want.slice(workspace.replace(/\/+$/, '').length + 1) }
  return { path: want }
}

export type DiffLineKind = 'add' | 'remove' | 'hunk' | 'head' | 'text'

/** What a line of a unified diff is, for its colour. */
export function diffLineKind(line: string): DiffLineKind {
  if (
    /^(diff |index |--- |\+\+\+ |old mode |new mode |deleted file |new file |similarity |rename |Binary files )/.test(
      line,
    )
  )
    return 'head'
  if (line.startsWith('@@')) return 'hunk'
  if (line.startsWith('+')) return 'add'
  if (line.startsWith('-')) return 'remove'
  return 'text'
}

/** A diff's text as lines (the last newline not making an empty line), with what each is. */
export function diffLines(text: string): { kind: DiffLineKind; text: string }[] {
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  return lines.map((l) => ({ kind: diffLineKind(l), text: l }))
}

/** What a binary file's diff says instead of its bytes. */
export function binaryText(c: { path: string }, before: number | null, after: number | null): string {
  const size = (n: number | null) => (n === null ? 'none' : `${n.toLocaleString('en')} bytes`)
  return `binary file ${c.path}: ${size(before)} → ${size(after)}`
}

/** The files a restore_conflict problem names (its `conflicts` extension). */
export function conflictsOf(problem: Problem): { root: string; path: string }[] {
  const list = (problem as unknown as { conflicts?: unknown }).conflicts
  if (!Array.isArray(list)) return []
  return list.filter(
    (c): c is { root: string; path: string } => typeof c?.root === 'string' && typeof c?.path === 'string',
  )
}

const ACTION_WORD: Record<RestoredFile['action'], string> = {
  written: 'put back',
  deleted: 'removed',
  kept: 'already as it was',
}

/** One line per file a restore touched: what it did (the words aligned) and the file. */
export function restoredLines(r: Restore, workspace: string): string[] {
  const words = r.files.map((f) => ACTION_WORD[f.action] ?? f.action)
  const width = Math.max(0, ...words.map((w) => w.length))
  return r.files.map((f, i) => `${words[i].padEnd(width)}  ${shownPath(f, workspace)}`)
}

/** The line that sums a restore up. */
export function restoredHeading(r: Restore): string {
  const n = r.files.filter((f) => f.action !== 'kept').length
  const what = r.undoes_restore_id ? `undid restore ${r.undoes_restore_id}` : `undid run ${r.run_id}`
  return `${what}: ${n} file${n === 1 ? '' : 's'} restored (restore ${r.id})`
}
