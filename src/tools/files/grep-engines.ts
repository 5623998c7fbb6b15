// grep's two engines. ripgrep, when it is on PATH: spawned with an argument array (never a
// shell), plain output with NUL after each path and long lines shortened by rg itself, so
// memory stays bounded whatever the files hold; it is stopped as soon as enough matches are
// in. The built-in engine, otherwise: the same walk as list and glob, JavaScript regular
// expressions, binary files (a NUL in the first 8,000 bytes) skipped. Both never follow
// symlinks, skip .git and node_modules, and report files in path order, so they agree.
import { spawn } from 'node:child_process'
import { constants } from 'node:fs'
import { access, open } from 'node:fs/promises'
import { basename, delimiter, dirname, join, matchesGlob, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { inHearthHome } from '../confine.ts'
import { isHiddenPath } from '../hidden-paths.ts'
import { looksBinary } from './common.ts'
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
  /** The real path to search: a directory or one file. */
  start: string
  startIsFile: boolean
  /** Stop after this many matches (one more is looked for, to know whether there are more). */
  maxMatches: number
  signal: AbortSignal
}

export interface GrepMatch {
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
  // rg matches a glob with "/" against paths relative to where it runs: it runs in the
  // start directory (beside the file, for one file) and names paths relative to it.
  const cwd = q.startIsFile ? dirname(q.start) : q.start
  args.push('--regexp', q.pattern, '--', q.startIsFile ? basename(q.start) : '.')

  const child = spawn(rg, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
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
    for await (const raw of lines) {
      const m = parseRgLine(raw, cwd)
      if (!m || inHearthHome(m.abs) || isHiddenPath(m.abs)) continue
      if (found.matches.length >= q.maxMatches) {
        found.more = true
        stop()
        break
      }
      found.matches.push(m)
    }
    const code = await exited
    if (q.signal.aborted) return { ...found, interrupted: true }
    if (code === 2 && !found.more) {
      const message = stderr.trim()
      if (found.matches.length === 0 && message !== '') return { ...found, error: rgError(message) }
      if (message !== '') found.notes.push('Some files could not be searched.')
    }
    return found
  } finally {
    q.signal.removeEventListener('abort', stop)
  }
}

/** "path\0line:text" (rg's --null output) → a match. */
function parseRgLine(raw: string, cwd: string): GrepMatch | null {
  const nul = raw.indexOf('\0')
  if (nul < 0) return null
  const rest = raw.slice(nul + 1)
  const colon = rest.indexOf(':')
  const line = Number.parseInt(rest.slice(0, colon), 10)
  if (colon < 0 || !Number.isFinite(line)) return null
  return { abs: resolve(cwd, raw.slice(0, nul)), line, text: stripCr(rest.slice(colon + 1)) }
}

function stripCr(text: string): string {
  return text.endsWith('\r') ? text.slice(0, -1) : text
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
  const searchFile = async (abs: string): Promise<boolean> => {
    const r = await searchOne(abs, re, q.maxMatches + 1 - found.matches.length)
    if (r === 'big') tooBig++
    else if (r) found.matches.push(...r)
    return found.matches.length > q.maxMatches
  }
  if (q.startIsFile) await searchFile(q.start)
  else {
    const stats = newWalkStats()
    const opts = {
      ignore: new Set(IGNORED_DIRS),
      maxDepth: Infinity,
      maxEntries: BUILTIN_MAX_VISITED,
      signal: q.signal,
    }
    for await (const e of walk(q.start, opts, stats)) {
      if (e.kind !== 'file' || !included(e.rel, q.include)) continue
      if (await searchFile(e.abs)) break
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

/** The matching lines of one file (at most `room`), 'big' when skipped for size, null for binary. */
async function searchOne(abs: string, re: RegExp, room: number): Promise<GrepMatch[] | 'big' | null> {
  let data: Buffer
  try {
    const fh = await open(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
    try {
      const st = await fh.stat()
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
    const text = stripCr(lines[i])
    if (!re.test(text)) continue
    matches.push({
      abs,
      line: i + 1,
      text: text.length > GREP_MAX_LINE ? text.slice(0, GREP_MAX_LINE) + OMITTED : text,
    })
  }
  return matches
}
