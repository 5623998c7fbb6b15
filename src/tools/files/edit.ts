// `edit`: exact-match replacement in a text file, one replacement or several applied in
// order (all or none), written atomically. A file with CRLF line endings keeps them (the
// model's text is matched and written with LF, converted back), and a UTF-8 byte order mark
// stays. A file that changed on disk between the read and the write is not overwritten.
// The file is read and written in its directory held by descriptor (held-dir.ts): both
// reach the same directory, whatever is swapped in on the way after the check.
import { open } from 'node:fs/promises'
import { basename, dirname } from 'node:path'
import { type Static, Type } from 'typebox'
import { checkOpened, confine, heldWriteRefusal } from '../confine.ts'
import type { ToolContext, ToolResult, ToolSpec } from '../types.ts'
import { ChangedMeanwhile, type Expected, writeAtomic } from './atomic.ts'
import {
  argsError,
  bytes,
  count,
  cutLine,
  fail,
  fsMessage,
  interrupted,
  isUtf8,
  looksBinary,
  ok,
} from './common.ts'
import { applyEdits, type Replacement } from './edit-apply.ts'
import { FILE_FLAGS, type HeldDir, holdDir, notHeldMessage } from './held-dir.ts'

/** Files larger than this are not edited (write replaces them whole). */
export const EDIT_MAX_BYTES = 10 * 1024 * 1024
const SNIPPET_LINES = 20
const BOM = Buffer.from([0xef, 0xbb, 0xbf])

const EditItem = Type.Object(
  {
    old_string: Type.String({
      description: 'The exact text to replace (whitespace and indentation included).',
    }),
    new_string: Type.String({ description: 'The text to put in its place.' }),
    replace_all: Type.Optional(
      Type.Boolean({
        description: 'Replace every occurrence instead of requiring exactly one (default false).',
      }),
    ),
  },
  { additionalProperties: false },
)

const EditArgs = Type.Object(
  {
    path: Type.String({ description: 'The file to edit, relative to the workspace.' }),
    old_string: Type.Optional(
      Type.String({
        description: 'The exact text to replace; it must occur exactly once unless replace_all is true.',
      }),
    ),
    new_string: Type.Optional(Type.String({ description: 'The text to put in its place.' })),
    replace_all: Type.Optional(Type.Boolean({ description: 'Replace every occurrence of old_string.' })),
    edits: Type.Optional(
      Type.Array(EditItem, {
        minItems: 1,
        description:
          'Several replacements, applied in order, each to the result of the one before; if one fails, none is applied. Use instead of old_string/new_string.',
      }),
    ),
  },
  { additionalProperties: false },
)
type EditArgs = Static<typeof EditArgs>

export const editTool: ToolSpec<EditArgs> = {
  name: 'edit',
  description:
    'Replace exact text in an existing file: old_string must match the file exactly (copy it from read, ' +
    'without the line numbers) and occur once, unless replace_all is true. For several changes to one file, ' +
    'give edits: [{old_string, new_string, replace_all?}, …] instead; they apply in order, all or none. ' +
    'Line endings and a byte order mark are kept. To create a file, use write.',
  parameters: EditArgs,
  effect: 'write',
  summarize(args) {
    const n = Array.isArray(args.edits) ? ` (${args.edits.length} edits)` : ''
    return `edit ${args.path}${n}`
  },
  run: runEdit,
}

/** The edits the call asks for, or why its arguments do not say. */
function editsOf(args: EditArgs): Replacement[] | string {
  const single =
    args.old_string !== undefined || args.new_string !== undefined || args.replace_all !== undefined
  if (args.edits && single) return 'Give either old_string/new_string or edits, not both.'
  if (args.edits) return args.edits
  if (args.old_string === undefined || args.new_string === undefined)
    return 'Give old_string and new_string (or edits: [{old_string, new_string}, …]).'
  return [{ old_string: args.old_string, new_string: args.new_string, replace_all: args.replace_all }]
}

interface Loaded {
  text: string
  bom: boolean
  crlf: boolean
  mode: number
  owner: { uid: number; gid: number }
  expect: Expected
}

