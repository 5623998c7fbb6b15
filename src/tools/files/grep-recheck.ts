// The lines ripgrep found, read again through descriptors. rg opens files by path, so a
// directory swapped for a symlink while it searches would make it read (and print) a file
// outside the roots. Its output is therefore taken only as "these lines of these files
// match": each file is opened again from the held search directory, one held subdirectory
// at a time and never through a link, checked like any opened file (confine.ts,
// openedElsewhere), and the lines shown are read from that descriptor. A file that cannot
// be reached that way is left out. This costs an open and a read up to the last matching
// line for each file with matches (a few per call, 501 at most).
import { closeSync, fstatSync, openSync, read, readSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { openedElsewhere, type Roots } from '../confine.ts'
import type { GrepMatch } from './grep-engines.ts'
import { FILE_FLAGS, type HeldDir, holdSubdir } from './held-dir.ts'

const CHUNK = 64 * 1024
/** Files up to this size are read without the thread pool. */
const SYNC_UP_TO = 1024 * 1024
/**
 * Bytes of a line kept: enough for GREP_MAX_LINE (500) characters of any UTF-8 and more, so
 * the cut shows that the line was longer. (Spelled out: grep-engines.ts imports this file.)
 */
const KEEP = 4 * 500 + 4

/**
 * The matches of `listed` (paths relative to `dir`, as rg names them, in rg's order) with
 * their text read from files opened through `dir`; `cut` shapes a line as grep shows it.
 */
export async function recheckLines(
  dir: HeldDir,
  listed: { rel: string; line: number }[],
  roots: Roots,
  cut: (line: string) => string,
): Promise<GrepMatch[]> {
  const byFile = new Map<string, number[]>()
  for (const m of listed) {
    const lines = byFile.get(m.rel)
    if (lines) lines.push(m.line)
    else byFile.set(m.rel, [m.line])
  }
  const dirs = new DirCache(dir, roots)
  const texts = new Map<string, Map<number, string>>()
  try {
    for (const [rel, lines] of byFile) {
      const found = await linesOfFile(dirs, rel, lines, roots)
      if (found) texts.set(rel, found)
    }
  } finally {
    dirs.closeAll()
  }
  const out: GrepMatch[] = []
  for (const m of listed) {
    const text = texts.get(m.rel)?.get(m.line)
    if (text !== undefined) out.push({ abs: join(dir.path, m.rel), line: m.line, text: cut(text) })
  }
  return out
}

/** Subdirectories of the search directory held while the matches are read again. */
class DirCache {
  #held = new Map<string, HeldDir | null>()
  readonly root: HeldDir
  readonly roots: Roots
  constructor(root: HeldDir, roots: Roots) {
    this.root = root
    this.roots = roots
  }

  /** The held directory of a relative path ('' is the root), or null when it cannot be held. */
  get(rel: string): HeldDir | null {
    if (rel === '') return this.root
    const known = this.#held.get(rel)
    if (known !== undefined) return known
    const cut = rel.lastIndexOf('/')
    const parent = this.get(cut < 0 ? '' : rel.slice(0, cut))
    let held: HeldDir | null = null
    if (parent)
      try {
        held = holdSubdir(parent, rel.slice(cut + 1), this.roots)
      } catch {
        held = null
      }
    this.#held.set(rel, held)
    return held
  }

  closeAll(): void {
    for (const d of this.#held.values()) d?.close()
    this.#held.clear()
  }
}

/** The wanted lines of one file, read through its held directory; null when it cannot be. */
async function linesOfFile(
  dirs: DirCache,
  rel: string,
  wanted: number[],
  roots: Roots,
): Promise<Map<number, string> | null> {
  const parts = rel.split('/')
  if (parts.some((p) => p === '' || p === '.' || p === '..')) return null
  const name = parts.pop() as string
  const dir = dirs.get(parts.join('/'))
  if (!dir) return null
  let fd: number
  try {
    fd = openSync(dir.at(name), FILE_FLAGS)
  } catch {
    return null
  }
  try {
    if (openedElsewhere(fd, roots) !== null) return null
    const st = fstatSync(fd)
    if (!st.isFile()) return null
    return await readLines(fd, st.size, new Set(wanted), Math.max(...wanted))
  } catch {
    return null
  } finally {
    closeSync(fd)
  }
}

const readAsync = promisify(read)

/**
 * Lines (1-based numbers in `wanted`) of an open file, each kept to its first KEEP bytes.
 * A small file is read synchronously (one quick call); a large one in the thread pool, so a
 * match deep in a big log does not hold the kernel process.
 */
async function readLines(
  fd: number,
  size: number,
  wanted: Set<number>,
  last: number,
): Promise<Map<number, string>> {
  const out = new Map<number, string>()
  const buf = Buffer.allocUnsafe(CHUNK)
  const readChunk = async (pos: number) =>
    size <= SYNC_UP_TO
      ? readSync(fd, buf, 0, CHUNK, pos)
      : (await readAsync(fd, buf, 0, CHUNK, pos)).bytesRead
  let n = 1
  let head: Buffer[] = []
  let kept = 0
  let pos = 0
  for (;;) {
    const bytesRead = await readChunk(pos)
    if (bytesRead === 0) break
    pos += bytesRead
    const chunk = buf.subarray(0, bytesRead)
    let from = 0
    while (from < bytesRead) {
      const nl = chunk.indexOf(10, from)
      const end = nl < 0 ? bytesRead : nl
      if (wanted.has(n) && kept < KEEP) {
        const piece = Buffer.from(chunk.subarray(from, Math.min(end, from + KEEP - kept)))
        head.push(piece)
        kept += piece.length
      }
      if (nl < 0) break
      if (wanted.has(n)) out.set(n, Buffer.concat(head).toString('utf8'))
      head = []
      kept = 0
      if (++n > last) return out
      from = nl + 1
    }
  }
  if (wanted.has(n) && kept > 0) out.set(n, Buffer.concat(head).toString('utf8'))
  return out
}
