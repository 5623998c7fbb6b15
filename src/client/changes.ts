// What a run changed in the workspace and putting it back (docs/checkpoints.md), as the CLI
// (`hearth diff`, `hearth undo`, `hearth redo`) and the terminal client (/diff, /undo,
// /redo) read and ask for it: the session's last run that changed files, all of a run's
// changes page after page, one file's diff, the restore that undoes a run or a restore (its
// id chosen here, once per intent, so a retry after a lost answer is the same restore),
// and the session's last restore (what a redo undoes).
import { v7 as uuidv7 } from 'uuid'
import type {
  FileChange,
  FileDiff,
  Restore,
  RestoreRequest,
  RunChanges,
  SessionChanges,
} from '../schemas/snapshots.ts'
import { type HearthClient, NoDaemonError } from './client.ts'

export type { FileChange, FileDiff, Restore, RestoreRequest, RunChanges }

export type RestoredFile = Restore['files'][number]
export type ChangedRun = SessionChanges['items'][number]
/** A file named for a restore: its root (the workspace when absent) and its path in it. */
export type FileRef = NonNullable<RestoreRequest['files']>[number]

const PAGE = 200
/** Attempts of one restore when its answer may have been lost (the same id each time). */
const RESTORE_ATTEMPTS = 3

/** The session's runs that changed files, newest first (the first page). */
export async function changedRuns(
  client: HearthClient,
  sessionId: string,
  limit = 20,
): Promise<ChangedRun[]> {
  const { body } = await client.call('snapshots.session_changes', {
    params: { session_id: sessionId },
    query: { limit },
  })
  return body.items
}

/** The session's newest run that changed files, or undefined. */
export async function lastChangedRun(client: HearthClient, sessionId: string): Promise<string | undefined> {
  return (await changedRuns(client, sessionId, 1))[0]?.run_id
}

/** Every change of a run (the pages joined into the first). */
export async function runChanges(
  client: HearthClient,
  sessionId: string,
  runId: string,
): Promise<RunChanges> {
  let whole: RunChanges | undefined
  let next: string | undefined
  do {
    const { body } = await client.call('snapshots.run_changes', {
      params: { session_id: sessionId, run_id: runId },
      query: next === undefined ? { limit: PAGE } : { limit: PAGE, next },
    })
    const page = body
    if (whole) whole.items.push(...page.items)
    else whole = { ...page, items: [...page.items], skipped: [...page.skipped] }
    next = page.next ?? undefined
  } while (next !== undefined)
  return { ...(whole as RunChanges), next: null }
}

/** One changed file's diff (bounded by the daemon; a binary file named, not dumped). */
export async function fileDiff(
  client: HearthClient,
  sessionId: string,
  runId: string,
  change: { root: string; path: string },
): Promise<FileDiff> {
  const { body } = await client.call('snapshots.run_diff', {
    params: { session_id: sessionId, run_id: runId },
    query: { root: change.root, path: change.path },
  })
  return body
}

export async function getRestore(
  client: HearthClient,
  sessionId: string,
  restoreId: string,
): Promise<Restore> {
  const { body } = await client.call('snapshots.restore_get', {
    params: { session_id: sessionId, restore_id: restoreId },
  })
  return body
}

/**
 * The session's last restore (what a redo undoes), or undefined when it has none: the
 * session's last change when a restore made it, else the newest restore that undid one of
 * its runs (restore ids are UUIDv7s: they sort by time).
 */
export async function lastRestore(client: HearthClient, sessionId: string): Promise<Restore | undefined> {
  const { body } = await client.call('sessions.get', {
    params: { session_id: sessionId },
    query: { tail: 0 },
  })
  let id = body.last_change?.restore_id ?? undefined
  if (id === undefined) {
    const ids = (await changedRuns(client, sessionId, 100))
      .map((r) => r.restored_by)
      .filter((r) => r !== null)
    id = ids.sort().at(-1)
  }
  return id ? getRestore(client, sessionId, id) : undefined
}

/**
 * A restore: one id for this intent (chosen now unless given), sent again when the answer
 * may have been lost on the way (the daemon answers the same restore for the same id).
 * Problems (409 restore_conflict, session_busy, …) are thrown as ProblemError.
 */
export async function restore(
  client: HearthClient,
  sessionId: string,
  request: RestoreRequest,
  restoreId: string = uuidv7(),
): Promise<Restore> {
  for (let attempt = 1; ; attempt++) {
    try {
      const { body } = await client.call('snapshots.restore_put', {
        params: { session_id: sessionId, restore_id: restoreId },
        body: request,
      })
      return body
    } catch (err) {
      // Refused before sending: nothing reached the daemon, and nothing will on a retry.
      const lost = err instanceof NoDaemonError && err.reason !== undefined && err.reason !== 'ECONNREFUSED'
      if (!lost || attempt >= RESTORE_ATTEMPTS) throw err
    }
  }
}
