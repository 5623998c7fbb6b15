// Workspace confinement for the file tools: a path the model gives is turned into a real
// (symlink-free) absolute path that lies inside the session's workspace or a root the user
// allowed, and outside hearth's own home. Everything else is refused with a message the
// model can act on; nothing here throws for a bad path.
//
// The rules (docs/tools-files.md):
// - a relative path is taken from the workspace; `..` may move within the roots, never out;
// - an absolute path must lie inside a root;
// - every component is resolved as the kernel would (realpath), dangling links included, and
//   the result must still lie inside a root: a symlink anywhere on the way that leads out is
//   refused, however many links the chain has;
// - hearth's home (the token, creds.json, the database) is refused even under a root, and so
//   is /proc (the kernel process's own environment and memory), should a root contain it;
// - a write or edit through a regular file with more than one hard link is refused: the other
//   name may be outside the roots (a package manager's store, a file in another project). The
//   atomic write would leave that file as it was and silently split the two names, which is
//   not what whoever linked them meant either; the model is told to write a new file instead.
//   Reads through hard links are allowed (pnpm and ccache fill workspaces with them), except
//   to a file of hearth's home.
//
// Checking and using are separate system calls, so a process racing the tool (a background
// job swapping a directory for a symlink between the check and the open) could win the
// window. The tools close it on Linux by checking what they opened (openedElsewhere, below:
// the descriptor's own path in /proc/self/fd) and working only through it from then on
// (files/held-dir.ts). The shell is the larger door anyway: what a command may reach is the
// sandbox's business (src/tools/exec/).
// The checks call the file system synchronously: a handful of stat-like calls on local
// paths take microseconds each, where the promise versions each cost a trip through libuv's
// thread pool (~50 µs), most of a small read's time. They run in the kernel process, never
// on the daemon's thread.
import { fstatSync, lstatSync, readdirSync, readlinkSync, realpathSync, type Stats, statSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { isWithin } from '../util/paths.ts'
import { guardRefusal, isHiddenPath } from './hidden-paths.ts'
import type { SandboxPolicy, ToolContext } from './types.ts'

/** What the caller means to do with the path: writes refuse hard-linked files. */
export type Access = 'read' | 'write'

export interface Confined {
  ok: true
  /** The real absolute path (symlinks resolved; the missing tail of a new file appended). */
  path: string
  /** How tools name the path back to the model: relative to the workspace when inside it. */
  display: string
  /** lstat of the final path, or null when it does not exist yet. */
  stats: Stats | null
}

export interface Refused {
  ok: false
  message: string
}

export type Roots = Pick<ToolContext, 'workspace' | 'allowedRoots'> & { sandbox?: SandboxPolicy }

/** Links followed while resolving one path before giving up, as Linux's ELOOP does. */
const MAX_LINKS = 40

let hearthHome: string | null = null
let hearthHomeReal: string | null = null

/**
 * Sets hearth's home (HEARTH_HOME): the kernel calls it once at start. Paths inside it are
 * refused whatever the roots say, and walks (list, glob, grep) skip it.
 */
export function setHearthHome(dir: string | null): void {
  hearthHome = dir === null ? null : resolve(dir)
  hearthHomeReal = null
  if (hearthHome === null) return
  try {
    hearthHomeReal = realpathSync(hearthHome)
  } catch {
    hearthHomeReal = hearthHome // not made yet: its own path is all there is to refuse
  }
}

/** The home as set (real path), for walkers that must skip it. */
export function hearthHomePath(): string | null {
  return hearthHomeReal
}

/** Whether a real path lies in hearth's home. */
export function inHearthHome(real: string): boolean {
  if (hearthHome === null) return false
  return isWithin(real, hearthHomeReal ?? hearthHome) || isWithin(real, hearthHome)
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    return p
  }
}

/** The roots as given and as real paths (an allowed root may itself sit behind a symlink). */
function rootsOf(roots: Roots): { given: string[]; real: string[] } {
  const given = [roots.workspace, ...roots.allowedRoots].map((r) => resolve(r))
  return { given, real: given.map(realOrSelf) }
}

/** The real roots of one call's context, resolved once: walks check every directory against them. */
const realRootsCache = new WeakMap<Roots, string[]>()

function realRootsOf(roots: Roots): string[] {
  let real = realRootsCache.get(roots)
  if (!real) {
    real = rootsOf(roots).real
    realRootsCache.set(roots, real)
  }
  return real
}

/** How a path is shown to the model: relative to the workspace inside it, else absolute. */
export function displayPath(real: string, workspace: string): string {
  if (isWithin(real, workspace)) return relative(workspace, real).split(sep).join('/') || '.'
  return real
}

/** How a path found under a confined start is shown: the start's display plus the rest. */
export function displayUnder(abs: string, start: Confined): string {
  const rest = relative(start.path, abs).split(sep).join('/')
  if (rest === '') return start.display
  if (start.display === '.') return rest
  return `${start.display}/${rest}`
}

class LinkLoop extends Error {}

/**
 * The real path of `abs`, resolving every component as the kernel would, including
 * components that do not exist yet (kept as they are) and dangling symlinks (followed to
 * where they point, so a write through one cannot land outside).
 */
function resolveReal(abs: string, budget: { links: number }): string {
  try {
    return realpathSync(abs)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ELOOP') throw new LinkLoop()
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err
  }
  const parent = dirname(abs)
  if (parent === abs) return abs
  const realParent = resolveReal(parent, budget)
  const candidate = join(realParent, basename(abs))
  let st: Stats
  try {
    st = lstatSync(candidate)
  } catch {
    return candidate // does not exist yet
  }
  if (!st.isSymbolicLink()) return candidate
  if (--budget.links < 0) throw new LinkLoop()
  return resolveReal(resolve(realParent, readlinkSync(candidate)), budget)
}

