// Workspace snapshots as the daemon offers them: recording each run's (recording.ts), what
// runs changed (reads.ts), restores and redo (restore.ts), retention (retention.ts). The
// git engine that captures and writes files is src/snapshots/; docs/checkpoints.md is the
// user's page.
import type { FileDiff, RunChanges, SessionChanges } from '../../schemas/snapshots.ts'
import type { RunToolScope } from '../active-run.ts'
import type { RunSnapshots } from '../deps.ts'
import type { SnapshotDeps } from './deps.ts'
import { runChanges, runDiff, sessionChanges } from './reads.ts'
import { SnapshotRecorder } from './recording.ts'
import { type RestoreHooks, Restores } from './restore.ts'
import { Retention } from './retention.ts'

export type { SnapshotDeps, SnapshotSettings } from './deps.ts'

export class Snapshots implements RunSnapshots {
  readonly #d: SnapshotDeps
  readonly recorder: SnapshotRecorder
  readonly restores: Restores
  readonly retention: Retention
  /** The start's recovery: restores and first changes of runs wait for it. */
  #recovery: Promise<void> = Promise.resolve()

  constructor(d: SnapshotDeps, hooks: Pick<RestoreHooks, 'holdIdle'>) {
    this.#d = d
    this.recorder = new SnapshotRecorder(d)
    this.retention = new Retention(d)
    this.recorder.onRecorded = () => this.retention.schedule()
    this.retention.keep = () => this.recorder.open
    this.restores = new Restores(d, {
      holdIdle: hooks.holdIdle,
      settled: (sessionId) => this.recorder.settled(sessionId),
      recovered: () => this.#recovery,
    })
  }

  prepare(runId: string, scope: RunToolScope): void {
    this.recorder.prepare(runId, scope)
  }

  async before(sessionId: string, runId: string, scope: RunToolScope): Promise<void> {
    // A restore a crash interrupted is finished before a run changes the files it writes.
    await this.#recovery
    return this.recorder.before(sessionId, runId, scope)
  }

  after(sessionId: string, runId: string): void {
    this.recorder.after(sessionId, runId)
  }

  runChanges(sessionId: string, runId: string, offset: number, limit: number) {
    return runChanges(this.#d, sessionId, runId, offset, limit) as Promise<
      RunChanges & { nextOffset: number | null }
    >
  }

  runDiff(sessionId: string, runId: string, root: string | undefined, path: string): Promise<FileDiff> {
    return runDiff(this.#d, sessionId, runId, root, path)
  }

  sessionChanges(
    sessionId: string,
    beforeSeq: number,
    limit: number,
  ): SessionChanges & { nextSeq: number | null } {
    return sessionChanges(this.#d, sessionId, beforeSeq, limit)
  }

  /**
   * At start, before any run: restores left `applying` are finished, runs left with a
   * `before` only get their `after`, then retention runs once.
   */
  recover(): Promise<void> {
    const work = (async () => {
      await this.restores.recover()
      await this.recorder.recover()
      this.retention.schedule()
    })()
    // What waits for it goes on whatever the outcome (the start logs a failure).
    this.#recovery = work.catch(() => undefined)
    return work
  }

  /** What the storage report shows: the snapshot rows and the bytes of HOME/snapshots. */
  async storage(): Promise<{ count: number; bytes: number }> {
    return { count: this.#d.rows.count(), bytes: await this.#d.engine.bytes() }
  }
}
