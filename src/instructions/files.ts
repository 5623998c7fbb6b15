// Finding and reading instruction files: the user's global AGENTS.md in hearth's home, then
// one file per directory from the file-system root down to the workspace (AGENTS.md, or
// CLAUDE.md where a directory has no AGENTS.md). docs/instructions.md gives the reasons.
//
// Each step walks the directories with one lstat per candidate name; a file is read again
// only when its identity (device, inode, size, times, owner, mode) changed, so an unchanged
// set costs a few stat calls and no reads.

import { closeSync, constants, fstatSync, lstatSync, openSync, type Stats, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { decode, readPrefix } from '../util/text-file.ts'

/** Names looked for in each directory, first match wins: AGENTS.md shadows CLAUDE.md. */
export const FILE_NAMES = ['AGENTS.md', 'CLAUDE.md'] as const
/** The global file's name, in hearth's home. */
export const GLOBAL_NAME = 'AGENTS.md'
/** Bytes of one file that are used; the rest of it is cut. */
export const MAX_FILE_BYTES = 32 * 1024
/** Files whose read result is kept; more distinct paths than this start the cache afresh. */
const CACHE_LIMIT = 1024

export type Scope = 'global' | 'workspace'
export type SkipReason =
  | 'not_a_file' // a directory, FIFO, socket or device by that name
  | 'unreadable' // cannot be opened or read (permissions, a dangling or looping symlink)
  | 'not_text' // not UTF-8, or holds NUL bytes
  | 'empty' // nothing but white space
  | 'untrusted_owner' // owned by someone other than the daemon's user, root or the workspace's owner
  | 'writable_by_others' // anyone on the machine may change it
  | 'duplicate' // the same file as one already listed (a symlink to it, or the home as workspace)

/** One instruction file as found: its text (at most MAX_FILE_BYTES) or why it is not used. */
export interface FoundFile {
  path: string
  scope: Scope
  /** The file's size on disk (0 when it could not be examined). */
  bytes: number
  /** The text used, or null when the file is skipped. */
  text: string | null
  /** The text is the file's beginning only (MAX_FILE_BYTES, cut at a character boundary). */
  truncated: boolean
  skipped: SkipReason | null
}

interface Cached {
  identity: string
  found: Omit<FoundFile, 'scope'>
  /** Device and inode of the file read, to drop a second path to the same file. */
  inode: string
}

export class InstructionFiles {
  readonly home: string | null
  readonly #cache = new Map<string, Cached>()
  /** Files actually read (opened) since start: what the identity cache saves shows here. */
  reads = 0

  constructor(home: string | null) {
    this.home = home === null ? null : resolve(home)
  }

  /** The files a step in `workspace` would use, in send order: global, then outermost to nearest. */
  find(workspace: string): FoundFile[] {
    const trusted = trustedOwners(workspace)
    const out: FoundFile[] = []
    const seen = new Set<string>()
    const add = (path: string, scope: Scope, st: Stats | 'error') => {
      const c = this.#examine(path, st, trusted)
      const duplicate = c.inode !== '' && seen.has(c.inode)
      if (c.inode !== '') seen.add(c.inode)
      out.push(duplicate ? { ...skip(path, c.found.bytes, 'duplicate'), scope } : { ...c.found, scope })
    }
    if (this.home) {
      const path = join(this.home, GLOBAL_NAME)
      const st = lstatOrNull(path)
      if (st) add(path, 'global', st)
    }
    for (const dir of directoriesDownTo(resolve(workspace))) {
      for (const name of FILE_NAMES) {
        const path = join(dir, name)
        const st = lstatOrNull(path)
        if (!st) continue
        add(path, 'workspace', st)
        break
      }
    }
    return out
  }

  /** A file's read result, from the cache while its identity is unchanged. */
  #examine(path: string, link: Stats | 'error', trusted: Set<number> | null): Cached {
    if (link === 'error') return { identity: '', found: skip(path, 0, 'unreadable'), inode: '' }
    let target = link
    if (link.isSymbolicLink()) {
      if (trusted && !trusted.has(link.uid))
        return { identity: '', found: skip(path, 0, 'untrusted_owner'), inode: '' }
      try {
        target = statSync(path)
      } catch {
        return { identity: '', found: skip(path, 0, 'unreadable'), inode: '' }
      }
    }
    const identity = identityOf(link, target, trusted)
    const hit = this.#cache.get(path)
    if (hit && hit.identity === identity) return hit
    this.reads++
    const entry = { identity, found: readFile(path, trusted), inode: `${target.dev}:${target.ino}` }
    if (this.#cache.size >= CACHE_LIMIT) this.#cache.clear()
    this.#cache.set(path, entry)
    return entry
  }
}

/** Directories from the file-system root down to `dir`, `dir` last. */
function directoriesDownTo(dir: string): string[] {
  const dirs: string[] = []
  for (let d = dir; ; d = dirname(d)) {
    dirs.unshift(d)
    if (dirname(d) === d) return dirs
  }
}

/** lstat, or null when nothing is there; 'error' when the name cannot be examined. */
function lstatOrNull(path: string): Stats | 'error' | null {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) ?? null
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOTDIR' ? null : 'error'
  }
}

/**
 * Whose files are trusted: the daemon's user, root, and the owner of the workspace (a
 * daemon run as root in a container over a checkout another uid owns). A file somebody else
 * put in a shared ancestor (/tmp/AGENTS.md) would otherwise steer every workspace below it.
 * Null where the platform has no uids.
 */
function trustedOwners(workspace: string): Set<number> | null {
  const uid = process.getuid?.()
  if (uid === undefined) return null
  const owners = new Set([uid, 0])
  try {
    owners.add(statSync(workspace).uid)
  } catch {
    // A workspace that is gone has no owner to trust.
  }
  return owners
}

function identityOf(link: Stats, target: Stats, trusted: Set<number> | null): string {
  const facts = (s: Stats) => `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}:${s.uid}:${s.mode}`
  const trust = trusted ? [...trusted].join(',') : ''
  return link === target ? `${facts(target)}|${trust}` : `${facts(link)}>${facts(target)}|${trust}`
}

function skip(path: string, bytes: number, reason: SkipReason): Omit<FoundFile, 'scope'> {
  return { path, bytes, text: null, truncated: false, skipped: reason }
}

/**
 * Opens without blocking (a FIFO swapped in after the lstat must not hang the daemon) and
 * checks what was opened, not what the name pointed to a moment before.
 */
function readFile(path: string, trusted: Set<number> | null): Omit<FoundFile, 'scope'> {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY)
  } catch {
    return skip(path, 0, 'unreadable')
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) return skip(path, 0, 'not_a_file')
    if (trusted && !trusted.has(st.uid)) return skip(path, st.size, 'untrusted_owner')
    if (st.mode & 0o002) return skip(path, st.size, 'writable_by_others')
    const { bytes, truncated } = readPrefix(fd, st.size, MAX_FILE_BYTES)
    const text = decode(bytes, truncated)
    if (text === null) return skip(path, st.size, 'not_text')
    if (text.trim() === '') return skip(path, st.size, 'empty')
    return { path, bytes: st.size, text, truncated, skipped: null }
  } catch {
    return skip(path, 0, 'unreadable')
  } finally {
    closeSync(fd)
  }
}
