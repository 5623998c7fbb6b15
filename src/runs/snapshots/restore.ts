// Restores: files put back to a run's `before` snapshot (an undo), or to a restore's own
// `before` (a redo). The order makes it durable: the restore's `before` snapshot (the redo
// point) is taken, the plan computed against the target and what the run left (`expected`),
// and both committed, fsynced, with the journal row `applying`, before any file is written;
// then the plan is applied and the restore committed `applied` with its `after` snapshot, a
// `workspace.restored` event and a note for the model's next request. A start that finds a
// restore `applying` applies its plan again (each file is put to its target: idempotent).
import { existsSync, writeFileSync } from 'node:fs'
import { v7 as uuidv7 } from 'uuid'
import { HearthError } from '../../schemas/problems.ts'
import type { Restore, RestoreRequest } from '../../schemas/snapshots.ts'
import type { FileRef, RestorePlanItem, RootTree } from '../../snapshots/engine.ts'
import { fullySynced } from '../../store/db.ts'
import type { RestoreRow, SnapshotRow } from '../../store/snapshots.ts'
import { intentOf } from '../../util/canonical.ts'
import { lower } from '../../util/uuid.ts'
import { engineNow, type SnapshotDeps, treesOf } from './deps.ts'
import { changesOfRun, requireRun, workspaceRoot } from './reads.ts'

/** Files a note to the model names at most (the rest are counted). */
const NOTE_FILES = 40

/** What a restore puts back: the target, what the run (or restore) left, and which files. */
interface Source {
  run_id: string | null
  undoes_restore_id: string | null
  target: SnapshotRow
  expected: SnapshotRow
  files: FileRef[]
}

export interface RestoreHooks {
  /** Runs `work` while the session is held idle (409 session_busy otherwise). */
  holdIdle: <T>(sessionId: string, work: () => Promise<T>) => Promise<T>
  /** Resolves once the session's `after` snapshots being taken are recorded. */
  settled: (sessionId: string) => Promise<void>
  /** Resolves once the start's recovery (a restore a crash interrupted) is over. */
  recovered: () => Promise<void>
}

export class Restores {
  readonly #d: SnapshotDeps
  readonly #hooks: RestoreHooks
  /** Restores being made now, by id (a repeat of the same intent waits for it). */
  readonly #inFlight = new Map<string, { intent: string; done: Promise<RestoreRow> }>()

  constructor(d: SnapshotDeps, hooks: RestoreHooks) {
    this.#d = d
    this.#hooks = hooks
  }

  get(sessionId: string, restoreId: string): Restore {
    this.#d.core.require(sessionId)
    const row = this.#d.rows.restore(lower(restoreId))
    if (!row || row.session_id !== sessionId)
      throw new HearthError('restore_not_found', `Session ${sessionId} has no restore ${restoreId}`)
    return toRestore(row)
  }

