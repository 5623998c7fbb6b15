// `grep`: lines matching a regular expression, as path:line:text, capped in matches and in
// characters. ripgrep runs the search when it is on PATH, the built-in engine otherwise
// (grep-engines.ts); which one ran is in the result's meta. Both search a directory held by
// descriptor (held-dir.ts): the one asked for, or the one holding the file asked for.
import { basename, dirname } from 'node:path'
import { type Static, Type } from 'typebox'
import { type Confined, confine, displayUnder } from '../confine.ts'
import type { ToolContext, ToolResult, ToolSpec } from '../types.ts'
import { argsError, brief, count, fail, interrupted, ok } from './common.ts'
import { findRipgrep, type GrepFound, type GrepQuery, grepBuiltin, grepWithRipgrep } from './grep-engines.ts'
import { type HeldDir, holdDir, notHeldMessage } from './held-dir.ts'

export const GREP_DEFAULT_MATCHES = 100
export const GREP_MAX_MATCHES = 500
export const GREP_MAX_CHARS = 50 * 1024

const GrepArgs = Type.Object(
  {
    pattern: Type.String({
      description: 'A regular expression (ripgrep syntax; the JavaScript dialect when ripgrep is absent).',
    }),
    path: Type.Optional(
      Type.String({
        description: 'A directory or file to search, relative to the workspace (default: the workspace).',
      }),
    ),
    include: Type.Optional(
      Type.String({
        description:
          'Only files matching this glob: without "/" it applies to file names ("*.ts", "*.{c,h}"), with "/" to paths relative to path ("src/**/*.ts").',
      }),
    ),
    ignore_case: Type.Optional(
      Type.Boolean({ description: 'Match letters in either case (default false).' }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: GREP_MAX_MATCHES,
        description: `Most matching lines to return (default ${GREP_DEFAULT_MATCHES}).`,
      }),
    ),
  },
  { additionalProperties: false },
)
type GrepArgs = Static<typeof GrepArgs>

export type GrepEngine = 'auto' | 'ripgrep' | 'builtin'

export interface GrepToolOptions {
  /** 'auto' (the default) uses ripgrep when on PATH; tests force one engine. */
  engine?: GrepEngine
}

/** The grep tool; `engine` picks the search engine (tests use it to run both). */
export function createGrepTool(options: GrepToolOptions = {}): ToolSpec<GrepArgs> {
  const engine = options.engine ?? 'auto'
  return {
    name: 'grep',
    description:
      'Search file contents with a regular expression. Returns matching lines as path:line:text, files in ' +
      `path order, at most ${GREP_DEFAULT_MATCHES} lines unless limit says otherwise (${GREP_MAX_MATCHES} at most). ` +
      'Skips binary files, .git and node_modules, and does not follow symbolic links. ' +
      'Use include to search only some files, and read to see a match in context.',
    parameters: GrepArgs,
    effect: 'read',
    summarize(args) {
      const where = args.path ? ` in ${args.path}` : ''
      const filter = args.include ? ` (${args.include})` : ''
      return `grep ${brief(args.pattern, 40)}${where}${filter}`
    },
    run: (args, ctx) => runGrep(args, ctx, engine),
  }
}

async function runGrep(args: GrepArgs, ctx: ToolContext, engine: GrepEngine): Promise<ToolResult> {
  const bad = argsError(GrepArgs, args)
  if (bad) return fail(bad)
  if (args.pattern === '') return fail('pattern must not be empty')
  const asked = args.path ?? '.'
  const c = await confine(asked, ctx, 'read')
  if (!c.ok) return fail(c.message)
  if (!c.stats) return fail(`${asked}: no such file or directory`)
  if (ctx.signal.aborted) return interrupted()

  const rg = engine === 'builtin' ? null : await findRipgrep()
  if (engine === 'ripgrep' && !rg) return fail('ripgrep (rg) is not on PATH')
  const isFile = !c.stats.isDirectory()
  let dir: HeldDir
  try {
    dir = holdDir(isFile ? dirname(c.path) : c.path, ctx)
  } catch (err) {
    return fail(notHeldMessage(err, isFile ? `${asked} (its directory)` : asked))
  }
  const query: GrepQuery = {
    pattern: args.pattern,
    ignoreCase: args.ignore_case ?? false,
    include: args.include,
    dir,
    only: isFile ? basename(c.path) : undefined,
    maxMatches: args.limit ?? GREP_DEFAULT_MATCHES,
    signal: ctx.signal,
    roots: ctx,
  }
  let found: GrepFound
  try {
    found = rg ? await grepWithRipgrep(rg, query) : await grepBuiltin(query)
  } finally {
    dir.close()
  }
  if (found.interrupted) return interrupted(format(found, c, asked).output)
  if (found.error) return fail(found.error)
  const { output, shown } = format(found, c, asked)
  return ok(output, {
    path: c.display,
    engine: rg ? 'ripgrep' : 'builtin',
    matches: shown,
    truncated: found.more || shown < found.matches.length,
  })
}

function format(found: GrepFound, start: Confined, asked: string): { output: string; shown: number } {
  if (found.matches.length === 0) {
    const notes = found.notes.length > 0 ? ` (${found.notes.join(' ')})` : ''
    return { output: `No matches in ${asked === '.' ? 'the workspace' : asked}.${notes}`, shown: 0 }
  }
  const lines: string[] = []
  let chars = 0
  for (const m of found.matches) {
    const line = `${displayUnder(m.abs, start)}:${m.line}:${m.text}`
    if (chars + line.length + 1 > GREP_MAX_CHARS) break
    lines.push(line)
    chars += line.length + 1
  }
  const notes = [...found.notes]
  if (found.more || lines.length < found.matches.length) {
    const why = lines.length < found.matches.length ? ` (output cut at ${GREP_MAX_CHARS / 1024} KB)` : ''
    notes.unshift(
      `Showing the first ${count(lines.length)} matches${why}; there are more. ` +
        'Narrow the pattern, the path or include to see the rest.',
    )
  }
  const output = lines.join('\n') + (notes.length > 0 ? `\n\n(${notes.join(' ')})` : '')
  return { output, shown: lines.length }
}

export const grepTool = createGrepTool()
