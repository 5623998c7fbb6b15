// Retention of snapshots, in the background after runs (never on a run's path): each
// session keeps the snapshots of its newest `keep_runs` runs; past `max_total_bytes` in all,
// the oldest snapshots of any session go; a deleted session's go at once. A dropped snapshot
// loses its row and its ref; `git gc` then frees what no ref keeps.
import type { SnapshotDeps } from './deps.ts'

/** Rounds of "drop the oldest, collect, measure" one pass may make for the total bound. */
const MAX_TOTAL_ROUNDS = 8

export class Retention {
  readonly #d: SnapshotDeps
  #running: Promise<void> | null = null
  #again = false

  constructor(d: SnapshotDeps) {
    this.#d = d
  }

  /** Runs a pass soon (one at a time; a request during a pass runs one more after it). */
  schedule(): void {
    if (this.#running) {
      this.#again = true
      return
    }
    this.#running = new Promise<void>((r) => setImmediate(r))
      .then(() => this.pass())
      .catch((err) => this.#d.onError(err))
      .finally(() => {
        this.#running = null
        if (this.#again) {
          this.#again = false
          this.schedule()
        }
      })
  }

  /** Resolves once no pass runs (tests, stop). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running
  }

  async pass(): Promise<void> {
    const { rows } = this.#d
    const settings = this.#d.settings()
    const dropped = [...rows.orphanIds()]
    for (const sessionId of rows.sessionsOver(settings.keep_runs))
      dropped.push(...rows.beyondKeep(sessionId, settings.keep_runs))
    await this.#drop(dropped)
    if (dropped.length > 0) await this.#d.engine.prune()
    for (let round = 0; round < MAX_TOTAL_ROUNDS; round++) {
      if ((await this.#d.engine.bytes()) <= settings.max_total_bytes) return
      const total = rows.count()
      if (total === 0) return
      await this.#drop(rows.oldest(Math.max(2, Math.ceil(total / 4))))
      await this.#d.engine.prune()
    }
  }

  /** A deleted session's snapshots. */
  async dropSession(sessionId: string): Promise<void> {
    await this.#drop(this.#d.rows.idsOfSession(sessionId))
    this.#d.rows.deleteRestoresOf(sessionId)
    this.schedule()
  }

  async #drop(ids: string[]): Promise<void> {
    if (ids.length === 0) return
    // Refs first: a crash between leaves rows whose refs are gone (dropped again by a later
    // pass, idempotently), never refs no row names (which nothing would ever drop).
    await this.#d.engine.drop(ids)
    this.#d.rows.delete(ids)
  }
}