  /** PUT: a repeat answers the restore as it is (200); a new id restores (201). */
  async put(
    sessionId: string,
    restoreId: string,
    raw: unknown,
    validate: () => RestoreRequest,
  ): Promise<{ status: 200 | 201; restore: Restore }> {
    const id = lower(restoreId)
    const intent = intentOf(raw)
    const known = this.#d.rows.restore(id)
    if (known) {
      if (known.intent !== intent || known.session_id !== sessionId)
        throw new HearthError('restore_id_conflict', `Restore ${id} was made with another request`)
      return { status: 200, restore: toRestore(known) }
    }
    const running = this.#inFlight.get(id)
    if (running) {
      if (running.intent !== intent)
        throw new HearthError('restore_id_conflict', `Restore ${id} was made with another request`)
      return { status: 200, restore: toRestore(await running.done) }
    }
    // A new restore: its body is checked first (400 before 404), then its session.
    const body = validate()
    this.#d.core.require(sessionId)
    if (!this.#d.settings().enabled)
      throw new HearthError(
        'snapshots_disabled',
        'Snapshots are off (tools.snapshots.enabled): nothing restores',
      )
    const done = this.#hooks.holdIdle(sessionId, async () => {
      await this.#hooks.recovered()
      await this.#hooks.settled(sessionId)
      return this.#restore(sessionId, id, intent, body)
    })
    this.#inFlight.set(id, { intent, done })
    try {
      return { status: 201, restore: toRestore(await done) }
    } finally {
      this.#inFlight.delete(id)
    }
  }

  async #restore(sessionId: string, id: string, intent: string, body: RestoreRequest): Promise<RestoreRow> {
    const source = await this.#source(sessionId, body)
    const roots = treesOf(source.target).map((t) => t.root)
    const beforeId = uuidv7()
    const engine = engineNow(this.#d)
    const current = await engine.take(roots, beforeId)
    const plan = await engine.plan(
      treesOf(source.target),
      treesOf(source.expected),
      current.roots,
      source.files,
    )
    const conflicts = plan.filter((p) => p.conflict && p.action !== 'keep')
    if (conflicts.length > 0 && body.overwrite !== true) {
      await engine.drop([beforeId]).catch((err) => this.#d.onError(err))
      throw new HearthError(
        'restore_conflict',
        conflictDetail(source, conflicts),
        {},
        {
          conflicts: conflicts.map((c) => ({ root: c.root, path: c.path })),
        },
      )
    }
    const at = new Date(this.#d.core.now()).toISOString()
    const row: RestoreRow = {
      seq: 0,
      id,
      session_id: sessionId,
      intent,
      run_id: source.run_id,
      undoes_restore_id: source.undoes_restore_id,
      target_snapshot_id: source.target.id,
      expected_snapshot_id: source.expected.id,
      before_snapshot_id: beforeId,
      after_snapshot_id: null,
      state: 'applying',
      recovered: 0,
      error: null,
      plan: JSON.stringify(plan),
      created_at: at,
      ended_at: null,
    }
    // The journal is on disk before the first file is written.
    fullySynced(this.#d.core.db, () =>
      this.#d.core.db.transaction(() => {
        this.#d.rows.insert(
          snapshotRow(sessionId, id, beforeId, 'before', current.roots, current.skipped, at),
        )
        this.#d.rows.insertRestore(row)
      })(),
    )
    try {
      return await this.finish(row, false)
    } catch (err) {
      const failed = this.#fail(row, err, false)
      throw new HearthError('restore_failed', `Restore ${id} failed: ${failed.error}`)
    }
  }

  /** Records the restore `failed` with why (a refused path, an unwritable file). */
  #fail(row: RestoreRow, err: unknown, recovered: boolean): RestoreRow {
    const error = err instanceof Error ? err.message : String(err)
    this.#d.rows.markFailed(
      row.id,
      error.slice(0, 1000),
      new Date(this.#d.core.now()).toISOString(),
      recovered,
    )
    return this.#d.rows.restore(row.id) as RestoreRow
  }

  /** Applies the journal's plan and commits the restore `applied` (also after a restart). */
  async finish(row: RestoreRow, recovered: boolean): Promise<RestoreRow> {
    const plan = JSON.parse(row.plan) as RestorePlanItem[]
    const engine = engineNow(this.#d)
    const pause = recovered ? process.env.HEARTH_TEST_RECOVERY_PAUSE : process.env.HEARTH_TEST_RESTORE_PAUSE
    if (pause && plan.length > 1) {
      await engine.apply(plan.slice(0, 1))
      writeFileSync(`${pause}.reached`, '')
      await untilExists(pause)
      await engine.apply(plan.slice(1))
    } else await engine.apply(plan)
    const before = this.#d.rows.get(row.before_snapshot_id)
    const roots = before ? treesOf(before).map((t) => t.root) : [...new Set(plan.map((p) => p.root))]
    const afterId = uuidv7()
    const after = await engine.take(roots, afterId)
    const { core } = this.#d
    core.transact((tx) => {
      this.#d.rows.insert(
        snapshotRow(row.session_id, row.id, afterId, 'after', after.roots, after.skipped, tx.at),
      )
      this.#d.rows.markApplied(row.id, afterId, tx.at, recovered)
      if (!core.row(row.session_id)) return
      const changed = plan.filter((p) => p.action !== 'keep')
      const change = { run_id: null, restore_id: row.id, files: changed.length, at: tx.at }
      core.sql('UPDATE sessions SET last_change = ? WHERE id = ?').run(JSON.stringify(change), row.session_id)
      if (changed.length > 0)
        core
          .sql('INSERT INTO session_notes (session_id, source, text, created_at) VALUES (?, ?, ?, ?)')
          .run(row.session_id, 'restore', noteOf(row, changed), tx.at)
      tx.append(row.session_id, 'workspace.restored', {
        restore_id: row.id,
        run_id: row.run_id,
        undoes_restore_id: row.undoes_restore_id,
        files: changed.length,
        recovered,
      })
    })
    return this.#d.rows.restore(row.id) as RestoreRow
  }

  /** At start: restores a crash left `applying` are applied again and recorded `applied`. */
  async recover(): Promise<void> {
    for (const row of this.#d.rows.applying()) {
      try {
        await this.finish(row, true)
      } catch (err) {
        this.#d.onError(err)
        this.#fail(row, err, true)
      }
    }
  }

  /** What the request restores: a run's changes, or a restore's (a redo). */
  async #source(sessionId: string, body: RestoreRequest): Promise<Source> {
    if (body.restore_id !== undefined) return this.#redoSource(sessionId, lower(body.restore_id), body)
    let runId: string
    if (body.run_id !== undefined) {
      runId = lower(body.run_id)
      requireRun(this.#d, sessionId, runId)
    } else {
      const last = this.#d.rows.lastChangedRun(sessionId)
      if (!last?.run_id) throw new HearthError('nothing_to_restore', 'No run of this session changed files')
      runId = last.run_id
    }
    const target = this.#d.rows.ofRun(runId, 'before')
    const expected = this.#d.rows.ofRun(runId, 'after')
    if (!target || !expected)
      throw new HearthError(
        'nothing_to_restore',
        `Run ${runId} has no snapshots (it changed nothing, or they were pruned)`,
      )
    const changed = (await changesOfRun(this.#d, { before: target, after: expected })).flatMap((c) =>
      c.old_path
        ? [
            { root: c.root, path: c.old_path },
            { root: c.root, path: c.path },
          ]
        : [{ root: c.root, path: c.path }],
    )
    const files = this.#chosen(sessionId, body, target, changed)
    return { run_id: runId, undoes_restore_id: null, target, expected, files }
  }

  #redoSource(sessionId: string, restoreId: string, body: RestoreRequest): Source {
    const undone = this.#d.rows.restore(restoreId)
    if (!undone || undone.session_id !== sessionId || undone.state !== 'applied')
      throw new HearthError('restore_not_found', `Session ${sessionId} has no applied restore ${restoreId}`)
    const target = this.#d.rows.get(undone.before_snapshot_id)
    const expected = undone.after_snapshot_id ? this.#d.rows.get(undone.after_snapshot_id) : undefined
    if (!target || !expected)
      throw new HearthError('nothing_to_restore', `Restore ${restoreId} has no snapshots (they were pruned)`)
    const changed = (JSON.parse(undone.plan) as RestorePlanItem[])
      .filter((p) => p.action !== 'keep')
      .map((p) => ({ root: p.root, path: p.path }))
    const files = this.#chosen(sessionId, body, target, changed)
    return { run_id: null, undoes_restore_id: restoreId, target, expected, files }
  }

  /** The files named in the request (root defaulting to the workspace), else all `changed`. */
  #chosen(sessionId: string, body: RestoreRequest, target: SnapshotRow, changed: FileRef[]): FileRef[] {
    const roots = new Set(treesOf(target).map((t: RootTree) => t.root))
    let files = changed
    if (body.files) {
      const workspace = workspaceRoot(this.#d, sessionId)
      files = body.files.map((f) => ({ root: f.root ?? workspace, path: f.path }))
      const outside = files.find((f) => !roots.has(f.root))
      if (outside)
        throw new HearthError('nothing_to_restore', `${outside.root} is not a root its snapshots captured`)
      const strange = files.find((f) => !insideRoot(f.path))
      if (strange)
        throw new HearthError('nothing_to_restore', `${strange.path} is not a path inside its root`)
    }
    if (files.length === 0) throw new HearthError('nothing_to_restore', 'The run changed no file')
    return files
  }
}

