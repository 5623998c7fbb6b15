// Which kernel bundle is on disk now. Each kernel process remembers the bundle it was forked
// from (its identity: device, inode, size and modification time); a process whose bundle is
// no longer the one on disk runs an older build (an update replaced dist/kernel.mjs), so its
// sessions show `kernel.stale` and new sessions go to a process of the new bundle. A stat
// costs microseconds, but reads come in bursts: one is taken at most every STAT_TTL_MS. A
// watch on the bundle's folder notices an update with nobody reading, so session streams
// hear of it (`kernel.staleness_changed`).
import { type FSWatcher, statSync, watch } from 'node:fs'
import { basename, dirname } from 'node:path'

/** How long a stat of the bundle answers for (a session read, a list page, the pool's choices). */
export const STAT_TTL_MS = 500
/** A write comes as several watch events: the bundle is looked at once they settle. */
const WATCH_SETTLE_MS = 100

export class KernelBundle {
  readonly path: string
  #identity: string | null = null
  #statedAt = Number.NEGATIVE_INFINITY
  #watcher: FSWatcher | undefined
  #settleTimer: NodeJS.Timeout | undefined
  /** Told when a stat finds another bundle than the previous one did. */
  onChange: (() => void) | undefined

  readonly #settleMs: number

  /** `settleMs`: how long the watch waits for a write's events to settle (tests shorten it). */
  constructor(path: string, settleMs = WATCH_SETTLE_MS) {
    this.path = path
    this.#settleMs = settleMs
  }

  /**
   * The identity of the bundle on disk; null when it cannot be read (then nothing is called
   * stale: an upgrade could not start a kernel either). `fresh` stats now (a fork, an upgrade).
   */
  identity(fresh = false): string | null {
    const now = performance.now()
    if (!fresh && now - this.#statedAt < STAT_TTL_MS) return this.#identity
    this.#statedAt = now
    let next: string | null
    try {
      const s = statSync(this.path, { bigint: true })
      next = `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}`
    } catch {
      next = null
    }
    const changed = this.#identity !== null && next !== this.#identity
    this.#identity = next
    if (changed) this.onChange?.()
    return next
  }

  /** Starts watching the bundle's folder (once; off the start-up path, when a first kernel is forked). */
  watch(): void {
    if (this.#watcher) return
    try {
      this.#watcher = watch(dirname(this.path), { persistent: false }, (_type, name) => {
        if (name !== null && name !== basename(this.path)) return
        clearTimeout(this.#settleTimer)
        this.#settleTimer = setTimeout(() => this.identity(true), this.#settleMs)
        this.#settleTimer.unref()
      })
      // A folder that goes away ends the watch; stats on reads still notice a new bundle.
      this.#watcher.on('error', () => this.close())
    } catch {
      // No watch here (a folder that cannot be watched): reads still stat the bundle.
    }
  }

  close(): void {
    clearTimeout(this.#settleTimer)
    this.#watcher?.close()
  }

  /** Whether a process forked from bundle `forkedFrom` runs another bundle than the one on disk. */
  replaced(forkedFrom: string | null): boolean {
    const now = this.identity()
    return now !== null && forkedFrom !== null && forkedFrom !== now
  }
}
