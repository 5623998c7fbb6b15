// Browsing the daemon host for a workspace: the recent workspaces (from the sessions table)
// and one directory's entries, with an optional preview. Reads only: names and kinds of
// entries, `.git/HEAD` for the branch, the first characters of a README. Nothing is run.
import { type Dirent, existsSync, lstatSync, opendirSync, readFileSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { HearthError } from '../schemas/problems.ts'
import {
  DIRECTORY_ENTRIES_MAX,
  README_PREVIEW_CHARS,
  type WorkspaceEntry,
  type WorkspacePreview,
} from '../schemas/workspaces.ts'
import { absolutePath } from '../sessions/workspace.ts'
import type { Db } from '../store/db.ts'

/** An absolute location, normalised; 404 / 409 unless it is a readable directory. */
export function directoryAt(location: string): string {
  const path = absolutePath(location, 'Location')
  let isDirectory: boolean
  try {
    isDirectory = statSync(path).isDirectory()
  } catch {
    throw new HearthError('location_not_found', `No ${path} on the daemon host`)
  }
  if (!isDirectory) throw new HearthError('location_not_directory', `${path} is not a directory`)
  return path
}

function isRepository(path: string): boolean {
  return existsSync(join(path, '.git'))
}

/** A directory entry as listed; a link is followed to say what it points at. */
function entryOf(dir: string, d: Dirent): WorkspaceEntry {
  const path = join(dir, d.name)
  let kind: WorkspaceEntry['kind'] = d.isDirectory() ? 'directory' : d.isFile() ? 'file' : 'other'
  if (d.isSymbolicLink()) {
    try {
      const s = statSync(path)
      kind = s.isDirectory() ? 'directory' : s.isFile() ? 'file' : 'other'
    } catch {
      kind = 'missing' // a dangling link
    }
  }
  return {
    name: d.name,
    path,
    kind,
    link: d.isSymbolicLink(),
    hidden: d.name.startsWith('.'),
    repository: kind === 'directory' && isRepository(path),
    sessions: null,
    last_activity_at: null,
  }
}

/** Directories first, then by name (UTF-16 order, stable across pages). */
export function entryKey(e: { kind: string; name: string }): [number, string] {
  return [e.kind === 'directory' ? 0 : 1, e.name]
}

function before(a: [number, string], b: [number, string]): boolean {
  return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1])
}

/** Reads up to DIRECTORY_ENTRIES_MAX entries of `dir`, sorted; 409 when it cannot be read. */
function readEntries(dir: string): { dirents: Dirent[]; truncated: boolean } {
  let handle: ReturnType<typeof opendirSync>
  try {
    handle = opendirSync(dir)
  } catch (err) {
    throw new HearthError(
      'location_unreadable',
      `${dir} cannot be read (${(err as NodeJS.ErrnoException).code})`,
    )
  }
  const dirents: Dirent[] = []
  let truncated = false
  try {
    for (let d = handle.readSync(); d !== null; d = handle.readSync()) {
      if (dirents.length >= DIRECTORY_ENTRIES_MAX) {
        truncated = true
        break
      }
      dirents.push(d)
    }
  } finally {
    handle.closeSync()
  }
  return { dirents, truncated }
}

/** One page of a directory's entries after `after` (a key from entryKey). */
export function listDirectory(
  dir: string,
  limit: number,
  after: [number, string] | null,
): { items: WorkspaceEntry[]; truncated: boolean; after: [number, string] | null; all: Dirent[] } {
  const { dirents, truncated } = readEntries(dir)
  const keyed = dirents
    .map((d) => ({ d, key: entryKey({ kind: d.isDirectory() ? 'directory' : 'other', name: d.name }) }))
    // A link to a directory sorts with the directories: its kind is read only for those shown.
    .map((k) => (k.d.isSymbolicLink() ? { ...k, key: entryKey(entryOf(dir, k.d)) } : k))
    .sort((a, b) => (before(a.key, b.key) ? -1 : before(b.key, a.key) ? 1 : 0))
  const rest = after === null ? keyed : keyed.filter((k) => before(after, k.key))
  const page = rest.slice(0, limit)
  const items = page.map((k) => entryOf(dir, k.d))
  const more = rest.length > limit
  return { items, truncated, after: more ? (page.at(-1)?.key ?? null) : null, all: dirents }
}

