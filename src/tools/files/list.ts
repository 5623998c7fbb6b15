// `list`: what a directory holds, directories marked with `/` and symlinks with `@`, down to
// a chosen depth, capped. `.git` and `node_modules` are left out unless asked for.
import { type Static, Type } from 'typebox'
import { confine } from '../confine.ts'
import type { ToolContext, ToolResult, ToolSpec } from '../types.ts'
import { argsError, count, fail, interrupted, ok } from './common.ts'
import { type HeldDir, holdDir, notHeldMessage } from './held-dir.ts'
import { IGNORED_DIRS, newWalkStats, type WalkEntry, walk } from './walk.ts'

export const LIST_MAX_ENTRIES = 500
export const LIST_MAX_DEPTH = 5

const ListArgs = Type.Object(
  {
    path: Type.Optional(
      Type.String({
        description: 'The directory to list, relative to the workspace (default: the workspace).',
      }),
    ),
    depth: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: LIST_MAX_DEPTH,
        description: 'How many levels to show (default 1: the directory itself).',
      }),
    ),
    include_ignored: Type.Optional(
      Type.Boolean({ description: `Also show ${IGNORED_DIRS.join(' and ')} (default false).` }),
    ),
  },
  { additionalProperties: false },
)
type ListArgs = Static<typeof ListArgs>

export const listTool: ToolSpec<ListArgs> = {
  name: 'list',
  description:
    'List a directory: one entry a line, directories end with "/", symbolic links with "@". ' +
    `With depth > 1, entries of subdirectories follow as relative paths. At most ${LIST_MAX_ENTRIES} entries; ` +
    `${IGNORED_DIRS.join(' and ')} are left out unless include_ignored is true.`,
  parameters: ListArgs,
  effect: 'read',
  summarize(args) {
    return `list ${args.path ?? '.'}${args.depth && args.depth > 1 ? ` (depth ${args.depth})` : ''}`
  },
  run: runList,
}

function line(e: WalkEntry): string {
  return e.rel + (e.kind === 'dir' ? '/' : e.kind === 'symlink' ? '@' : '')
}

function ignoredNames(names: string[]): string {
  const shown = names.slice(0, 10).map((n) => `${n}/`)
  if (names.length > 10) shown.push(`and ${count(names.length - 10)} more`)
  return shown.join(', ')
}

async function runList(args: ListArgs, ctx: ToolContext): Promise<ToolResult> {
  const bad = argsError(ListArgs, args)
  if (bad) return fail(bad)
  const asked = args.path ?? '.'
  const c = await confine(asked, ctx, 'read')
  if (!c.ok) return fail(c.message)
  if (!c.stats) return fail(`${asked}: no such directory`)
  if (!c.stats.isDirectory()) return fail(`${asked}: is a file, not a directory; use read to see it.`)

  let dir: HeldDir
  try {
    dir = holdDir(c.path, ctx)
  } catch (err) {
    return fail(notHeldMessage(err, asked))
  }
  const stats = newWalkStats()
  const lines: string[] = []
  const opts = {
    ignore: new Set(args.include_ignored ? [] : IGNORED_DIRS),
    maxDepth: args.depth ?? 1,
    maxEntries: LIST_MAX_ENTRIES,
    signal: ctx.signal,
    roots: ctx,
  }
  try {
    for await (const e of walk(dir, opts, stats)) lines.push(line(e))
  } finally {
    dir.close()
  }
  if (ctx.signal.aborted) return interrupted()

  const notes: string[] = []
  if (stats.exhausted)
    notes.push(
      `Showing the first ${count(LIST_MAX_ENTRIES)} entries; list a subdirectory or use a smaller depth to see the rest.`,
    )
  if (stats.ignored.length > 0)
    notes.push(`Not shown: ${ignoredNames(stats.ignored)} (include_ignored: true shows them).`)
  if (stats.unreadable > 0) notes.push(`${count(stats.unreadable)} directories could not be read.`)
  const body = lines.length > 0 ? lines.join('\n') : '(empty directory)'
  const header = `${c.display === '.' ? '.' : c.display}/`
  const output = `${header}\n${body}${notes.length > 0 ? `\n\n(${notes.join(' ')})` : ''}`
  return ok(output, { path: c.display, entries: lines.length, truncated: stats.exhausted })
}
