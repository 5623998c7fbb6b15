// grep's two engines, both searching a held directory (held-dir.ts). ripgrep, when it is on
// PATH: spawned with an argument array (never a shell) inside the held directory, plain
// output with NUL after each path and long lines shortened by rg itself, so memory stays
// bounded whatever the files hold; it is stopped as soon as enough matches are in. rg opens
// files by path, so it only says which lines match: their text is read again from files
// opened through held directories (grep-recheck.ts), and nothing rg read reaches the model.
// The built-in engine, otherwise: the same walk as list and glob, JavaScript regular
// expressions, binary files (a NUL in the first 8,000 bytes) skipped. Both never follow
// symlinks, skip .git and node_modules, and report files in path order, so they agree.
import { spawn } from 'node:child_process'
import { constants, fstatSync } from 'node:fs'
import { access, open } from 'node:fs/promises'
import { basename, delimiter, join, matchesGlob } from 'node:path'
import { createInterface } from 'node:readline'
import { inHearthHome, openedElsewhere, type Roots } from '../confine.ts'
import { isHiddenPath } from '../hidden-paths.ts'
import { looksBinary } from './common.ts'
import { recheckLines } from './grep-recheck.ts'
import { FILE_FLAGS, type HeldDir } from './held-dir.ts'
import { IGNORED_DIRS, newWalkStats, walk } from './walk.ts'

/** Longest line text kept, in characters (rg counts bytes). */
export const GREP_MAX_LINE = 500
/** What both engines put after a line they shortened (rg's own words). */
const OMITTED = ' [... omitted end of long line]'
/** The built-in engine skips files larger than this. */
const BUILTIN_MAX_FILE = 16 * 1024 * 1024
/** Entries the built-in engine looks at before giving up. */
const BUILTIN_MAX_VISITED = 200_000

export interface GrepQuery {
  pattern: string
  ignoreCase: boolean
  /** A glob on file names (no "/") or on paths relative to the start. */
  include?: string
  /** The directory searched (for one file, the directory that holds it). */
  dir: HeldDir
  /** The one file's name in dir, when the search is of one file. */
  only?: string
  /** The roots every file read must lie in. */
  roots: Roots
  /** Stop after this many matches (one more is looked for, to know whether there are more). */
  maxMatches: number
  signal: AbortSignal
}

export interface GrepMatch {
  /** The file's path under the held directory's real path. */
  abs: string
  line: number
  text: string
}

export interface GrepFound {
  matches: GrepMatch[]
  /** More matches exist than were kept. */
  more: boolean
  /** A refusal to report instead of matches (a bad pattern). */
  error?: string
  interrupted?: boolean
  /** Things the model should know (files skipped, files that could not be read). */
  notes: string[]
}

const rgCache = new Map<string, string | null>()

/** ripgrep's path when `rg` is an executable on PATH, else null. */
export async function findRipgrep(path = process.env.PATH ?? ''): Promise<string | null> {
  const cached = rgCache.get(path)
  if (cached !== undefined) return cached
  let found: string | null = null
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue
    const candidate = join(dir, 'rg')
    try {
      await access(candidate, constants.X_OK)
      found = candidate
      break
    } catch {
      // not here
    }
  }
  rgCache.set(path, found)
  return found
}

export async function grepWithRipgrep(rg: string, q: GrepQuery): Promise<GrepFound> {
  const args = ['--no-config', '--no-heading', '--with-filename', '--line-number', '--color=never', '--null']
  args.push(`--max-columns=${GREP_MAX_LINE}`, '--max-columns-preview', '--hidden', '--sort=path')
  for (const dir of IGNORED_DIRS) args.push(`--glob=!${dir}`)
  if (q.ignoreCase) args.push('--ignore-case')
  if (q.include) args.push(`--glob=${q.include}`)
  // rg runs in the held directory: the child changes into /proc/self/fd/N before it
  // replaces itself with rg, while it still has the descriptor. A glob with "/" then matches
  // paths relative to it, as rg names them.
  args.push('--regexp', q.pattern, '--', q.only ?? '.')

  const child = spawn(rg, args, { cwd: q.dir.at(), stdio: ['ignore', 'pipe', 'pipe'] })
  const found: GrepFound = { matches: [], more: false, notes: [] }
  let stderr = ''
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (s: string) => {
    if (stderr.length < 4096) stderr += s
  })
  const stop = () => child.kill('SIGTERM')
  q.signal.addEventListener('abort', stop, { once: true })
  if (q.signal.aborted) stop()
  const exited = new Promise<number | null>((resolve) => {
    child.on('close', (code) => resolve(code))
    child.on('error', () => resolve(null))
  })
  try {
    const lines = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY })
    const listed: { rel: string; line: number }[] = []
    for await (const raw of lines) {
      const m = parseRgLine(raw)
      if (!m) continue
      const abs = join(q.dir.path, m.rel)
      if (inHearthHome(abs) || isHiddenPath(abs)) continue
      if (listed.length >= q.maxMatches) {
        found.more = true
        stop()
        break
      }
      listed.push(m)
    }
    const code = await exited
    if (q.signal.aborted) return { ...found, interrupted: true }
    if (code === 2 && !found.more) {
      const { refusal, fileErrors } = splitRgErrors(stderr)
      if (listed.length === 0 && refusal !== '') return { ...found, error: rgError(refusal) }
      if (refusal !== '' || fileErrors) found.notes.push('Some files could not be searched.')
    }
    found.matches = await recheckLines(q.dir, listed, q.roots, cutText)
    if (found.matches.length < listed.length)
      found.notes.push('Files that changed while they were searched were left out.')
    return found
  } finally {
    q.signal.removeEventListener('abort', stop)
  }
}

