// `glob`: files whose path matches a glob pattern under a directory, newest first (the files
// just changed are usually the ones that matter), capped. Matching is Node's own
// path.matchesGlob; the walk never follows symlinks and skips .git and node_modules unless
// the pattern names them.
import { lstatSync } from 'node:fs'
import { matchesGlob } from 'node:path'
import { type Static, Type } from 'typebox'
import { confine } from '../confine.ts'
import type { ToolContext, ToolResult, ToolSpec } from '../types.ts'
import { argsError, count, fail, interrupted, ok } from './common.ts'
import { type HeldDir, holdDir, notHeldMessage } from './held-dir.ts'
import { IGNORED_DIRS, newWalkStats, walk } from './walk.ts'

export const GLOB_MAX_RESULTS = 200
/** Matches gathered (and sorted) at most; past this the result says there are more. */
const GLOB_MAX_MATCHES = 5000
/** Entries looked at before the walk gives up. */
const GLOB_MAX_VISITED = 200_000

const GlobArgs = Type.Object(
  {
    pattern: Type.String({
      description:
        'A glob pattern relative to path: "**/*.ts", "src/**/test_*.py", "*.{json,yaml}". "*" stays within ' +
        'one directory level, "**" crosses levels; names starting with "." match only when the pattern spells the dot.',
    }),
    path: Type.Optional(
      Type.String({
        description: 'The directory to search, relative to the workspace (default: the workspace).',
      }),
    ),
  },
  { additionalProperties: false },
)
type GlobArgs = Static<typeof GlobArgs>

export const globTool: ToolSpec<GlobArgs> = {
  name: 'glob',
  description:
    'Find files by name pattern under a directory. Returns paths relative to the workspace, most recently ' +
    `modified first, at most ${GLOB_MAX_RESULTS}. ${IGNORED_DIRS.join(' and ')} are skipped unless the ` +
    'pattern names them. Use grep to search file contents.',
  parameters: GlobArgs,
  effect: 'read',
  summarize(args) {
    return `glob ${args.pattern}${args.path ? ` in ${args.path}` : ''}`
  },
  run: runGlob,
}

interface Match {
  shown: string
  mtime: number
}

function mtimeOf(at: string): number {
  try {
    return lstatSync(at).mtimeMs
  } catch {
    return 0 // gone meanwhile: sorted last
  }
}

const GLOB_CHARS = /[*?[\]{}!]/

/** The leading segments without glob characters ("src/lib/**\/*.ts" → "src/lib"). */
function literalBase(pattern: string): string {
  const segments = pattern.split('/')
  const literal: string[] = []
  for (const s of segments.slice(0, -1)) {
    if (GLOB_CHARS.test(s) || s === '' || s === '.') break
    literal.push(s)
  }
  return literal.join('/')
}

function patternError(pattern: string): string | null {
  if (pattern.trim() === '') return 'pattern must not be empty'
  if (pattern.startsWith('/'))
    return `pattern ${pattern} is absolute; give the directory as path and a relative pattern`
  if (pattern.split('/').includes('..'))
    return `pattern ${pattern} must not contain ".."; give the directory as path`
  return null
}

async function runGlob(args: GlobArgs, ctx: ToolContext): Promise<ToolResult> {
  const bad = argsError(GlobArgs, args) ?? patternError(args.pattern)
  if (bad) return fail(bad)
  const asked = args.path ?? '.'
  const base = literalBase(args.pattern)
  const dir = await confine(asked, ctx, 'read')
  if (!dir.ok) return fail(dir.message)
  if (!dir.stats?.isDirectory()) return fail(`${asked}: is not a directory`)
  // Start the walk at the pattern's literal head, confined again: it may be a symlink.
  const start = base === '' ? dir : await confine(`${dir.path}/${base}`, ctx, 'read')
  if (!start.ok) return fail(start.message)
  const prefix = base === '' ? '' : `${base}/`
  const dirShown = dir.display === '.' ? '' : `${dir.display}/`

  const ignore = new Set(IGNORED_DIRS.filter((name) => !args.pattern.split('/').includes(name)))
  const stats = newWalkStats()
  const matches: Match[] = []
  if (start.stats?.isDirectory()) {
    let held: HeldDir
    try {
      held = holdDir(start.path, ctx)
    } catch (err) {
      return fail(notHeldMessage(err, asked))
    }
    const opts = {
      ignore,
      maxDepth: Number.POSITIVE_INFINITY,
      maxEntries: GLOB_MAX_VISITED,
      signal: ctx.signal,
      roots: ctx,
    }
    try {
      for await (const e of walk(held, opts, stats)) {
        if (e.kind === 'dir' || !matchesGlob(prefix + e.rel, args.pattern)) continue
        // Stated through the held directory, while the walk is still there.
        matches.push({ shown: dirShown + prefix + e.rel, mtime: mtimeOf(e.at) })
        if (matches.length >= GLOB_MAX_MATCHES) break
      }
    } finally {
      held.close()
    }
  }
  if (ctx.signal.aborted) return interrupted()
  matches.sort((a, b) => b.mtime - a.mtime || (a.shown < b.shown ? -1 : a.shown > b.shown ? 1 : 0))

  const shown = matches.slice(0, GLOB_MAX_RESULTS).map((m) => m.shown)
  const notes: string[] = []
  const more = matches.length > GLOB_MAX_RESULTS || matches.length >= GLOB_MAX_MATCHES || stats.exhausted
  if (more)
    notes.push(
      `Showing ${count(shown.length)} of ${matches.length >= GLOB_MAX_MATCHES || stats.exhausted ? 'more than ' : ''}` +
        `${count(matches.length)} matches (newest first); narrow the pattern or the path to see the rest.`,
    )
  if (shown.length === 0) {
    const where = asked === '.' ? 'the workspace' : asked
    const hint = args.pattern.includes('/')
      ? ''
      : ` A pattern without "/" matches only directly in ${where}; use **/${args.pattern} to search below it.`
    return ok(`No files match ${args.pattern} in ${where}.${hint}`, {
      path: dir.display,
      matches: 0,
    })
  }
  const output = shown.join('\n') + (notes.length > 0 ? `\n\n(${notes.join(' ')})` : '')
  return ok(output, { path: dir.display, matches: matches.length, truncated: more })
}
