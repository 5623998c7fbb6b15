// Writes a file whole or not at all: the bytes go to a fresh temp file beside the target
// (created exclusively, so nothing already there is followed or reused), are synced, and
// the temp file is renamed over the target. A rename replaces a symlink at the target
// instead of writing through it, which is why this does not use write-file-atomic (it
// resolves the target's symlinks first, by design). A crash leaves the old file or the new
// one, never half of either; at worst a stray `.name.*.tmp` file.
// All of it happens in a held directory (held-dir.ts), reached through its descriptor: a
// parent directory swapped for a symlink after the check cannot send the file elsewhere.
import { randomBytes } from 'node:crypto'
import { lstatSync } from 'node:fs'
import { type FileHandle, open, rename, unlink } from 'node:fs/promises'
import type { HeldDir } from './held-dir.ts'

export interface Expected {
  ino: number
  size: number
  mtimeMs: number
}

/** The target changed between the read and the write (another process wrote it). */
export class ChangedMeanwhile extends Error {}

export interface AtomicOptions {
  /** Permission bits for the file (an overwritten file keeps its own); default 0666 less umask. */
  mode?: number
  /** The owner to keep (an overwritten file's), best effort: only root may give a file away. */
  owner?: { uid: number; gid: number }
  /** Refuse when the target is no longer the file that was read. */
  expect?: Expected
}

function tempName(name: string): string {
  return `.${name.slice(0, 200)}.${randomBytes(6).toString('hex')}.tmp`
}

/** Writes `data` as the file `name` of the held directory `dir`. */
export async function writeAtomic(
  dir: HeldDir,
  name: string,
  data: Uint8Array,
  opts: AtomicOptions = {},
): Promise<void> {
  const tmp = dir.at(tempName(name))
  const target = dir.at(name)
  const fh = await open(tmp, 'wx', 0o666)
  try {
    try {
      await fh.writeFile(data)
      if (opts.owner) await keepOwner(fh, opts.owner)
      if (opts.mode !== undefined) await fh.chmod(opts.mode)
      await fh.sync()
    } finally {
      await fh.close()
    }
    if (opts.expect) {
      const now = lstatSync(target)
      const e = opts.expect
      if (now.ino !== e.ino || now.size !== e.size || now.mtimeMs !== e.mtimeMs) throw new ChangedMeanwhile()
    }
    await rename(tmp, target)
  } catch (err) {
    await unlink(tmp).catch(() => {})
    throw err
  }
  dir.sync() // makes the rename itself durable
}

async function keepOwner(fh: FileHandle, owner: { uid: number; gid: number }): Promise<void> {
  const st = await fh.stat()
  if (st.uid === owner.uid && st.gid === owner.gid) return
  try {
    await fh.chown(owner.uid, owner.gid)
  } catch {
    // not root (nor in the group): the new file stays the writer's
  }
}