function refuse(message: string): Refused {
  return { ok: false, message }
}

function outside(input: string, roots: { given: string[] }, how: string): Refused {
  const where =
    roots.given.length > 1
      ? `the workspace (${roots.given[0]}) and the allowed roots (${roots.given.slice(1).join(', ')})`
      : `the workspace (${roots.given[0]})`
  return refuse(`${input}: ${how} outside ${where}. Give a path inside ${where}.`)
}

/** Checks the path's shape: a non-empty string without NUL bytes or `~` expansion. */
function shapeError(input: unknown): string | null {
  if (typeof input !== 'string' || input.trim() === '') return 'path must be a non-empty string'
  if (input.includes('\0')) return 'path must not contain NUL bytes'
  if (input === '~' || input.startsWith('~/'))
    return `${input}: "~" is not expanded; give a path relative to the workspace or an absolute path`
  return null
}

/**
 * Resolves a model-given path against the workspace and the allowed roots. Returns the real
 * path to use, or a refusal whose message says why and what to do instead.
 */
export async function confine(input: string, roots: Roots, access: Access): Promise<Confined | Refused> {
  const bad = shapeError(input)
  if (bad) return refuse(bad)
  const r = rootsOf(roots)
  const lexical = resolve(r.given[0], input)
  if (![...r.given, ...r.real].some((root) => isWithin(lexical, root)))
    return outside(input, r, isAbsolute(input) ? 'is' : 'leads')

  let real: string
  try {
    real = resolveReal(lexical, { links: MAX_LINKS })
  } catch (err) {
    if (err instanceof LinkLoop) return refuse(`${input}: too many levels of symbolic links`)
    return refuse(`${input}: cannot be resolved (${(err as NodeJS.ErrnoException).code ?? String(err)})`)
  }
  if (!r.real.some((root) => isWithin(real, root)))
    return outside(input, r, 'leads through a symbolic link to a place')
  if (inHearthHome(real))
    return refuse(`${input}: is inside hearth's own home, which the file tools never touch`)
  if (isWithin(real, '/proc'))
    return refuse(`${input}: is under /proc, which shows this process's own environment and memory`)
  const guarded = guardRefusal(input, real, r.real, access, roots.sandbox)
  if (guarded) return refuse(guarded)

  let stats: Stats | null = null
  try {
    stats = lstatSync(real)
  } catch {
    stats = null
  }
  if (stats) {
    const special = specialKind(stats)
    if (special) return refuse(`${input}: is a ${special}, not a regular file or directory`)
    if (stats.isFile() && stats.nlink > 1) {
      if (access === 'write')
        return refuse(
          `${input}: has ${stats.nlink} hard links; another name of this file may lie outside the workspace, ` +
            'and writing here would split the two. Refused; write to a new file instead.',
        )
      if (isHomeFile(stats)) return refuse(`${input}: is a hard link to a file in hearth's own home`)
    }
  }
  return { ok: true, path: real, display: displayPath(real, r.real[0]), stats }
}

function specialKind(st: Stats): string | null {
  if (st.isFIFO()) return 'named pipe'
  if (st.isSocket()) return 'socket'
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'device'
  return null
}

/** Whether a hard-linked file is one of the files at the top of hearth's home. */
function isHomeFile(st: Stats): boolean {
  const home = hearthHomeReal
  if (home === null) return false
  let names: string[]
  try {
    names = readdirSync(home)
  } catch {
    return false
  }
  for (const name of names) {
    try {
      const s = statSync(join(home, name))
      if (s.ino === st.ino && s.dev === st.dev) return true
    } catch {
      // gone meanwhile
    }
  }
  return false
}

/**
 * Why an opened descriptor must not be used, or null when it may: where it really points
 * (Linux's /proc/self/fd) must lie in a root and outside hearth's home and /proc, and a file
 * with several links must not be another name of a home file. This is what closes the
 * window between a path's check and its open: whatever was swapped in meanwhile, the
 * descriptor names what was actually opened. Without procfs the earlier check stands alone.
 */
export function openedElsewhere(fd: number, roots: Roots): string | null {
  let opened: string
  try {
    opened = readlinkSync(`/proc/self/fd/${fd}`)
  } catch {
    return null // no procfs: the earlier check stands alone (docs/tools-files.md)
  }
  if (
    !realRootsOf(roots).some((root) => isWithin(opened, root)) ||
    inHearthHome(opened) ||
    isWithin(opened, '/proc')
  )
    return 'changed while it was being opened and now leads outside the workspace'
  if (isHiddenPath(opened))
    return "changed while it was being opened and now leads into the user's hidden credentials"
  const st = fstatSync(fd)
  if (st.isFile() && st.nlink > 1 && isHomeFile(st)) return "is a hard link to a file in hearth's own home"
  return null
}

/** openedElsewhere as a refusal naming the path as the model gave it. */
export async function checkOpened(fd: number, input: string, roots: Roots): Promise<Refused | null> {
  const why = openedElsewhere(fd, roots)
  return why === null ? null : refuse(`${input}: ${why}`)
}

/**
 * Whether a write of `name` into a held directory (its descriptor `fd`) would change what
 * confinement forbids writing (a repository's `.git`, a hidden path), judged on the
 * directory as opened: a parent swapped for a link into `.git` after the path's check is
 * caught here. The refusal's message, or null.
 */
export function heldWriteRefusal(input: string, fd: number, name: string, roots: Roots): string | null {
  let opened: string
  try {
    opened = readlinkSync(`/proc/self/fd/${fd}`)
  } catch {
    return null // no procfs: the check of the path stands alone
  }
  return guardRefusal(input, join(opened, name), realRootsOf(roots), 'write', roots.sandbox)
}
