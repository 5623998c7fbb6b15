// Writes a file whole or not at all: the bytes go to a fresh temp file beside the target
// (created exclusively, so nothing already there is followed or reused), are synced, and
// the temp file is renamed over the target. A rename replaces a symlink at the target
// instead of writing through it, which is why this does not use write-file-atomic (it
// resolves the target's symlinks first, by design). A crash leaves the old file or the new
// one, never half of either; at worst a stray `.name.*.tmp` file.
import { randomBytes } from 'node:crypto'
import { chmod, type FileHandle, lstat, open, rename, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

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

function tempName(target: string): string {
  const base = basename(target).slice(0, 200)
  return join(dirname(target), `.${base}.${randomBytes(6).toString('hex')}.tmp`)
}

export async function writeAtomic(target: string, data: Uint8Array, opts: AtomicOptions = {}): Promise<void> {
  const tmp = tempName(target)
  const fh = await open(tmp, 'wx', 0o666)
  try {
    try {
      await fh.writeFile(data)
      if (opts.owner) await keepOwner(fh, opts.owner)
      if (opts.mode !== undefined) await chmod(tmp, opts.mode)
      await fh.sync()
    } finally {
      await fh.close()
    }
    if (opts.expect) {
      const now = await lstat(target)
      const e = opts.expect
      if (now.ino !== e.ino || now.size !== e.size || now.mtimeMs !== e.mtimeMs) throw new ChangedMeanwhile()
    }
    await rename(tmp, target)
  } catch (err) {
    await unlink(tmp).catch(() => {})
    throw err
  }
  await syncDir(dirname(target))
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

/** Makes the rename itself durable (the directory entry), best effort. */
async function syncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, 'r')
    try {
      await fh.sync()
    } finally {
      await fh.close()
    }
  } catch {
    // some file systems refuse fsync on a directory; the data itself is synced
  }
}