async function load(dir: HeldDir, name: string, shown: string, ctx: ToolContext): Promise<Loaded | string> {
  const fh = await open(dir.at(name), FILE_FLAGS)
  try {
    const moved = await checkOpened(fh.fd, shown, ctx)
    if (moved) return moved.message
    const st = await fh.stat()
    if (!st.isFile()) return `${shown}: is not a regular file`
    if (st.size > EDIT_MAX_BYTES)
      return `${shown}: is ${bytes(st.size)}, more than edit takes (${bytes(EDIT_MAX_BYTES)}); use the shell or write.`
    const raw = await fh.readFile()
    if (looksBinary(raw)) return `${shown}: is a binary file; edit changes text files only.`
    if (!isUtf8(raw, false))
      return `${shown}: is not valid UTF-8; editing it as text would change bytes it does not mean to. Use the shell.`
    const bom = raw.subarray(0, 3).equals(BOM)
    let text = raw.toString('utf8', bom ? 3 : 0)
    // Only a file whose every newline is CRLF is converted: a mixed file is matched as it is.
    const crlf = text.includes('\r\n') && !/(^|[^\r])\n/.test(text)
    if (crlf) text = text.replaceAll('\r\n', '\n')
    return {
      text,
      bom,
      crlf,
      mode: st.mode & 0o777,
      owner: { uid: st.uid, gid: st.gid },
      expect: { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs },
    }
  } finally {
    await fh.close()
  }
}

async function runEdit(args: EditArgs, ctx: ToolContext): Promise<ToolResult> {
  const bad = argsError(EditArgs, args)
  if (bad) return fail(bad)
  const asked = editsOf(args)
  if (typeof asked === 'string') return fail(asked)
  if (ctx.signal.aborted) return interrupted('Interrupted before editing; the file is unchanged.')
  const c = await confine(args.path, ctx, 'write')
  if (!c.ok) return fail(c.message)
  if (!c.stats) return fail(`${args.path}: no such file. To create a file, use write.`)
  if (c.stats.isDirectory()) return fail(`${args.path}: is a directory`)

  let dir: HeldDir
  try {
    dir = holdDir(dirname(c.path), ctx)
  } catch (err) {
    return fail(notHeldMessage(err, dirname(args.path)))
  }
  try {
    const guarded = heldWriteRefusal(args.path, dir.fd, basename(c.path), ctx)
    if (guarded) return fail(guarded)
    return await editIn(dir, basename(c.path), asked, args.path, c.display, ctx)
  } finally {
    dir.close()
  }
}

/** Loads `name` from its held directory, applies the edits and writes it back there. */
async function editIn(
  dir: HeldDir,
  name: string,
  asked: Replacement[],
  path: string,
  display: string,
  ctx: ToolContext,
): Promise<ToolResult> {
  let file: Loaded | string
  try {
    file = await load(dir, name, path, ctx)
  } catch (err) {
    return fail(fsMessage(err, path))
  }
  if (typeof file === 'string') return fail(file)
  const edits = file.crlf
    ? asked.map((e) => ({ ...e, old_string: lf(e.old_string), new_string: lf(e.new_string) }))
    : asked
  const applied = applyEdits(file.text, edits)
  if (!applied.ok) return fail(`${display}: ${applied.message}`)

  const body = file.crlf ? applied.text.replaceAll('\n', '\r\n') : applied.text
  const data = file.bom ? Buffer.concat([BOM, Buffer.from(body, 'utf8')]) : Buffer.from(body, 'utf8')
  if (ctx.signal.aborted) return interrupted('Interrupted before writing; the file is unchanged.')
  try {
    await writeAtomic(dir, name, data, { mode: file.mode, owner: file.owner, expect: file.expect })
  } catch (err) {
    if (err instanceof ChangedMeanwhile)
      return fail(
        `${display}: changed on disk while it was being edited; nothing was written. Read it again.`,
      )
    return fail(`Nothing was written. ${fsMessage(err, path)}`)
  }
  const n = applied.replacements
  const summary = `Edited ${display}: ${count(n)} replacement${n === 1 ? '' : 's'}.`
  return ok(`${summary}\n${snippet(applied.text, applied.firstLine, applied.lastLine)}`, {
    path: display,
    replacements: n,
    bytes: data.length,
    line_endings: file.crlf ? 'crlf' : 'lf',
  })
}

function lf(s: string): string {
  return s.replaceAll('\r\n', '\n')
}

/** The changed lines with a line of context on each side, numbered as read numbers them. */
function snippet(text: string, first: number, last: number): string {
  const lines = text.split('\n')
  if (text.endsWith('\n')) lines.pop()
  const from = Math.max(1, first - 1)
  const to = Math.min(lines.length, last + 1, from + SNIPPET_LINES - 1)
  const shown: string[] = []
  for (let n = from; n <= to; n++) shown.push(`${String(n).padStart(6)}\t${cutLine(lines[n - 1], 200).text}`)
  const more =
    Math.min(lines.length, last) > to ? '\n(… the change goes on; read the file to see all of it.)' : ''
  return shown.join('\n') + more
}
