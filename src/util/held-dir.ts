// Directories worked in through an open descriptor, so that nothing swapped in after a path's
// check can redirect what is done in them. A directory is opened (O_NOFOLLOW, O_DIRECTORY),
// the caller's check judges what was opened (on Linux the descriptor's own path in
// /proc/self/fd, which names the directory actually opened whatever its path leads to now),
// and from then on its entries are reached as /proc/self/fd/N/name: the kernel resolves that
// through the directory already opened. A subdirectory is opened the same way from its
// parent's descriptor, so a walk goes down one checked directory at a time and a symlink
// swapped in anywhere is met as a link, never followed.
// Without procfs (other systems) entries are reached by path again, and only the checks made
// before the open stand: the window between a check and a write is open there.
// The calls are synchronous: each takes microseconds, where a promise costs a trip through
// libuv's thread pool. The file tools (src/tools/files/held-dir.ts) and a snapshot restore
// (src/snapshots/restore.ts) both hold directories this way.
import { closeSync, constants, existsSync, fsyncSync, mkdirSync, openSync, readlinkSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW
/** Whether entries can be reached through a descriptor; without procfs they are reached by path. */
export const PROC_FD = existsSync('/proc/self/fd')

/** The path a descriptor really names now (Linux), or null without procfs. */
export function openedPath(fd: number): string | null {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`)
  } catch {
    return null
  }
}

export class HeldDir {
  #fd: number | null
  /** The directory's path when it was opened (how its entries are named). */
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

/**
 * Judges a directory just opened (its descriptor, and the path it was opened as): why it must
 * not be used, or null when it may. It may throw (taken as `other`).
 */
export type OpenedCheck = (fd: number, path: string) => string | null

/** The opened directory as held, once the check accepts it; else closed. */
function verified(fd: number, path: string, check: OpenedCheck): HeldDir {
  let why: string | null
  try {
    why = check(fd, path)
  } catch (err) {
    closeSync(fd)
    throw new NotHeld('other', err)
  }
  if (why !== null) {
    closeSync(fd)
    throw new NotHeld('outside', new Error(why))
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

/** Opens a directory by its real path and checks what was opened. Throws NotHeld. */
export function holdDir(real: string, check: OpenedCheck): HeldDir {
  return verified(openDirectory(real), real, check)
}

/** Opens `name` in a held directory, never through a link. Throws NotHeld. */
export function holdSubdir(parent: HeldDir, name: string, check: OpenedCheck): HeldDir {
  return verified(openDirectory(parent.at(name)), join(parent.path, name), check)
}

/**
 * Holds `name` in a held directory, making it first when it is missing: it is made inside
 * the held parent and opened from it, so a parent swapped for a link meanwhile cannot send
 * it elsewhere. Throws NotHeld.
 */
export function holdSubdirMaking(parent: HeldDir, name: string, check: OpenedCheck): HeldDir {
  try {
    return holdSubdir(parent, name, check)
  } catch (err) {
    if (!(err instanceof NotHeld) || err.reason !== 'missing') throw err
  }
  try {
    mkdirSync(parent.at(name))
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
  }
  return holdSubdir(parent, name, check)
}

/**
 * Holds the directory at `real`, making it and any missing parents first, each inside its
 * held parent (holdSubdirMaking). Throws NotHeld.
 */
export function holdDirMaking(real: string, check: OpenedCheck): HeldDir {
  try {
    return holdDir(real, check)
  } catch (err) {
    if (!(err instanceof NotHeld) || err.reason !== 'missing' || dirname(real) === real) throw err
  }
  const parent = holdDirMaking(dirname(real), check)
  try {
    return holdSubdirMaking(parent, basename(real), check)
  } finally {
    parent.close()
  }
}
