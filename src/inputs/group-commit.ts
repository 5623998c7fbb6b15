// Group commit. Every admission must be on disk before its 202, and an fsync costs
// milliseconds while the decision itself costs microseconds. Admissions that arrive in one
// turn of the event loop are decided together: each in its own savepoint (one failing
// leaves the others alone), all under one fsynced commit, answered once it returns.

import type { SessionsCore, Tx } from '../sessions/core.ts'
import { flushWal } from '../store/checkpoints.ts'
import { fullySynced } from '../store/db.ts'

interface Waiting {
  decide: (tx: Tx) => unknown
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

export class GroupCommit {
  readonly #core: SessionsCore
  #queue: Waiting[] = []

  constructor(core: SessionsCore) {
    this.#core = core
  }

  /** Decides `decide` in the next group; resolves after the group's commit is fsynced. */
  run<T>(decide: (tx: Tx) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.#queue.length === 0) setImmediate(() => this.#flush())
      this.#queue.push({ decide, resolve: resolve as (value: unknown) => void, reject })
    })
  }

  #flush(): void {
    const group = this.#queue
    this.#queue = []
    let results: ReturnType<SessionsCore['transactEach']>
    try {
      results = durablyEach(
        this.#core,
        group.map((w) => w.decide),
      )
    } catch (error) {
      // The commit itself failed (disk full, I/O error): nobody in the group is admitted.
      for (const w of group) w.reject(error)
      return
    }
    for (const [i, r] of results.entries()) {
      if (r.ok) group[i].resolve(r.value)
      else group[i].reject(r.error)
    }
  }
}

/** Runs `fns` in one transaction whose commit is fsynced: what it acknowledges survives power loss. */
function durablyEach(core: SessionsCore, fns: ((tx: Tx) => unknown)[]) {
  return fullySynced(core.db, () => core.transactEach(fns))
}

/**
 * Writes out on the thread pool now what was committed without an fsync (a run's end commits
 * ~100 pages that way), so the next admission's fsynced commit writes only its own pages.
 */
export function flushForNextAdmission(core: SessionsCore): void {
  flushWal(core.db)
}
