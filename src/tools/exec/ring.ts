// A job's output on disk, bounded: two segment files used in turn. Writing fills the current
// segment; when it is full, the other one (the oldest output) is emptied and becomes the
// current one. So at most `maxBytes` stay on disk, the last `maxBytes / 2` at least are always
// readable, and offsets count every byte ever written: a read that starts before what is
// kept says how many bytes were dropped. Writes are synchronous and go straight to the page
// cache, so memory stays flat whatever a job prints.
import { closeSync, ftruncateSync, openSync, readSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'

interface Segment {
  fd: number
  /** The offset (in the whole output) of this segment's first byte. */
  start: number
  length: number
}

export interface RingRead {
  bytes: Buffer
  /** Where the bytes start (≥ the offset asked for when output was dropped). */
  start: number
  skipped: number
}

export class OutputRing {
  readonly #segmentBytes: number
  readonly #segments: [Segment, Segment]
  #current = 0
  #total = 0
  #closed = false
  /** Bytes that could not be written (disk full…): counted, never retried. */
  lostBytes = 0

  readonly dir: string

  constructor(dir: string, maxBytes: number) {
    this.dir = dir
    this.#segmentBytes = Math.max(1, Math.floor(maxBytes / 2))
    const open = (i: number): Segment => ({
      fd: openSync(join(dir, `output.${i}`), 'w+', 0o600),
      start: 0,
      length: 0,
    })
    this.#segments = [open(0), open(1)]
  }

  /** Every byte ever written (what `output_bytes` shows). */
  get totalBytes(): number {
    return this.#total
  }

  /** The offset of the oldest byte still kept. */
  get keptFrom(): number {
    const older = this.#segments[1 - this.#current]
    return older.length > 0 ? older.start : this.#segments[this.#current].start
  }

  write(chunk: Buffer): void {
    if (this.#closed) return
    let at = 0
    while (at < chunk.length) {
      let seg = this.#segments[this.#current]
      if (seg.length === this.#segmentBytes) seg = this.#rotate()
      const n = Math.min(chunk.length - at, this.#segmentBytes - seg.length)
      try {
        writeSync(seg.fd, chunk, at, n, seg.length)
      } catch {
        this.lostBytes += n
      }
      seg.length += n
      this.#total += n
      at += n
    }
  }

  /** Up to `maxBytes` from `offset`, or from the oldest kept byte if `offset` was dropped. */
  read(offset: number, maxBytes: number): RingRead {
    const from = Math.max(0, Math.min(offset, this.#total))
    if (this.#closed) return { bytes: Buffer.alloc(0), start: this.#total, skipped: this.#total - from }
    const start = Math.max(from, this.keptFrom)
    const length = Math.max(0, Math.min(maxBytes, this.#total - start))
    const bytes = Buffer.alloc(length)
    let filled = 0
    for (const seg of this.#inOrder()) {
      const segEnd = seg.start + seg.length
      const pos = start + filled
      if (filled >= length || pos >= segEnd || pos < seg.start) continue
      const n = Math.min(length - filled, segEnd - pos)
      filled += readSync(seg.fd, bytes, filled, n, pos - seg.start)
    }
    return { bytes: bytes.subarray(0, filled), start, skipped: start - from }
  }

  /** Closes and deletes the files; reads then return nothing and count everything as dropped. */
  remove(): void {
    if (this.#closed) return
    this.#closed = true
    for (const seg of this.#segments) closeSync(seg.fd)
    rmSync(this.dir, { recursive: true, force: true })
  }

  #inOrder(): Segment[] {
    const cur = this.#segments[this.#current]
    const older = this.#segments[1 - this.#current]
    return older.length > 0 ? [older, cur] : [cur]
  }

  #rotate(): Segment {
    this.#current = 1 - this.#current
    const seg = this.#segments[this.#current]
    ftruncateSync(seg.fd, 0)
    seg.start = this.#total
    seg.length = 0
    return seg
  }
}
