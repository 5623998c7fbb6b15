// Where the daemon's log lines go: HOME/logs/hearth.log. A line that cannot be written (a
// full disk, a quota) is dropped, never retried: the daemon must keep serving whatever its
// log does. pino's own destination (sonic-boom) retries a failed synchronous flush in a
// sleep loop, which froze the daemon on a full disk until space returned, and reports a
// failed write as an 'error' event that nothing can answer but an exit. Here, once writing
// works again, a line first says how many were lost.
//
// Each line is one write(2) to a file opened for appending: the daemon logs little (start,
// stop, failures), a write that lands in the page cache takes microseconds, and a write to a
// full disk fails at once. Writing synchronously keeps the lines in order with nothing held
// in memory, and nothing is lost on exit or on a crash.
import { writeSync } from 'node:fs'

/** The line that reports dropped lines, in pino's format (level 40 is warn). */
function droppedLine(count: number): string {
  return `${JSON.stringify({ level: 40, time: Date.now(), pid: process.pid, msg: 'log lines dropped', dropped: count })}\n`
}

export class LogFile {
  readonly #fd: number
  /** Lines lost since the last successful write. */
  #dropped = 0
  /** A write stopped mid-line (the disk filled up): the next one starts on a new line. */
  #broken = false

  constructor(fd: number) {
    this.#fd = fd
  }

  /** pino's destination interface: one serialized line, newline included. */
  write(line: string): boolean {
    const head = (this.#broken ? '\n' : '') + (this.#dropped > 0 ? droppedLine(this.#dropped) : '')
    const buf = Buffer.from(head + line)
    let written = 0
    try {
      while (written < buf.length) {
        const n = writeSync(this.#fd, buf, written)
        if (n === 0) break
        written += n
      }
    } catch {
      // ENOSPC, EDQUOT, EIO…: what did not fit is dropped
    }
    if (written === buf.length) {
      this.#dropped = 0
      this.#broken = false
    } else if (written > 0) {
      this.#dropped = written >= head.length ? 1 : this.#dropped + 1
      this.#broken = true
    } else {
      this.#dropped++
    }
    return true
  }

  /** Nothing is ever held back (pino calls this after a fatal line). */
  flushSync(): void {}
}
