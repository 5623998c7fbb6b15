// What the account store and the pools need from the settings side: the files as they are
// now, and one locked read-modify-write whose function may await (a token refresh calls
// the provider while it holds the credential lock).
//
// `Settings` (src/settings/service.ts) satisfies `CredentialFiles` once its `update`
// accepts an async function and awaits it inside `lock.run`. `lockedFiles` builds the same
// thing from the home and the daemon's one `CredentialLock`, for callers that hold those
// rather than a `Settings`; it must be given the same lock instance `Settings` uses.
import { commitFiles, type FileContents, readAllSettings } from '../settings/files.ts'
import type { CredentialLock } from '../settings/lock.ts'

/** Gets the files as they are under the lock; returns the files to commit, or nothing. */
export type FilesUpdater = (
  files: FileContents,
) => Partial<FileContents> | undefined | Promise<Partial<FileContents> | undefined>

export interface CredentialFiles {
  /** The files as they are now (no lock: a snapshot for reads and the fast path). */
  files: () => FileContents
  /**
   * Runs `fn` under the credential lock with the files re-read inside it, holds the lock
   * across `fn`'s awaits, and commits what it returns. (A property, not a method, so that
   * an `update` whose `fn` must be synchronous does not type-check here.)
   */
  update: (fn: FilesUpdater) => Promise<void>
}

/** `CredentialFiles` over a home and the daemon's credential lock. */
export function lockedFiles(home: string, lock: CredentialLock): CredentialFiles {
  return {
    files: () => readAllSettings(home),
    update: (fn) =>
      lock.run(async () => {
        const changed = await fn(readAllSettings(home))
        if (changed) commitFiles(home, changed)
      }),
  }
}
