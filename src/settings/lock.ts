// The credential lock. Every settings and credential mutation (PATCH /settings, the
// start-time migration, and later sign-in saves and token refreshes) runs through `run`,
// one at a time, and re-reads the files inside it: a token refresh that waited for the
// lock sees the newer refresh another session saved and keeps the other sections as they
// are now, not as they were when it started waiting.
//
// Across processes the daemon's exclusive per-home lock (daemon.lock, held for the whole
// life of the daemon) is the outer lock: only the process that holds it writes these files,
// so the in-process queue is the whole story inside it. A tool that wants to write them
// without the daemon must take daemon.lock first (src/daemon/lock.ts).
export class CredentialLock {
  #tail: Promise<unknown> = Promise.resolve()
  #held = false

  /** Runs `fn` once every earlier holder has finished; its result or error is passed on. */
  run<T>(fn: () => T | Promise<T>): Promise<T> {
    const next = this.#tail.then(async () => {
      this.#held = true
      try {
        return await fn()
      } finally {
        this.#held = false
      }
    })
    this.#tail = next.catch(() => undefined)
    return next
  }

  /** Whether a holder is running now (for assertions in code that must run under the lock). */
  get held(): boolean {
    return this.#held
  }
}
