// `read`: a file's lines, numbered as `cat -n` numbers them, from a 1-based offset, capped
// in lines, characters and line width. Images (PNG, JPEG, WebP by their magic bytes) come
// back as images; other binary content is refused.
import { fstatSync, readSync } from 'node:fs'
import { type FileHandle, open, readdir } from 'node:fs/promises'
import { basename, dirname, extname } from 'node:path'
import { type Static, Type } from 'typebox'
import { checkOpened, confine, type Roots } from '../confine.ts'
import type { ToolContext, ToolImage, ToolResult, ToolSpec } from '../types.ts'
import { argsError, bytes, count, fail, fsMessage, interrupted, isUtf8, looksBinary, ok } from './common.ts'
import { FILE_FLAGS, type HeldDir, holdDir } from './held-dir.ts'
import { readWindow } from './lines.ts'

export const READ_MAX_LINES = 2000
export const READ_MAX_CHARS = 50 * 1024
export const READ_MAX_LINE_CHARS = 2000
/** Raw image bytes sent back at most: base64 of it stays under 5 MB, the smallest vendor cap. */
export const READ_MAX_IMAGE_BYTES = 3_750_000
/** Files up to this size are counted to the end so the model learns their length. */
const COUNT_LINES_UP_TO = 64 * 1024 * 1024

const ReadArgs = Type.Object(
  {
    path: Type.String({ description: 'The file to read: relative to the workspace, or absolute inside it.' }),
    offset: Type.Optional(
      Type.Integer({ minimum: 1, description: 'The line to start at, 1-based (default 1).' }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: READ_MAX_LINES,
        description: `How many lines to read (default and most: ${READ_MAX_LINES}).`,
      }),
    ),
  },
  { additionalProperties: false },
)
type ReadArgs = Static<typeof ReadArgs>

export const readTool: ToolSpec<ReadArgs> = {
  name: 'read',
  description:
    'Read a text file. Lines come back numbered (number, tab, text). At most ' +
    `${count(READ_MAX_LINES)} lines or ${READ_MAX_CHARS / 1024} KB per call, and lines longer than ` +
    `${count(READ_MAX_LINE_CHARS)} characters are cut; use offset and limit to read a long file in parts. ` +
    'PNG, JPEG and WebP images are returned as images. Other binary files are refused.',
  parameters: ReadArgs,
  effect: 'read',
  summarize(args) {
    const range = args.offset || args.limit ? `:${args.offset ?? 1}${args.limit ? `+${args.limit}` : ''}` : ''
    return `read ${args.path}${range}`
  },
  run: runRead,
}

async function runRead(args: ReadArgs, ctx: ToolContext): Promise<ToolResult> {
  const bad = argsError(ReadArgs, args)
  if (bad) return fail(bad)
  if (ctx.signal.aborted) return interrupted()
  const c = await confine(args.path, ctx, 'read')
  if (!c.ok) return fail(c.message)
  if (!c.stats) return fail(`${args.path}: no such file.${await nearNames(c.path, ctx)}`)
  if (c.stats.isDirectory()) return fail(`${args.path}: is a directory; use list to see what it holds.`)

  let fh: FileHandle
  try {
    fh = await open(c.path, FILE_FLAGS)
  } catch (err) {
    return fail(fsMessage(err, args.path))
  }
  try {
    const moved = await checkOpened(fh.fd, args.path, ctx)
    if (moved) return fail(moved.message)
    // Synchronous on the open descriptor: two quick calls, without the thread pool's trips.
    const st = fstatSync(fh.fd)
    if (!st.isFile()) return fail(`${args.path}: is not a regular file`)
    const head = Buffer.alloc(Math.min(st.size, 8192))
    readSync(fh.fd, head, 0, head.length, 0)
    const image = imageType(head)
    if (image) return await readImage(fh, st.size, image, c.display)
    if (looksBinary(head))
      return fail(
        `${args.path}: is a binary file (${bytes(st.size)}); read shows text only. ` +
          'Use the shell (for example `file`, `xxd | head`) to inspect it.',
      )
    return await readText(fh, st.size, args, c.display, ctx.signal, !isUtf8(head, head.length < st.size))
  } catch (err) {
    return fail(fsMessage(err, args.path))
  } finally {
    await fh.close()
  }
}