/** "path\0line:text" (rg's --null output) → the file (relative to where rg ran) and line. */
function parseRgLine(raw: string): { rel: string; line: number } | null {
  const nul = raw.indexOf('\0')
  if (nul < 0) return null
  const rest = raw.slice(nul + 1)
  const colon = rest.indexOf(':')
  const line = Number.parseInt(rest.slice(0, colon), 10)
  if (colon < 0 || !Number.isFinite(line)) return null
  const path = raw.slice(0, nul)
  return { rel: path.startsWith('./') ? path.slice(2) : path, line }
}

/** A line as both engines show it: without its CR, cut at GREP_MAX_LINE characters. */
export function cutText(line: string): string {
  const text = stripCr(line)
  return text.length > GREP_MAX_LINE ? text.slice(0, GREP_MAX_LINE) + OMITTED : text
}

function stripCr(text: string): string {
  return text.endsWith('\r') ? text.slice(0, -1) : text
}

/**
 * rg's errors, split: what it says of the search itself (a pattern or glob it cannot parse)
 * and whether it failed on files. A file error names a path rg met while walking, which may
 * be a link swapped in from outside the roots after the check, so no path rg names is shown.
 */
function splitRgErrors(stderr: string): { refusal: string; fileErrors: boolean } {
  // Whole lines only: the text kept is capped, and a cut line could be part of a file error.
  const lines = stderr.slice(0, stderr.lastIndexOf('\n') + 1).split('\n')
  const isFileError = (line: string) => /\(os error \d+\)$/.test(line)
  const refusal = lines.filter((line) => line !== '' && !isFileError(line)).join('\n')
  return { refusal, fileErrors: lines.some(isFileError) }
}

/** rg's fatal message, kept short: a regex parse error names the spot. */
function rgError(message: string): string {
  const text = message.split('\n').slice(0, 8).join('\n')
  return `ripgrep refused the search:\n${text}`
}

export async function grepBuiltin(q: GrepQuery): Promise<GrepFound> {
  const found: GrepFound = { matches: [], more: false, notes: [] }
  let re: RegExp
  try {
    re = new RegExp(q.pattern, q.ignoreCase ? 'i' : '')
  } catch (err) {
    return { ...found, error: `Invalid regular expression: ${(err as Error).message}` }
  }
  let tooBig = 0
  const searchFile = async (at: string, abs: string): Promise<boolean> => {
    const r = await searchOne(at, abs, re, q.maxMatches + 1 - found.matches.length, q.roots)
    if (r === 'big') tooBig++
    else if (r) found.matches.push(...r)
    return found.matches.length > q.maxMatches
  }
  if (q.only !== undefined) await searchFile(q.dir.at(q.only), join(q.dir.path, q.only))
  else {
    const stats = newWalkStats()
    const opts = {
      ignore: new Set(IGNORED_DIRS),
      maxDepth: Infinity,
      maxEntries: BUILTIN_MAX_VISITED,
      signal: q.signal,
      roots: q.roots,
    }
    for await (const e of walk(q.dir, opts, stats)) {
      if (e.kind !== 'file' || !included(e.rel, q.include)) continue
      if (await searchFile(e.at, e.abs)) break
    }
    if (stats.exhausted)
      found.notes.push(`The search stopped after ${BUILTIN_MAX_VISITED} entries; narrow the path.`)
  }
  if (q.signal.aborted) return { ...found, interrupted: true }
  if (found.matches.length > q.maxMatches) {
    found.matches.length = q.maxMatches
    found.more = true
  }
  if (tooBig > 0)
    found.notes.push(`${tooBig} files larger than ${BUILTIN_MAX_FILE / 1024 / 1024} MB were not searched.`)
  return found
}

/** ripgrep's --glob rule: a glob without "/" applies to the file name, else to the path. */
function included(rel: string, include: string | undefined): boolean {
  if (!include) return true
  return include.includes('/') ? matchesGlob(rel, include) : matchesGlob(basename(rel), include)
}

/**
 * The matching lines of one file (at most `room`), 'big' when skipped for size, null for
 * binary. `at` reaches it through its held directory; `abs` is how it is named.
 */
async function searchOne(
  at: string,
  abs: string,
  re: RegExp,
  room: number,
  roots: Roots,
): Promise<GrepMatch[] | 'big' | null> {
  let data: Buffer
  try {
    const fh = await open(at, FILE_FLAGS)
    try {
      if (openedElsewhere(fh.fd, roots) !== null) return null
      const st = fstatSync(fh.fd)
      if (!st.isFile()) return null
      if (st.size > BUILTIN_MAX_FILE) return 'big'
      data = await fh.readFile()
    } finally {
      await fh.close()
    }
  } catch {
    return null // unreadable or gone: skipped, as rg skips it
  }
  if (looksBinary(data)) return null
  const matches: GrepMatch[] = []
  const lines = data.toString('utf8').split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  for (let i = 0; i < lines.length && matches.length < room; i++) {
    if (!re.test(stripCr(lines[i]))) continue
    matches.push({ abs, line: i + 1, text: cutText(lines[i]) })
  }
  return matches
}
