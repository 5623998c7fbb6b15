// Bounded output: what a command printed, as the model gets it back. The first and the last
// bytes are kept (the start says what ran, the end how it ended: the error, the summary);
// the middle of a long output is cut and the cut says how many bytes went.

/** The default cap on a shell call's captured output, head and tail together. */
export const OUTPUT_CAP_BYTES = 32 * 1024

export class HeadTailCapture {
  readonly #headCap: number
  readonly #tailCap: number
  readonly #head: Buffer
  #headLen = 0
  /** The tail as a ring: the last `tailCap` bytes once the head is full. */
  readonly #tail: Buffer
  #tailLen = 0
  #tailPos = 0
  #total = 0

  constructor(capBytes = OUTPUT_CAP_BYTES) {
    this.#headCap = Math.ceil(capBytes / 2)
    this.#tailCap = Math.floor(capBytes / 2)
    this.#head = Buffer.alloc(this.#headCap)
    this.#tail = Buffer.alloc(this.#tailCap)
  }

  /** Bytes seen so far, kept or not. */
  get totalBytes(): number {
    return this.#total
  }

  /** Bytes cut from the middle. */
  get cutBytes(): number {
    return this.#total - this.#headLen - this.#tailLen
  }

  push(chunk: Buffer): void {
    this.#total += chunk.length
    let rest = chunk
    if (this.#headLen < this.#headCap) {
      const n = Math.min(rest.length, this.#headCap - this.#headLen)
      rest.copy(this.#head, this.#headLen, 0, n)
      this.#headLen += n
      rest = rest.subarray(n)
    }
    if (rest.length === 0 || this.#tailCap === 0) return
    if (rest.length >= this.#tailCap) rest = rest.subarray(rest.length - this.#tailCap)
    const first = Math.min(rest.length, this.#tailCap - this.#tailPos)
    rest.copy(this.#tail, this.#tailPos, 0, first)
    rest.copy(this.#tail, 0, first)
    this.#tailPos = (this.#tailPos + rest.length) % this.#tailCap
    this.#tailLen = Math.min(this.#tailCap, this.#tailLen + rest.length)
  }

  /** The kept text: head, a line saying how much was cut, tail; cut on character borders. */
  text(): string {
    const head = this.#head.subarray(0, this.#headLen)
    const tail =
      this.#tailLen < this.#tailCap
        ? this.#tail.subarray(0, this.#tailLen)
        : Buffer.concat([this.#tail.subarray(this.#tailPos), this.#tail.subarray(0, this.#tailPos)])
    if (this.cutBytes === 0) return Buffer.concat([head, tail]).toString('utf8')
    const headKept = head.subarray(0, completeLength(head))
    const tailKept = tail.subarray(leadingContinuation(tail))
    const cut = this.#total - headKept.length - tailKept.length
    const [headText, tailText] = [headKept.toString('utf8'), tailKept.toString('utf8')]
    return `${headText}\n[… ${cut} bytes of output cut …]\n${tailText}`
  }
}

/** How many leading bytes continue a character that began before (at most 3). */
export function leadingContinuation(buf: Buffer): number {
  let i = 0
  while (i < buf.length && i < 3 && (buf[i] & 0xc0) === 0x80) i++
  return i
}

/** How many bytes the character that starts with byte `b` has (1 for a stray continuation byte). */
export function charLength(b: number): number {
  return b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1
}

/** The length of `buf` without a trailing character whose bytes are not all there yet. */
export function completeLength(buf: Buffer): number {
  for (let back = 1; back <= Math.min(4, buf.length); back++) {
    const b = buf[buf.length - back]
    if ((b & 0xc0) === 0x80) continue // a continuation byte: keep looking for the lead
    const need = charLength(b)
    return need > back ? buf.length - back : buf.length
  }
  return buf.length
}
