// Directories the file tools work in through an open descriptor, so that nothing swapped in
// after a path's check can redirect them. The holding itself is src/util/held-dir.ts (a
// snapshot restore holds directories the same way); what the tools add is their check: the
// descriptor's real path must lie inside the roots and outside hearth's home (confine.ts,
// openedElsewhere). From then on a directory's entries are reached as /proc/self/fd/N/name,
// and a subdirectory is opened from its parent's descriptor, so a symlink swapped in
// anywhere is met as a link, never followed. Without procfs entries are reached by path and
// the checks before the open stand alone (docs/tools-files.md).
import { constants } from 'node:fs'
import {
  HeldDir,
  holdDir as holdChecked,
  holdDirMaking as holdCheckedMaking,
  holdSubdir as holdCheckedSubdir,
  NotHeld,
  type OpenedCheck,
} from '../../util/held-dir.ts'
import { openedElsewhere, type Roots } from '../confine.ts'
import { fsMessage } from './common.ts'

export { HeldDir, NotHeld }

/** How the tools open a file to read it: never through a link, never blocking on a pipe. */
export const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK

/** The tools' check of a directory just opened: inside the roots, outside hearth's home. */
const insideRoots =
  (roots: Roots): OpenedCheck =>
  (fd) =>
    openedElsewhere(fd, roots)

/** Opens a confined directory by its real path and checks what was opened. Throws NotHeld. */
export function holdDir(real: string, roots: Roots): HeldDir {
  return holdChecked(real, insideRoots(roots))
}

/** Opens `name` in a held directory, never through a link. Throws NotHeld. */
export function holdSubdir(parent: HeldDir, name: string, roots: Roots): HeldDir {
  return holdCheckedSubdir(parent, name, insideRoots(roots))
}

/**
 * Holds the directory at `real`, making it and any missing parents first: each one is made
 * inside its held parent and opened from it, so a parent swapped for a link meanwhile stops
 * the walk down instead of sending it elsewhere.
 */
export function holdDirMaking(real: string, roots: Roots): HeldDir {
  return holdCheckedMaking(real, insideRoots(roots))
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
