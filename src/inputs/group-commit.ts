// Group commit. Every admission must be on disk before its 202, and an fsync costs
// milliseconds while the decision itself costs microseconds. Admissions that arrive in one
// turn of the event loop are decided together: each in its own savepoint (one failing
// leaves the others alone), all under one commit.
//
// The commit does not sync inline: the run an input starts commits its start right after
// it, then the WAL is fdatasynced on the thread pool (store/checkpoints.ts) while the event
// loop goes on, so the run's first step is prepared while its input reaches the disk. What a client can see waits for
// the sync: each admission carries `durable`, which its 202 awaits; the hub holds every
// event and collection change committed from the group on until the sync has ended
// (sessions/hub.ts), answers and streams that read the store wait for it too
// (hub.settled), and the run's first step, ready meanwhile, leaves for the model only
// then (runs/step.ts). Without a flusher on the connection the commit syncs itself (FULL).

import type { SessionsCore, Tx } from '../sessions/core.ts'
import { flushWal, syncWal, walSyncs } from '../store/checkpoints.ts'
import { fullySynced } from '../store/db.ts'

/** A decision committed; `durable` resolves once its commit is on disk (rejects if the sync failed). */
export interface Committed<T> {
  value: T
  durable: Promise<void>
}

interface Waiting {
  decide: (tx: Tx) => unknown
  started?: (value: unknown) => void
  resolve: (value: Committed<unknown>) => void
  reject: (error: unknown) => void
}

export class GroupCommit {
  readonly #core: SessionsCore
  #queue: Waiting[] = []

  constructor(core: SessionsCore) {
    this.#core = core
  }

  /**
   * Decides `decide` in the next group; resolves once the group has committed, with its sync
   * under way. `started` runs right after the commit, before the sync begins (a run's start).
   */
  run<T>(decide: (tx: Tx) => T, started?: (value: T) => void): Promise<Committed<T>> {
    return new Promise<Committed<T>>((resolve, reject) => {
      if (this.#queue.length === 0) setImmediate(() => this.#flush())
      this.#queue.push({
        decide,
        started: started as ((value: unknown) => void) | undefined,
        resolve: resolve as (value: Committed<unknown>) => void,
        reject,
      })
    })
  }

  #flush(): void {
    const group = this.#queue
    this.#queue = []
    const core = this.#core
    const overlap = walSyncs(core.db)
    // Taken before the commit: the group's own events wait for its sync as well.
    const release = core.hub.hold()
    let results: ReturnType<SessionsCore['transactEach']>
    try {
      const decide = () => core.transactEach(group.map((w) => w.decide))
      results = overlap ? decide() : fullySynced(core.db, decide)
    } catch (error) {
      // The commit itself failed (disk full, I/O error): nobody in the group is admitted.
      release()
      for (const w of group) w.reject(error)
      return
    }
    // What the group starts (a run's start commits too) goes first: a page being written
    // back cannot be written meanwhile, so a run's start beside the sync would wait for it
    // (its frames share the WAL's last page); one sync then covers both commits, and what
    // follows the start (the first step's preparation) writes nothing and overlaps it.
    for (const [i, r] of results.entries()) if (r.ok) group[i].started?.(r.value)
    const durable = overlap ? (syncWal(core.db) as Promise<void>) : Promise.resolve()
    // A failed sync is answered to the group's clients (500); their retries find the rows.
    durable.then(release, release)
    for (const [i, r] of results.entries()) {
      if (r.ok) group[i].resolve({ value: r.value, durable })
      else group[i].reject(r.error)
    }
  }
}

/**
 * Writes out on the thread pool now what was committed without an fsync (a run's end commits
 * ~100 pages that way), so the next admission's sync writes only its own pages.
 */
export function flushForNextAdmission(core: SessionsCore): void {
  flushWal(core.db)
}
