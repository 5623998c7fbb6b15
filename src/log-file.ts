// Where the daemon's log lines go: HOME/logs/hearth.log, appended without ever holding the
// event loop. A line that cannot be written (a full disk, a quota) is dropped, not retried:
// the daemon must keep serving whatever its log does. pino's own destination (sonic-boom)
// retries a failed synchronous flush in a sleep loop, which froze the daemon on a full disk
// until space returned, and it reports a failed write as an 'error' event that nothing can
// answer but an exit. Here, when writing works again, a line first says how many were lost.
import { write, writeSync } from 'node:fs'

/** Lines waiting while a write is in flight, in bytes; past it new lines are dropped. */
const MAX_QUEUED_BYTES = 4 * 1024 * 1024

/** The line that reports dropped lines, in pino's format (level 40 is warn). */
function droppedLine(count: number): string {
  return `${JSON.stringify({ level: 40, time: Date.now(), pid: process.pid, msg: 'log lines dropped', dropped: count })}\n`
}

export class LogFile {
  readonly #fd: number
  #queue: string[] = []
  #queuedBytes = 0
  #writing = false
  /** Lines lost since the last successful write. */
  #dropped = 0
  /** A write stopped mid-line: the next one starts on a new line. */
  #broken = false

  constructor(fd: number) {
    this.#fd = fd
  }

  /** pino's destination interface: one serialized line, newline included. */
  write(line: string): boolean {
    if (this.#queuedBytes + line.length > MAX_QUEUED_BYTES) {
      this.#dropped++
      return true
    }
    this.#queue.push(line)
    this.#queuedBytes += line.length
    if (!this.#writing) this.#next()
    return true
  }

  /** The queued lines as one buffer, behind a newline or a dropped-lines note when due. */
  #take(): { buf: Buffer; lines: number; reported: number } {
    const head = (this.#broken ? '\n' : '') + (this.#dropped > 0 ? droppedLine(this.#dropped) : '')
    const taken = {
      buf: Buffer.from(head + this.#queue.join('')),
      lines: this.#queue.length,
      reported: this.#dropped,
    }
    this.#queue = []
    this.#queuedBytes = 0
    return taken
  }

  #next(): void {
    if (this.#queue.length === 0) return
    this.#writing = true
    const { buf, lines, reported } = this.#take()
    const onWritten = (written: number) => {
      this.#broken = false
      this.#dropped -= reported
      if (written < buf.length) {
        // Room for part of the batch only: the rest is lost, the cut line ended by the next write.
        this.#broken = true
        this.#dropped += lines
      }
      this.#writing = false
      this.#next()
    }
    const attempt = (offset: number) =>
      write(this.#fd, buf, offset, buf.length - offset, null, (err, n) => {
        if (err) {
          if (offset > 0) return onWritten(offset)
          this.#dropped += lines
          this.#writing = false
          this.#next()
        } else if (offset + n < buf.length && n > 0) {
          attempt(offset + n)
        } else {
          onWritten(offset + n)
        }
      })
    attempt(0)
  }

  /**
   * Writes what is queued, once, synchronously (pino calls this after a fatal line, and the
   * daemon on exit). A failure drops the lines: an exit must never wait for disk space.
   */
  flushSync(): void {
    if (this.#queue.length === 0) return
    const { buf, reported } = this.#take()
    try {
      const n = writeSync(this.#fd, buf)
      this.#dropped -= reported
      this.#broken = n < buf.length
    } catch {
      // dropped
    }
  }
}
