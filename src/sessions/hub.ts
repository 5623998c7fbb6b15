// In-memory fan-out of committed changes to live subscribers. Publishing happens only after
// the transaction commits, so a subscriber never sees an event the log does not hold.
import type { CollectionChange, LogEvent } from './types.ts'

export interface SessionListener {
  onEvent: (e: LogEvent) => void
  /** The session was deleted: its log is gone, the stream must end. */
  onDeleted: () => void
}

export type CollectionListener = (change: CollectionChange) => void

export class Hub {
  readonly #sessions = new Map<string, Set<SessionListener>>()
  readonly #collection = new Set<CollectionListener>()

  subscribe(sessionId: string, l: SessionListener): () => void {
    let set = this.#sessions.get(sessionId)
    if (!set) {
      set = new Set()
      this.#sessions.set(sessionId, set)
    }
    set.add(l)
    return () => {
      set.delete(l)
      if (set.size === 0 && this.#sessions.get(sessionId) === set) this.#sessions.delete(sessionId)
    }
  }

  subscribeCollection(l: CollectionListener): () => void {
    this.#collection.add(l)
    return () => this.#collection.delete(l)
  }

  /** Delivers committed events, then collection changes, in commit order. A listener that
   * throws is reported and skipped: the change is committed, the others still hear of it. */
  publish(events: readonly LogEvent[], changes: readonly CollectionChange[]): void {
    for (const e of events) {
      const set = this.#sessions.get(e.session_id)
      if (set) for (const l of [...set]) this.#deliver(() => l.onEvent(e))
    }
    for (const c of changes) {
      if (c.reason === 'deleted') {
        const set = this.#sessions.get(c.session_id)
        if (set) for (const l of [...set]) this.#deliver(() => l.onDeleted())
      }
      for (const l of [...this.#collection]) this.#deliver(() => l(c))
    }
  }

  #deliver(call: () => void): void {
    try {
      call()
    } catch (err) {
      process.emitWarning(`hearth: a stream listener failed: ${(err as Error)?.stack ?? err}`)
    }
  }

  subscriberCount(sessionId: string): number {
    return this.#sessions.get(sessionId)?.size ?? 0
  }
}
