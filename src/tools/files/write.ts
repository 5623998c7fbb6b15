// `write`: creates a file or replaces one whole, atomically (atomic.ts); missing parent
// directories are made, all inside the confined path. An overwritten file keeps its mode.
// The file is written in its directory held by descriptor (held-dir.ts), so a parent
// swapped for a symlink after the check cannot send it elsewhere.
import { basename, dirname } from 'node:path'
import { type Static, Type } from 'typebox'
import { confine, heldWriteRefusal } from '../confine.ts'
import type { ToolContext, ToolResult, ToolSpec } from '../types.ts'
import { writeAtomic } from './atomic.ts'
import { argsError, bytes, count, fail, fsMessage, interrupted, ok } from './common.ts'
import { type HeldDir, holdDir, holdDirMaking, notHeldMessage } from './held-dir.ts'

const WriteArgs = Type.Object(
  {
    path: Type.String({
      description: 'The file to write, relative to the workspace; missing directories are made.',
    }),
    content: Type.String({ description: 'The whole new content of the file.' }),
  },
  { additionalProperties: false },
)
type WriteArgs = Static<typeof WriteArgs>

export const writeTool: ToolSpec<WriteArgs> = {
  name: 'write',
  description:
    'Create a file, or replace an existing file with new content (the whole file). To change part of a ' +
    'file, use edit instead. Missing parent directories are created.',
  parameters: WriteArgs,
  effect: 'write',
  summarize(args) {
    const size = typeof args.content === 'string' ? ` (${bytes(Buffer.byteLength(args.content))})` : ''
    return `write ${args.path}${size}`
  },
  run: runWrite,
}

function lineCount(text: string): number {
  if (text === '') return 0
  let n = 0
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++
  return text.endsWith('\n') ? n : n + 1
}

async function runWrite(args: WriteArgs, ctx: ToolContext): Promise<ToolResult> {
  const bad = argsError(WriteArgs, args)
  if (bad) return fail(bad)
  if (ctx.signal.aborted) return interrupted('Interrupted before writing; nothing was written.')
  if (args.path.endsWith('/')) return fail(`${args.path}: names a directory; give a file path.`)
  const c = await confine(args.path, ctx, 'write')
  if (!c.ok) return fail(c.message)
  if (c.stats?.isDirectory()) return fail(`${args.path}: is a directory; give a file path.`)
  if (c.stats?.isSymbolicLink()) return fail(`${args.path}: is a symbolic link`) // resolved by confine; a race

  const data = Buffer.from(args.content, 'utf8')
  let dir: HeldDir
  try {
    // A new file's missing parents are made, each inside the held one above it.
    dir = c.stats ? holdDir(dirname(c.path), ctx) : holdDirMaking(dirname(c.path), ctx)
  } catch (err) {
    return fail(`Nothing was written. ${notHeldMessage(err, dirname(args.path))}`)
  }
  try {
    const guarded = heldWriteRefusal(args.path, dir.fd, basename(c.path), ctx)
    if (guarded) return fail(guarded)
    const keep = c.stats ? { mode: c.stats.mode & 0o777, owner: { uid: c.stats.uid, gid: c.stats.gid } } : {}
    await writeAtomic(dir, basename(c.path), data, keep)
  } catch (err) {
    return fail(`Nothing was written. ${fsMessage(err, args.path)}`)
  } finally {
    dir.close()
  }
  const what = c.stats ? `replaced the previous ${bytes(c.stats.size)}` : 'new file'
  return ok(
    `Wrote ${count(data.length)} bytes (${count(lineCount(args.content))} lines) to ${c.display} (${what}).`,
    {
      path: c.display,
      bytes: data.length,
      created: !c.stats,
    },
  )
}