async function readText(
  fh: FileHandle,
  size: number,
  args: ReadArgs,
  shown: string,
  signal: AbortSignal,
  notUtf8: boolean,
): Promise<ToolResult> {
  const from = args.offset ?? 1
  const w = await readWindow(fh, size, {
    from,
    maxLines: args.limit ?? READ_MAX_LINES,
    maxChars: READ_MAX_CHARS,
    maxLineChars: READ_MAX_LINE_CHARS,
    countUpTo: COUNT_LINES_UP_TO,
    signal,
  })
  if (w.interrupted) return interrupted()
  if (size === 0) return ok(`(${shown} is empty)`, { path: shown, bytes: 0, total_lines: 0 })
  if (w.lines.length === 0)
    return fail(
      `${args.path}: offset ${from} is past the end of the file (${count(w.total ?? 0)} lines). ` +
        'Use a smaller offset.',
    )
  const first = w.lines[0].n
  const last = w.lines[w.lines.length - 1].n
  const body = w.lines.map((l) => `${String(l.n).padStart(6)}\t${l.text}`).join('\n')
  const notes: string[] = []
  const of = w.total !== null ? ` of ${count(w.total)}` : ''
  if (w.more) {
    const why = w.charCapped ? `Output cut at ${READ_MAX_CHARS / 1024} KB: showing` : 'Showing'
    notes.push(`${why} lines ${count(first)}-${count(last)}${of}. Read on with offset=${last + 1}.`)
  } else if (first > 1) notes.push(`Showing lines ${count(first)}-${count(last)}${of} (the end of the file).`)
  const cut = w.lines.filter((l) => l.cut > 0)
  if (cut.length > 0)
    notes.push(
      `${cut.length === 1 ? `Line ${cut[0].n} was` : `${count(cut.length)} lines were`} cut at ` +
        `${count(READ_MAX_LINE_CHARS)} characters; use grep or the shell to see the rest of a long line.`,
    )
  if (w.crlf) notes.push('The file has CRLF line endings (not shown; edit keeps them).')
  if (notUtf8) notes.push('The file is not valid UTF-8: bytes that do not decode are shown as \uFFFD.')
  const output = notes.length > 0 ? `${body}\n\n(${notes.join(' ')})` : body
  return ok(output, {
    path: shown,
    bytes: size,
    lines: [first, last],
    total_lines: w.total,
    truncated: w.more || cut.length > 0,
  })
}

function imageType(head: Buffer): ToolImage['media_type'] | null {
  if (
    head.length >= 8 &&
    head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
  )
    return 'image/png'
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg'
  if (
    head.length >= 12 &&
    head.toString('latin1', 0, 4) === 'RIFF' &&
    head.toString('latin1', 8, 12) === 'WEBP'
  )
    return 'image/webp'
  return null
}

async function readImage(
  fh: FileHandle,
  size: number,
  mediaType: ToolImage['media_type'],
  shown: string,
): Promise<ToolResult> {
  if (size > READ_MAX_IMAGE_BYTES)
    return fail(
      `${shown}: is an image (${mediaType}, ${bytes(size)}), larger than the ${bytes(READ_MAX_IMAGE_BYTES)} ` +
        'an image may be. Make a smaller copy with the shell (for example ImageMagick) and read that.',
    )
  const data = await fh.readFile()
  return {
    outcome: 'ok',
    output: `Image ${shown} (${mediaType}, ${bytes(data.length)}), attached.`,
    images: [{ media_type: mediaType, data: data.toString('base64') }],
    meta: { path: shown, bytes: data.length, media_type: mediaType },
  }
}

/** Names in the same directory that look like the one asked for ("Did you mean…"). */
async function nearNames(missing: string, roots: Roots): Promise<string> {
  const want = basename(missing, extname(missing)).toLowerCase()
  if (want === '') return ''
  let dir: HeldDir
  try {
    dir = holdDir(dirname(missing), roots) // the names listed are those of the checked directory
  } catch {
    return ''
  }
  try {
    const names = (await readdir(dir.at())).filter((n) => n.toLowerCase().includes(want)).slice(0, 5)
    return names.length > 0 ? ` Files with a similar name there: ${names.join(', ')}.` : ''
  } catch {
    return ''
  } finally {
    dir.close()
  }
}
