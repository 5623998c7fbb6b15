// Reading what runs changed: a run's changed files (between its before and after snapshots),
// one file's bounded diff, and the session's runs that changed files.
import { realpathSync } from 'node:fs'
import { HearthError } from '../../schemas/problems.ts'
import type { FileChange, FileDiff, RunChanges, SessionChanges } from '../../schemas/snapshots.ts'
import { MAX_DIFF_BYTES } from '../../schemas/snapshots.ts'
import type { SnapshotRow } from '../../store/snapshots.ts'
import { type SnapshotDeps, treesOf } from './deps.ts'

/** The session's workspace as its snapshots name it (the real path). */
export function workspaceRoot(d: SnapshotDeps, sessionId: string): string {
  const workspace = d.core.require(sessionId).workspace
  try {
    return realpathSync(workspace)
  } catch {
    return workspace
  }
}

/** 404 run_not_found unless the session (which must exist) has this run. */
export function requireRun(d: SnapshotDeps, sessionId: string, runId: string): { ended_at: string | null } {
  d.core.require(sessionId)
  const run = d.core.sql('SELECT session_id, ended_at FROM runs WHERE id = ?').get(runId) as
    | { session_id: string; ended_at: string | null }
    | undefined
  if (!run || run.session_id !== sessionId)
    throw new HearthError('run_not_found', `Session ${sessionId} has no run ${runId}`)
  return run
}

interface RunPair {
  before: SnapshotRow
  after: SnapshotRow
}

/** Every file the run changed (both snapshots recorded), in the engine's order. */
export async function changesOfRun(d: SnapshotDeps, pair: RunPair): Promise<FileChange[]> {
  return (await d.engine.changes(treesOf(pair.before), treesOf(pair.after))) as FileChange[]
}

export async function runChanges(
  d: SnapshotDeps,
  sessionId: string,
  runId: string,
  offset: number,
  limit: number,
): Promise<RunChanges & { nextOffset: number | null }> {
  requireRun(d, sessionId, runId)
  const before = d.rows.ofRun(runId, 'before')
  const after = d.rows.ofRun(runId, 'after')
  const empty = {
    run_id: runId,
    files: 0,
    approximate: false,
    items: [],
    skipped: [],
    next: null,
    nextOffset: null,
  }
  if (!before) return { ...empty, state: 'none' }
  // Its `after` is being taken (at the run's end, or at the next start after a crash).
  if (!after) return { ...empty, state: 'running' }
  const all = await changesOfRun(d, { before, after })
  const end = Math.min(all.length, offset + limit)
  const skipped = [...JSON.parse(before.skipped), ...JSON.parse(after.skipped)]
  const seen = new Set<string>()
  return {
    run_id: runId,
    state: 'recorded',
    files: all.length,
    approximate: after.approximate === 1,
    items: all.slice(offset, end),
    skipped: skipped.filter((s) => {
      const key = `${s.root}\0${s.path}`
      if (seen.has(key)) return false
      seen.add(key)
      return true
    }),
    next: null,
    nextOffset: end < all.length ? end : null,
  }
}

export async function runDiff(
  d: SnapshotDeps,
  sessionId: string,
  runId: string,
  root: string | undefined,
  path: string,
): Promise<FileDiff> {
  requireRun(d, sessionId, runId)
  const before = d.rows.ofRun(runId, 'before')
  const after = d.rows.ofRun(runId, 'after')
  const at = root ?? workspaceRoot(d, sessionId)
  const missing = () => new HearthError('change_not_found', `Run ${runId} did not change ${path} in ${at}`)
  if (!before || !after) throw missing()
  const changed = (await changesOfRun(d, { before, after })).some(
    (c) => c.root === at && (c.path === path || c.old_path === path),
  )
  if (!changed) throw missing()
  return (await d.engine.diff(treesOf(before), treesOf(after), at, path, MAX_DIFF_BYTES)) as FileDiff
}

export function sessionChanges(
  d: SnapshotDeps,
  sessionId: string,
  beforeSeq: number,
  limit: number,
): SessionChanges & { nextSeq: number | null } {
  d.core.require(sessionId)
  const rows = d.rows.changedRuns(sessionId, beforeSeq, limit + 1)
  const page = rows.slice(0, limit)
  return {
    items: page.map((r) => ({
      run_id: r.run_id,
      files: r.files,
      ended_at: r.ended_at,
      restored_by: r.restored_by,
    })),
    next: null,
    nextSeq: rows.length > limit ? (page.at(-1)?.seq ?? null) : null,
  }
}