/** The detail of a restore_conflict: what changed since, and what to do. */
function conflictDetail(source: Source, conflicts: RestorePlanItem[]): string {
  const since = source.run_id ? `run ${source.run_id}` : `restore ${source.undoes_restore_id}`
  const named = conflicts.slice(0, 5).map((c) => c.path)
  const more = conflicts.length > 5 ? ', …' : ''
  return `${conflicts.length} file(s) changed since ${since}: ${named.join(', ')}${more}; nothing was restored (overwrite: true restores them anyway)`
}

/** A relative `/`-separated path that stays inside its root and out of `.git`. */
function insideRoot(path: string): boolean {
  if (path.startsWith('/')) return false
  return path.split('/').every((part) => part !== '..' && part !== '.git' && part !== '')
}

/**
 * Tests make a restore pause after its first file (HEARTH_TEST_RESTORE_PAUSE names a file
 * whose appearance lets it go on; it writes `<file>.reached` when it waits), so that a kill -9
 * lands while the journal says `applying` and the files are half written; and the start's
 * recovery of it pause the same way (HEARTH_TEST_RECOVERY_PAUSE), so that a request can come
 * while it is under way.
 */
async function untilExists(path: string): Promise<void> {
  while (!existsSync(path)) await new Promise((r) => setTimeout(r, 20))
}

