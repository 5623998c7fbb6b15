// In-memory fan-out of committed changes to live subscribers. Publishing happens only after
// the transaction commits, so a subscriber never sees an event the log does not hold. An
// admission commits before its fsync has ended (inputs/group-commit.ts): while a hold is
// taken, what is published waits, in commit order, until that commit is durable, so a
// stream never shows an input (or a sequence number) that a power loss could take back.
import type { CollectionChange, LogEvent } from './types.ts'

export interface SessionListener {
  onEvent: (e: LogEvent) => void
  /** The session was deleted: its log is gone, the stream must end. */
  onDeleted: () => void
}

export type CollectionListener = (change: CollectionChange) => void

/** A commit not yet durable, and what was published after it. */
interface Hold {
  released: boolean
  published: [readonly LogEvent[], readonly CollectionChange[]][]
  delivered: Promise<void>
  resolve: () => void
}

export class Hub {
  readonly #sessions = new Map<string, Set<SessionListener>>()
  readonly #collection = new Set<CollectionListener>()
  /** Holds in the order they were taken; each releases only after those before it. */
  #holds: Hold[] = []

  /**
   * Holds back what is published from now on until the returned release is called (once
   * the commit that follows is durable). Holds release in the order they were taken.
   */
  hold(): () => void {
    let resolve = () => {}
    const delivered = new Promise<void>((r) => {
      resolve = r
    })
    const h: Hold = { released: false, published: [], delivered, resolve }
    this.#holds.push(h)
    return () => {
      if (h.released) return
      h.released = true
      while (this.#holds[0]?.released) {
        const first = this.#holds.shift() as Hold
        for (const [events, changes] of first.published) this.#deliverAll(events, changes)
        first.resolve()
      }
    }
  }

  /**
   * Resolves once everything committed so far is durable and published; undefined when
   * nothing waits (the common case: answers need not wait a turn).
   */
  settled(): Promise<void> | undefined {
    return this.#holds.at(-1)?.delivered
  }

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
    const last = this.#holds.at(-1)
    if (last) {
      last.published.push([events, changes])
      return
    }
    this.#deliverAll(events, changes)
  }

  #deliverAll(events: readonly LogEvent[], changes: readonly CollectionChange[]): void {
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
