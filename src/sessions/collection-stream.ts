// One subscriber of the collection stream: a `ready` frame, then one invalidation frame per
// committed creation, change or deletion of a session in the subscriber's scope (in scope
// before or after the change). No cursor and no replay: a client that reconnects, or that
// overflowed the bounded queue, re-reads the pages it shows.
import type { SessionsCore } from './core.ts'
import type { Frame } from './frames.ts'
import { type ListFilter, rowMatches } from './list.ts'
import type { CollectionChange } from './types.ts'

export const COLLECTION_QUEUE_LIMIT = 1024

export class CollectionStream {
  #queue: Frame[] = [{ event: 'ready', data: {} }]
  #ending = false
  #ended = false
  #wake: (() => void) | undefined
  readonly #unsubscribe: () => void
  readonly #filter: ListFilter
  readonly #limit: number

  constructor(core: SessionsCore, filter: ListFilter, limit = COLLECTION_QUEUE_LIMIT) {
    this.#filter = filter
    this.#limit = limit
    this.#unsubscribe = core.hub.subscribeCollection((c) => this.#onChange(c))
  }

  #onChange(c: CollectionChange): void {
    if (this.#ending) return
    const inScope =
      (c.before && rowMatches(this.#filter, c.before)) || (c.after && rowMatches(this.#filter, c.after))
    if (!inScope) return
    if (this.#queue.length >= this.#limit) {
      this.#queue = [{ event: 'overflow', data: { reason: 'slow_reader', queued_limit: this.#limit } }]
      this.#ending = true
      this.#unsubscribe()
    } else {
      this.#queue.push({ event: 'session.invalidated', data: { session_id: c.session_id, reason: c.reason } })
    }
    this.#wake?.()
  }

  async next(): Promise<Frame[] | null> {
    for (;;) {
      if (this.#queue.length > 0) {
        const out = this.#queue
        this.#queue = []
        return out
      }
      if (this.#ending || this.#ended) {
        this.#ended = true
        return null
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve
      })
      this.#wake = undefined
    }
  }

  close(): void {
    this.#ended = true
    this.#queue = []
    this.#unsubscribe()
    this.#wake?.()
  }
}