const README = /^readme(\.(md|markdown|txt|rst|org))?$/i

/** A look at a directory: its branch, the start of its README, AGENTS.md, what it holds. */
export function previewOf(dir: string, dirents: Dirent[]): WorkspacePreview {
  const readme = dirents
    .filter((d) => README.test(d.name) && !d.isDirectory())
    .sort((a, b) => a.name.length - b.name.length)[0]
  return {
    repository: repositoryOf(dir),
    readme: readme ? readmeOf(join(dir, readme.name), readme.name) : null,
    agents_md: dirents.some((d) => d.name === 'AGENTS.md'),
    directories: dirents.filter((d) => d.isDirectory()).length,
    files: dirents.filter((d) => d.isFile()).length,
  }
}

function readmeOf(path: string, name: string): WorkspacePreview['readme'] {
  try {
    // A README is read only to its first characters' worth of bytes (UTF-8: up to 4 each).
    const text = readFileSync(path)
      .subarray(0, README_PREVIEW_CHARS * 4)
      .toString('utf8')
    return {
      name,
      text: text.slice(0, README_PREVIEW_CHARS),
      truncated: text.length > README_PREVIEW_CHARS || statSync(path).size > README_PREVIEW_CHARS * 4,
    }
  } catch {
    return null
  }
}

/** The branch from `.git/HEAD` (a worktree's `.git` file points at its own git dir). */
function repositoryOf(dir: string): WorkspacePreview['repository'] {
  const dotGit = join(dir, '.git')
  try {
    let gitDir = dotGit
    if (statSync(dotGit).isFile()) {
      const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'))
      if (!m) return { branch: null, head: null }
      gitDir = resolve(dir, m[1].trim())
    }
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim()
    const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(head)
    if (ref) return { branch: ref[1], head: null }
    return { branch: null, head: /^[0-9a-f]{40,64}$/.test(head) ? head : null }
  } catch {
    return null
  }
}

export function locationOf(dir: string): { path: string; parent: string | null } {
  const parent = dirname(dir)
  return { path: dir, parent: parent === dir ? null : parent }
}

interface RecentRow {
  workspace: string
  last: number
  n: number
}

/** The workspaces of existing sessions, most recent first, after keyset `after`. */
export function recentWorkspaces(
  db: Db,
  limit: number,
  after: [number, string] | null,
): { items: WorkspaceEntry[]; after: [number, string] | null } {
  const rows = db
    .prepare(
      `SELECT workspace, MAX(activity_ms) AS last, COUNT(*) AS n FROM sessions GROUP BY workspace
       HAVING ? IS NULL OR last < ? OR (last = ? AND workspace > ?)
       ORDER BY last DESC, workspace LIMIT ?`,
    )
    .all(after?.[0] ?? null, after?.[0] ?? 0, after?.[0] ?? 0, after?.[1] ?? '', limit + 1) as RecentRow[]
  const more = rows.length > limit
  const page = more ? rows.slice(0, limit) : rows
  const items = page.map((r): WorkspaceEntry => {
    let kind: WorkspaceEntry['kind'] = 'missing'
    let link = false
    try {
      link = lstatSync(r.workspace).isSymbolicLink()
      const s = statSync(r.workspace)
      kind = s.isDirectory() ? 'directory' : s.isFile() ? 'file' : 'other'
    } catch {
      // gone since: still listed, so a client can show it greyed out
    }
    return {
      name: basename(r.workspace) || r.workspace,
      path: r.workspace,
      kind,
      link,
      hidden: basename(r.workspace).startsWith('.'),
      repository: kind === 'directory' && isRepository(r.workspace),
      sessions: r.n,
      last_activity_at: new Date(r.last).toISOString(),
    }
  })
  const last = page.at(-1)
  return { items, after: more && last ? [last.last, last.workspace] : null }
}
