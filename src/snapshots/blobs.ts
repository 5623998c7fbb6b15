// Reading blobs out of a snapshot store: one `git cat-file --batch` for many blobs, its output
// parsed as it streams, one blob held in memory at a time (stdout paused while it is written).
import type { Git } from './git.ts'

/** Calls `onBlob` for each id in order with its content; rejects if one is missing. */
export function readBlobs(
  git: Git,
  ids: readonly string[],
  onBlob: (id: string, content: Buffer) => Promise<void>,
): Promise<void> {
  if (ids.length === 0) return Promise.resolve()
  return new Promise((resolve, reject) => {
    const child = git.spawn(['cat-file', '--batch'])
    const input = new ChunkList()
    let index = 0
    let failed = false
    let err = ''
    const fail = (e: Error) => {
      if (failed) return
      failed = true
      child.kill('SIGKILL')
      reject(e)
    }
    const drain = async () => {
      for (;;) {
        const blob = input.nextObject()
        if (!blob) return
        if (blob.id !== ids[index]) throw new Error(`snapshot object ${ids[index]} came back as ${blob.id}`)
        index++
        await onBlob(blob.id, blob.content)
      }
    }
    // each chunk is parsed after the previous one's blobs are written (stdout paused meanwhile)
    let work = Promise.resolve()
    child.stdout.on('data', (chunk: Buffer) => {
      child.stdout.pause()
      input.push(chunk)
      work = work.then(async () => {
        await drain()
        child.stdout.resume()
      })
      work.catch(fail)
    })
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString('utf8')
    })
    child.on('error', fail)
    child.on('close', (code) => {
      void work
        .catch(() => {}) // already failed
        .then(() => {
          if (failed) return
          if (index === ids.length) resolve()
          else
            fail(
              new Error(`git cat-file ended (${code}) after ${index} of ${ids.length} blobs: ${err.trim()}`),
            )
        })
    })
    child.stdin.on('error', () => {})
    child.stdin.end(`${ids.join('\n')}\n`)
  })
}

/**
 * `cat-file --batch` output as it arrives: `<id> blob <size>\n<content>\n` per object. Chunks
 * are joined only once an object is complete, so a large blob is copied once, not per chunk.
 */
class ChunkList {
  #chunks: Buffer[] = []
  #bytes = 0

  push(chunk: Buffer): void {
    this.#chunks.push(chunk)
    this.#bytes += chunk.length
  }

  /** The next complete object, or null until more bytes arrive. */
  nextObject(): { id: string; content: Buffer } | null {
    const head = this.#header()
    if (!head) return null
    const [id, type, size] = head.line.split(' ')
    if (type !== 'blob') throw new Error(`snapshot object ${id} is ${type ?? 'unreadable'}`)
    const end = head.length + Number(size) + 1
    if (this.#bytes < end) return null
    const all = this.#chunks.length === 1 ? this.#chunks[0] : Buffer.concat(this.#chunks, this.#bytes)
    const content = all.subarray(head.length, end - 1)
    const rest = all.subarray(end)
    this.#chunks = rest.length > 0 ? [rest] : []
    this.#bytes = rest.length
    return { id, content }
  }

  /** The first line (without its newline) and its length with it; null while incomplete. */
  #header(): { line: string; length: number } | null {
    let offset = 0
    for (const chunk of this.#chunks) {
      const eol = chunk.indexOf(10)
      if (eol >= 0) {
        const bytes = Buffer.concat(this.#chunks, offset + eol)
        return { line: bytes.toString('utf8', 0, offset + eol), length: offset + eol + 1 }
      }
      offset += chunk.length
      if (offset > 4096) throw new Error('git cat-file printed a header past 4 KiB')
    }
    return null
  }
}
