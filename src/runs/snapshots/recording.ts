// A run's two snapshots. `before`: just before the run's first call that is not a read (after
// the approval gate let it run, before it goes to the kernel), once per run; its row is
// committed before the call runs, and later calls wait for nothing. `after`: when the run
// ends, whatever its outcome, with the count of files that differ; it commits right after
// the run's end (a `workspace.changed` event). A crash between the two leaves a run with its
// `before` only: the next start takes its `after` then (`approximate`).
//
// The `before` is captured ahead (`prepare`), as soon as the model asks for a tool: while the
// step's stream ends, its calls are checked and committed and any approval is waited for.
// The first call that changes something then only records it, or waits for what is left of
// the capture. A run that only answers captures nothing. What changes between the run's start and that call (only the
// person or a background job can change files then) counts as before the run. A run that
// changes nothing drops its capture; a session whose policy is read-only captures nothing.
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

/** A capture taken as a run started, not recorded yet. */
interface Ahead {
  id: string
  roots: string[]
  capture: Capture
}

export class SnapshotRecorder {
  readonly #d: SnapshotDeps
  /** Each run's `before` (null: none taken), by run id, until its `after` is recorded. */
  readonly #before = new Map<string, Promise<Before | null>>()
  /** Captures taken as runs started, by run id, until their first change records one or the run ends. */
  readonly #ahead = new Map<string, Promise<Ahead | null>>()
  /** The `before` snapshots of runs whose `after` is not recorded yet: retention keeps them. */
  readonly open = new Set<string>()
  /** Each session's `after` snapshots being taken: a restore waits for them. */
  readonly #pending = new Map<string, Set<Promise<void>>>()
  /** Called after an `after` is recorded (retention, in the background). */
  onRecorded: () => void = () => {}

  constructor(d: SnapshotDeps) {
    this.#d = d
  }

  /**
   * The model asked for a tool: the run's roots are captured in the background for its
   * `before`, after what came has had the event loop (a child process starts on it). Once
   * per run, and not once its `before` is recorded.
   */
  prepare(runId: string, scope: RunToolScope): void {
    if (this.#ahead.has(runId) || this.#before.has(runId)) return
    if (scope.policy === 'read-only' || !this.#d.settings().enabled) return
    this.#ahead.set(
      runId,
      new Promise<void>((r) => setImmediate(r)).then(() => this.#capture(scope)),
    )
  }

  /** The run's `before`, recorded at its first call that is not a read; later calls wait for nothing new. */
  async before(sessionId: string, runId: string, scope: RunToolScope): Promise<void> {
    let taken = this.#before.get(runId)
    if (!taken) {
      if (!this.#d.settings().enabled) return
      const ahead = this.#ahead.get(runId) ?? this.#capture(scope)
      this.#ahead.delete(runId)
      taken = this.#record(sessionId, runId, ahead)
      this.#before.set(runId, taken)
    }
    await taken
  }

  async #capture(scope: RunToolScope): Promise<Ahead | null> {
    const roots = snapshotRoots(scope.workspace, scope.allowedRoots, this.#d.home)
    if (roots.length === 0) return null
    const id = uuidv7()
    try {
      return { id, roots, capture: await engineNow(this.#d).take(roots, id) }
    } catch (err) {
      // A run is never stopped by its snapshot: it goes on without one (changes read `none`).
      this.#d.onError(err)
      return null
    }
  }

  async #record(sessionId: string, runId: string, ahead: Promise<Ahead | null>): Promise<Before | null> {
    const taken = await ahead
    if (!taken) return null
    this.open.add(taken.id)
    this.#insert(sessionId, runId, taken.id, 'before', taken.capture, null, false)
    return { id: taken.id, roots: taken.roots, trees: taken.capture.roots }
  }

  /** A run that changed nothing: the capture taken as it started goes. */
  #dropAhead(runId: string): void {
    const ahead = this.#ahead.get(runId)
    if (!ahead) return
    this.#ahead.delete(runId)
    void ahead
      .then((taken) => (taken ? this.#d.engine.drop([taken.id]) : undefined))
      .catch((err) => this.#d.onError(err))
  }

  /** The run ended: its `after`, taken now (queued behind any git call on its roots). */
  after(sessionId: string, runId: string): void {
    this.#dropAhead(runId)
    const taken = this.#before.get(runId)
    if (!taken) return
    const done = taken
      .then((before) => (before ? this.#afterOrForget(sessionId, runId, before, false) : undefined))
      .catch((err) => this.#d.onError(err))
      .finally(async () => {
        const before = await taken
        if (before) this.open.delete(before.id)
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
      await this.#afterOrForget(row.session_id, row.run_id as string, before, true)
    }
  }

  /**
   * The run's `after`; when it cannot be taken, its `before` goes too: the run's changes
   * then read `none` rather than `running` for ever.
   */
  async #afterOrForget(
    sessionId: string,
    runId: string,
    before: Before,
    approximate: boolean,
  ): Promise<void> {
    try {
      await this.#takeAfter(sessionId, runId, before, approximate)
    } catch (err) {
      this.#d.onError(err)
      this.#d.rows.delete([before.id])
      await this.#d.engine.drop([before.id]).catch((e) => this.#d.onError(e))
    }
  }

  async #takeAfter(sessionId: string, runId: string, before: Before, approximate: boolean): Promise<void> {
    const id = uuidv7()
    const engine = engineNow(this.#d)
    const capture = await engine.take(before.roots, id)
    // Its `before` was pruned meanwhile (a session deleted): nothing to compare with.
    if (!this.#d.rows.get(before.id)) return void (await engine.drop([id]))
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
