// What the CLI (`hearth diff`, `hearth undo`, `hearth redo`) and the terminal client (/diff,
// /undo, /redo) add to the snapshots calls of ./snapshots.ts: the session's last run that
// changed files, the restore a redo undoes, and a restore sent again under the same id when
// its answer may have been lost on the way (the daemon answers the same restore for the same
// id and body), so one intent is one restore.
import { v7 as uuidv7 } from 'uuid'
import type { FileChange, FileDiff, Restore, RestoreRequest, RunChanges } from '../schemas/snapshots.ts'
import { type HearthClient, NoDaemonError } from './client.ts'
import { lastRestoreId, readRestore, restore as restoreOnce, sessionChanges } from './snapshots.ts'

export { runChanges, runFileDiff } from './snapshots.ts'
export type { FileChange, FileDiff, Restore, RestoreRequest, RunChanges }

export type RestoredFile = Restore['files'][number]
/** A file named for a restore: its root (the workspace when absent) and its path in it. */
export type FileRef = NonNullable<RestoreRequest['files']>[number]

/** Attempts of one restore when its answer may have been lost (the same id each time). */
const RESTORE_ATTEMPTS = 3

/** The session's newest run that changed files, or undefined. */
export async function lastChangedRun(client: HearthClient, sessionId: string): Promise<string | undefined> {
  return (await sessionChanges(client, sessionId, 1)).items[0]?.run_id
}

/** The restore a redo undoes (the session's last change, when a restore made it), or undefined. */
export async function lastRestore(client: HearthClient, sessionId: string): Promise<Restore | undefined> {
  const id = await lastRestoreId(client, sessionId)
  return id === null ? undefined : readRestore(client, sessionId, id)
}

/**
 * A restore under one id for this intent (chosen now unless given), sent again when the
 * answer may have been lost. Problems (409 restore_conflict, session_busy, …) are thrown as
 * ProblemError.
 */
export async function restore(
  client: HearthClient,
  sessionId: string,
  request: RestoreRequest,
  restoreId: string = uuidv7(),
): Promise<Restore> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await restoreOnce(client, sessionId, request, restoreId)
    } catch (err) {
      // Refused before sending: nothing reached the daemon, and nothing will on a retry.
      const lost = err instanceof NoDaemonError && err.reason !== undefined && err.reason !== 'ECONNREFUSED'
      if (!lost || attempt >= RESTORE_ATTEMPTS) throw err
    }
  }
}
