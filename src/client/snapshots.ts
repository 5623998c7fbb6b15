// What a session's runs changed in the workspace's files, and restores (undo, redo), as
// clients call them (group `snapshots`, docs/checkpoints.md). A restore is made under a
// fresh UUIDv7; a client that lost the answer repeats the PUT with the same id and body.
import { v7 as uuidv7 } from 'uuid'
import type { FileDiff, Restore, RestoreRequest, RunChanges, SessionChanges } from '../schemas/snapshots.ts'
import type { HearthClient } from './client.ts'

/** Pages of changes read at most for one listing (1000 files a page). */
const MAX_PAGES = 20

/** Every file a run changed (all pages, up to 20,000 files). */
export async function runChanges(
  client: HearthClient,
  sessionId: string,
  runId: string,
): Promise<RunChanges> {
  const params = { session_id: sessionId, run_id: runId }
  const first = (await client.call('snapshots.run_changes', { params, query: { limit: 1000 } })).body
  const items = [...first.items]
  let next = first.next
  for (let page = 1; next !== null && page < MAX_PAGES; page++) {
    const more = (await client.call('snapshots.run_changes', { params, query: { limit: 1000, next } })).body
    items.push(...more.items)
    next = more.next
  }
  return { ...first, items, next }
}

/** One file's diff in a run (root: the workspace unless given). */
export async function runFileDiff(
  client: HearthClient,
  sessionId: string,
  runId: string,
  path: string,
  root?: string,
): Promise<FileDiff> {
  const query = root === undefined ? { path } : { path, root }
  return (
    await client.call('snapshots.run_diff', { params: { session_id: sessionId, run_id: runId }, query })
  ).body
}

/** The session's runs that changed files, newest first (one page). */
export async function sessionChanges(
  client: HearthClient,
  sessionId: string,
  limit = 50,
  next?: string,
): Promise<SessionChanges> {
  const query = next === undefined ? { limit } : { limit, next }
  return (await client.call('snapshots.session_changes', { params: { session_id: sessionId }, query })).body
}

/**
 * Restores a run's files (`run_id`; none: the session's last run that changed files) or
 * undoes a restore (`restore_id`: a redo). Throws ProblemError `restore_conflict` (its
 * problem's `conflicts` lists the files), `session_busy`, `nothing_to_restore`, ...
 */
export async function restore(
  client: HearthClient,
  sessionId: string,
  request: RestoreRequest = {},
  restoreId: string = uuidv7(),
): Promise<Restore> {
  const params = { session_id: sessionId, restore_id: restoreId }
  return (await client.call('snapshots.restore_put', { params, body: request })).body
}

/**
 * The restore a redo undoes: the session's last change to the files when that was a restore
 * (its read's `last_change`); null when the last change was a run's, or none was recorded.
 */
export async function lastRestoreId(client: HearthClient, sessionId: string): Promise<string | null> {
  const read = (await client.call('sessions.get', { params: { session_id: sessionId } })).body as {
    last_change?: { restore_id: string | null } | null
  }
  return read.last_change?.restore_id ?? null
}

/** Undoes the session's last restore (a redo); null when its last change was not a restore. */
export async function redo(client: HearthClient, sessionId: string): Promise<Restore | null> {
  const undone = await lastRestoreId(client, sessionId)
  return undone === null ? null : restore(client, sessionId, { restore_id: undone })
}

export async function readRestore(
  client: HearthClient,
  sessionId: string,
  restoreId: string,
): Promise<Restore> {
  return (
    await client.call('snapshots.restore_get', { params: { session_id: sessionId, restore_id: restoreId } })
  ).body
}

/** The files of a restore_conflict problem (empty for any other error). */
export function conflictsOf(err: unknown): { root: string; path: string }[] {
  const problem = (err as { problem?: { code?: string; conflicts?: unknown } }).problem
  if (problem?.code !== 'restore_conflict' || !Array.isArray(problem.conflicts)) return []
  return problem.conflicts as { root: string; path: string }[]
}
