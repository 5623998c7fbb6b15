// Directories the file tools work in through an open descriptor, so that nothing swapped in
// after a path's check can redirect them. A directory is opened (O_NOFOLLOW, O_DIRECTORY),
// the descriptor's real path is checked against the roots (confine.ts, openedElsewhere), and
// from then on its entries are reached as /proc/self/fd/N/name: the kernel resolves that
// through the directory already opened, whatever its path now leads to. A subdirectory is
// opened the same way from its parent's descriptor, so a walk goes down one checked
// directory at a time and a symlink swapped in anywhere is met as a link, never followed.
// The calls are synchronous: each takes microseconds, where a promise costs a trip through
// libuv's thread pool (confine.ts says why that is fine in the kernel process).
import { closeSync, constants, existsSync, fsyncSync, mkdirSync, openSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { openedElsewhere, type Roots } from '../confine.ts'
import { fsMessage } from './common.ts'

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW
/** How the tools open a file to read it: never through a link, never blocking on a pipe. */
export const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK
/** Without procfs, entries are reached by path: the checks before the open stand alone. */
const PROC_FD = existsSync('/proc/self/fd')

export class HeldDir {
  #fd: number | null
  /** The directory's real path when it was opened (how its entries are named). */
  readonly path: string
  constructor(fd: number, path: string) {
    this.#fd = fd
    this.path = path
  }

  get fd(): number {
    if (this.#fd === null) throw new Error(`${this.path}: used after close`)
    return this.#fd
  }

  /** A path that reaches `name` in this very directory ('' for the directory itself). */
  at(name = ''): string {
    if (!PROC_FD) return name === '' ? this.path : join(this.path, name)
    return name === '' ? `/proc/self/fd/${this.fd}` : `/proc/self/fd/${this.fd}/${name}`
  }

  /** Makes the directory's entries durable (after a rename in it), best effort. */
  sync(): void {
    try {
      fsyncSync(this.fd)
    } catch {
      // some file systems refuse fsync on a directory
    }
  }

  close(): void {
    if (this.#fd === null) return
    closeSync(this.#fd)
    this.#fd = null
  }
}

/** Why a directory could not be held: gone, not a directory, or not where it was checked. */
export class NotHeld extends Error {
  readonly reason: 'outside' | 'missing' | 'link' | 'other'
  constructor(reason: NotHeld['reason'], cause?: unknown) {
    super(reason, { cause })
    this.reason = reason
  }
}

/** The opened directory as held, once its descriptor is found inside the roots; else closed. */
function verified(fd: number, path: string, roots: Roots): HeldDir {
  let why: string | null
  try {
    why = openedElsewhere(fd, roots)
  } catch (err) {
    closeSync(fd)
    throw new NotHeld('other', err)
  }
  if (why !== null) {
    closeSync(fd)
    throw new NotHeld('outside')
  }
  return new HeldDir(fd, path)
}

function openDirectory(path: string): number {
  try {
    return openSync(path, DIR_FLAGS)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw new NotHeld('missing', err)
    // O_NOFOLLOW on a link gives ELOOP; O_DIRECTORY on anything else ENOTDIR.
    if (code === 'ELOOP' || code === 'ENOTDIR') throw new NotHeld('link', err)
    throw new NotHeld('other', err)
  }
}

/** Opens a confined directory by its real path and checks what was opened. Throws NotHeld. */
export function holdDir(real: string, roots: Roots): HeldDir {
  return verified(openDirectory(real), real, roots)
}

/** Opens `name` in a held directory, never through a link. Throws NotHeld. */
export function holdSubdir(parent: HeldDir, name: string, roots: Roots): HeldDir {
  return verified(openDirectory(parent.at(name)), join(parent.path, name), roots)
}

/**
 * Holds the directory at `real`, making it and any missing parents first: each one is made
 * inside its held parent and opened from it, so a parent swapped for a link meanwhile stops
 * the walk down instead of sending it elsewhere.
 */
export function holdDirMaking(real: string, roots: Roots): HeldDir {
  try {
    return holdDir(real, roots)
  } catch (err) {
    if (!(err instanceof NotHeld) || err.reason !== 'missing' || dirname(real) === real) throw err
  }
  const parent = holdDirMaking(dirname(real), roots)
  try {
    try {
      mkdirSync(parent.at(basename(real)))
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    }
    return holdSubdir(parent, basename(real), roots)
  } finally {
    parent.close()
  }
}

/** What a tool tells the model when a confined directory could not be held (or made). */
export function notHeldMessage(err: unknown, shown: string): string {
  if (!(err instanceof NotHeld)) return fsMessage(err, shown)
  switch (err.reason) {
    case 'outside':
      return `${shown}: changed while it was being opened and now leads outside the workspace`
    case 'missing':
      return `${shown}: no such directory`
    case 'link':
      return `${shown}: changed while it was being opened (it is no longer a directory)`
    default:
      return fsMessage(err.cause, shown)
  }
}