function snapshotRow(
  sessionId: string,
  restoreId: string,
  id: string,
  phase: 'before' | 'after',
  roots: RootTree[],
  skipped: unknown[],
  at: string,
) {
  return {
    id,
    session_id: sessionId,
    run_id: null,
    restore_id: restoreId,
    phase,
    roots: JSON.stringify(roots),
    skipped: JSON.stringify(skipped),
    files: null,
    approximate: 0,
    created_at: at,
  }
}

function toRestore(r: RestoreRow): Restore {
  const plan = JSON.parse(r.plan) as RestorePlanItem[]
  return {
    id: r.id,
    session_id: r.session_id,
    run_id: r.run_id,
    undoes_restore_id: r.undoes_restore_id,
    state: r.state,
    recovered: r.recovered === 1,
    error: r.error,
    files: plan.map((p) => ({
      root: p.root,
      path: p.path,
      action: p.action === 'write' ? 'written' : p.action === 'delete' ? 'deleted' : 'kept',
    })),
    snapshot_id: r.before_snapshot_id,
    created_at: r.created_at,
    ended_at: r.ended_at,
  }
}

/** The history note the model reads with its next request. */
function noteOf(r: RestoreRow, changed: RestorePlanItem[]): string {
  const names = changed
    .slice(0, NOTE_FILES)
    .map((p) => `${p.path} (${p.action === 'delete' ? 'deleted' : 'restored'})`)
  const more = changed.length > NOTE_FILES ? `, and ${changed.length - NOTE_FILES} more` : ''
  const what = r.run_id
    ? `to how it was before run ${r.run_id}`
    : `to how it was before restore ${r.undoes_restore_id} (that restore was undone)`
  return `The user restored the workspace's files ${what}; files now differ from what you last saw: ${names.join(', ')}${more}. Read a file again before relying on its content.`
}
