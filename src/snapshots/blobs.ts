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
    let pending: Buffer = Buffer.alloc(0)
    let index = 0
    let failed = false
    let err = ''
    const fail = (e: Error) => {
      if (failed) return
      failed = true
      child.kill('SIGKILL')
      reject(e)
    }
    /** Takes every complete object out of `pending`; false when it needs more bytes. */
    const next = (): { id: string; content: Buffer } | null => {
      const eol = pending.indexOf(10)
      if (eol < 0) return null
      const header = pending.subarray(0, eol).toString('utf8')
      const [id, type, size] = header.split(' ')
      if (type === 'missing' || type !== 'blob')
        throw new Error(`snapshot object ${id} is ${type ?? 'unreadable'}`)
      const length = Number(size)
      if (pending.length < eol + 1 + length + 1) return null
      const content = Buffer.from(pending.subarray(eol + 1, eol + 1 + length))
      pending = pending.subarray(eol + 1 + length + 1)
      return { id, content }
    }
    const drain = async () => {
      for (;;) {
        const blob = next()
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
      work = work.then(async () => {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
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
      void work.then(() => {
        if (failed) return
        if (index === ids.length) resolve()
        else
          fail(new Error(`git cat-file ended (${code}) after ${index} of ${ids.length} blobs: ${err.trim()}`))
      })
    })
    child.stdin.on('error', () => {})
    child.stdin.end(`${ids.join('\n')}\n`)
  })
}
