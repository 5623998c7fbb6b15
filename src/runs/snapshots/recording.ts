// A run's two snapshots. `before`: just before the run's first call that is not a read (after
// the approval gate let it run, before it goes to the kernel), once per run; its row is
// committed before the call runs, and later calls wait for nothing. `after`: when the run
// ends, whatever its outcome, with the count of files that differ; it commits right after
// the run's end (a `workspace.changed` event). A crash between the two leaves a run with its
// `before` only: the next start takes its `after` then (`approximate`).
import { v7 as uuidv7 } from 'uuid'
import type { Capture, RootTree } from '../../snapshots/engine.ts'
import type { SnapshotRow } from '../../store/snapshots.ts'
import type { RunToolScope } from '../active-run.ts'
import { engineNow, type SnapshotDeps, treesOf } from './deps.ts'
import { snapshotRoots } from './roots.ts'

interface Before {
  id: string
  roots: string[]
  trees: RootTree[]
}

export class SnapshotRecorder {
  readonly #d: SnapshotDeps
  /** Each run's `before` (null: none taken), by run id, until its `after` is recorded. */
  readonly #before = new Map<string, Promise<Before | null>>()
  /** Each session's `after` snapshots being taken: a restore waits for them. */
  readonly #pending = new Map<string, Set<Promise<void>>>()
  /** Called after an `after` is recorded (retention, in the background). */
  onRecorded: () => void = () => {}

  constructor(d: SnapshotDeps) {
    this.#d = d
  }

  /** The run's `before`, taken at its first call that is not a read; later calls wait for nothing new. */
  async before(sessionId: string, runId: string, scope: RunToolScope): Promise<void> {
    let taken = this.#before.get(runId)
    if (!taken) {
      if (!this.#d.settings().enabled) return
      taken = this.#takeBefore(sessionId, runId, scope)
      this.#before.set(runId, taken)
    }
    await taken
  }

  async #takeBefore(sessionId: string, runId: string, scope: RunToolScope): Promise<Before | null> {
    const roots = snapshotRoots(scope.workspace, scope.allowedRoots, this.#d.home)
    if (roots.length === 0) return null
    const id = uuidv7()
    try {
      const capture = await engineNow(this.#d).take(roots, id)
      this.#insert(sessionId, runId, id, 'before', capture, null, false)
      return { id, roots, trees: capture.roots }
    } catch (err) {
      // A run is never stopped by its snapshot: it goes on without one (changes read `none`).
      this.#d.onError(err)
      return null
    }
  }

  /** The run ended: its `after`, taken now (queued behind any git call on its roots). */
  after(sessionId: string, runId: string): void {
    const taken = this.#before.get(runId)
    if (!taken) return
    const done = taken
      .then((before) => (before ? this.#takeAfter(sessionId, runId, before, false) : undefined))
      .catch((err) => this.#d.onError(err))
      .finally(() => {
        this.#before.delete(runId)
        this.#pending.get(sessionId)?.delete(done)
        this.onRecorded()
      })
    const set = this.#pending.get(sessionId) ?? new Set<Promise<void>>()
    this.#pending.set(sessionId, set)
    set.add(done)
  }

  /** Resolves once the session's `after` snapshots being taken now are recorded. */
  async settled(sessionId: string): Promise<void> {
    await Promise.all([...(this.#pending.get(sessionId) ?? [])])
  }

  /** At start: the runs a crash left with a `before` only get their `after` now. */
  async recover(): Promise<void> {
    for (const row of this.#d.rows.runsWithoutAfter()) {
      const before: Before = { id: row.id, roots: treesOf(row).map((t) => t.root), trees: treesOf(row) }
      try {
        await this.#takeAfter(row.session_id, row.run_id as string, before, true)
      } catch (err) {
        this.#d.onError(err)
      }
    }
  }

  async #takeAfter(sessionId: string, runId: string, before: Before, approximate: boolean): Promise<void> {
    const id = uuidv7()
    const engine = engineNow(this.#d)
    const capture = await engine.take(before.roots, id)
    const files = (await engine.changes(before.trees, capture.roots)).length
    const { core } = this.#d
    core.transact((tx) => {
      this.#insert(sessionId, runId, id, 'after', capture, files, approximate)
      const s = core.row(sessionId)
      if (!s) return
      if (files > 0) {
        const change = { run_id: runId, restore_id: null, files, at: tx.at }
        core.sql('UPDATE sessions SET last_change = ? WHERE id = ?').run(JSON.stringify(change), sessionId)
      }
      tx.append(sessionId, 'workspace.changed', { run_id: runId, files, approximate })
    })
  }

  #insert(
    sessionId: string,
    runId: string,
    id: string,
    phase: SnapshotRow['phase'],
    capture: Capture,
    files: number | null,
    approximate: boolean,
  ): void {
    this.#d.rows.insert({
      id,
      session_id: sessionId,
      run_id: runId,
      restore_id: null,
      phase,
      roots: JSON.stringify(capture.roots),
      skipped: JSON.stringify(capture.skipped),
      files,
      approximate: Number(approximate),
      created_at: new Date(this.#d.core.now()).toISOString(),
    })
  }
}
