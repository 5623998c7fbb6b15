// `read` on real files: numbered lines, offset and limit, the line, character and width
// caps with the way to read on, binary refused, images returned as images.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  READ_MAX_CHARS,
  READ_MAX_IMAGE_BYTES,
  READ_MAX_LINE_CHARS,
  READ_MAX_LINES,
  readTool,
} from '../../../src/tools/files/read.ts'
import { call, context, files, tempDir } from './helpers.ts'

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
)
const JPEG_HEAD = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00])
const WEBP_HEAD = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x24, 0, 0, 0]), Buffer.from('WEBPVP8 ')])

function numbered(lines: string[], from = 1): string {
  return lines.map((l, i) => `${String(from + i).padStart(6)}\t${l}`).join('\n')
}

describe('read', () => {
  const ws = tempDir()
  const ctx = context(ws)
  const many = Array.from({ length: 5000 }, (_, i) => `line ${i + 1}`)
  files(ws, {
    'a.txt': 'alpha\nbeta\ngamma\n',
    'no-newline.txt': 'one\ntwo',
    'many.txt': `${many.join('\n')}\n`,
    'wide.txt': `short\n${'w'.repeat(READ_MAX_LINE_CHARS + 500)}\nafter\n`,
    'crlf.txt': 'first\r\nsecond\r\n',
    'bom.txt': '\uFEFFwith bom\n',
    'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
    'empty.txt': '',
    'blob.bin': Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1, 2, 3]),
    'pixel.png': PNG,
    'photo.jpg': Buffer.concat([JPEG_HEAD, Buffer.alloc(100, 1)]),
    'anim.webp': Buffer.concat([WEBP_HEAD, Buffer.alloc(40, 2)]),
    'huge.png': Buffer.concat([PNG.subarray(0, 16), Buffer.alloc(READ_MAX_IMAGE_BYTES, 0)]),
    'dir/inner.txt': 'x\n',
    'src/config.ts': 'x\n',
  })

  it('numbers the lines as cat -n does, and ends the file as it ends', async () => {
    const r = await call(readTool, { path: 'a.txt' }, ctx)
    assert.equal(r.outcome, 'ok')
    assert.equal(r.output, numbered(['alpha', 'beta', 'gamma']))
    assert.deepEqual(r.meta, { path: 'a.txt', bytes: 17, lines: [1, 3], total_lines: 3, truncated: false })
    const last = await call(readTool, { path: 'no-newline.txt' }, ctx)
    assert.equal(last.output, numbered(['one', 'two']))
  })

  it('reads a window with offset and limit, and says how to read on', async () => {
    const r = await call(readTool, { path: 'many.txt', offset: 10, limit: 3 }, ctx)
    assert.equal(
      r.output,
      `${numbered(['line 10', 'line 11', 'line 12'], 10)}\n\n(Showing lines 10-12 of 5,000. Read on with offset=13.)`,
    )
    const tail = await call(readTool, { path: 'many.txt', offset: 4999 }, ctx)
    assert.equal(
      tail.output,
      `${numbered(['line 4999', 'line 5000'], 4999)}\n\n(Showing lines 4,999-5,000 of 5,000 (the end of the file).)`,
    )
    const past = await call(readTool, { path: 'many.txt', offset: 5001 }, ctx)
    assert.equal(past.outcome, 'error')
    assert.match(past.output, /offset 5001 is past the end of the file \(5,000 lines\)/)
  })

  it(`stops at ${READ_MAX_LINES} lines by default`, async () => {
    const r = await call(readTool, { path: 'many.txt' }, ctx)
    const body = r.output.split('\n\n')[0].split('\n')
    assert.equal(body.length, READ_MAX_LINES)
    assert.equal(body.at(-1), `${String(READ_MAX_LINES).padStart(6)}\tline ${READ_MAX_LINES}`)
    assert.match(r.output, /Showing lines 1-2,000 of 5,000\. Read on with offset=2001\.\)$/)
    assert.equal(r.meta?.truncated, true)
  })

  it(`cuts the output at ${READ_MAX_CHARS / 1024} KB, and cuts long lines`, async () => {
    const fat = Array.from({ length: 300 }, (_, i) => `${i}`.padEnd(1000, 'x'))
    files(ws, { 'fat.txt': fat.join('\n') })
    const r = await call(readTool, { path: 'fat.txt' }, ctx)
    assert.ok(r.output.length <= READ_MAX_CHARS + 200, `${r.output.length}`)
    const shown = r.output.split('\n\n')[0].split('\n').length
    assert.ok(shown > 10 && shown < 300)
    assert.match(
      r.output,
      new RegExp(`Output cut at 50 KB: showing lines 1-${shown} of 300\\. Read on with offset=${shown + 1}`),
    )

    const w = await call(readTool, { path: 'wide.txt' }, ctx)
    const [, wide, after] = w.output.split('\n')
    assert.equal(wide, `     2\t${'w'.repeat(READ_MAX_LINE_CHARS)}`)
    assert.equal(after, '     3\tafter')
    assert.match(w.output, /Line 2 was cut at 2,000 characters; use grep or the shell/)
  })

  it('reads the same lines whatever chunk boundaries fall inside (multi-byte characters, CRLF)', async () => {
    let seed = 7
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    const lines = Array.from({ length: 3000 }, (_, i) => `${i}:${'é€a'.repeat(rand(70))}`)
    files(ws, { 'mixed.txt': `${lines.join('\n')}\n`, 'mixed-crlf.txt': `${lines.join('\r\n')}\r\n` })
    for (const path of ['mixed.txt', 'mixed-crlf.txt'])
      for (const offset of [1, 700, 1499, 2999]) {
        const r = await call(readTool, { path, offset, limit: 150 }, ctx)
        const body = r.output.split('\n\n')[0]
        const want = lines.slice(offset - 1, offset - 1 + 150)
        assert.equal(body, numbered(want, offset), `${path} at ${offset}`)
        assert.equal(r.meta?.total_lines, 3000)
      }
  })

  it('hides CRLF and a BOM but says the file has CRLF', async () => {
    const r = await call(readTool, { path: 'crlf.txt' }, ctx)
    assert.equal(
      r.output,
      `${numbered(['first', 'second'])}\n\n(The file has CRLF line endings (not shown; edit keeps them).)`,
    )
    const b = await call(readTool, { path: 'bom.txt' }, ctx)
    assert.equal(b.output, numbered(['with bom']))
  })

  it('shows text that is not UTF-8 with replacement characters, and says so', async () => {
    const r = await call(readTool, { path: 'latin1.txt' }, ctx)
    assert.equal(r.outcome, 'ok')
    assert.match(r.output, /caf\uFFFD/)
    assert.match(r.output, /not valid UTF-8/)
  })

  it('refuses binary files, directories and missing files with what to do instead', async () => {
    const bin = await call(readTool, { path: 'blob.bin' }, ctx)
    assert.equal(bin.outcome, 'error')
    assert.match(bin.output, /blob\.bin: is a binary file \(10 bytes\)/)
    const dir = await call(readTool, { path: 'dir' }, ctx)
    assert.equal(dir.outcome, 'error')
    assert.match(dir.output, /is a directory; use list/)
    const missing = await call(readTool, { path: 'src/Config.ts' }, ctx)
    assert.equal(missing.outcome, 'error')
    assert.match(
      missing.output,
      /src\/Config\.ts: no such file\. Files with a similar name there: config\.ts\./,
    )
  })

  it('says an empty file is empty', async () => {
    const r = await call(readTool, { path: 'empty.txt' }, ctx)
    assert.equal(r.outcome, 'ok')
    assert.equal(r.output, '(empty.txt is empty)')
  })

  it('returns PNG, JPEG and WebP files as images', async () => {
    const png = await call(readTool, { path: 'pixel.png' }, ctx)
    assert.equal(png.outcome, 'ok')
    assert.deepEqual(png.images, [{ media_type: 'image/png', data: PNG.toString('base64') }])
    assert.match(png.output, /^Image pixel\.png \(image\/png, \d+ bytes\), attached\.$/)
    const jpg = await call(readTool, { path: 'photo.jpg' }, ctx)
    assert.equal(jpg.images?.[0].media_type, 'image/jpeg')
    const webp = await call(readTool, { path: 'anim.webp' }, ctx)
    assert.equal(webp.images?.[0].media_type, 'image/webp')
  })

  it('refuses an image over the size cap', async () => {
    const r = await call(readTool, { path: 'huge.png' }, ctx)
    assert.equal(r.outcome, 'error')
    assert.equal(r.images, undefined)
    assert.match(r.output, /is an image \(image\/png, 3\.6 MB\), larger than the 3\.6 MB/)
  })

  it('refuses bad arguments with a message naming them', async () => {
    const r = await call(readTool, { path: 'a.txt', offset: 0 }, ctx)
    assert.equal(r.outcome, 'error')
    assert.match(r.output, /Invalid arguments: offset must be >= 1/)
    const u = await call(readTool, { path: 'a.txt', lines: 3 }, ctx)
    assert.match(u.output, /unknown argument "lines"/)
  })

  it('returns interrupted when the run is interrupted', async () => {
    const ac = new AbortController()
    ac.abort()
    const r = await call(readTool, { path: 'a.txt' }, context(ws, { signal: ac.signal }))
    assert.equal(r.outcome, 'interrupted')
  })

  it('summarizes a call in one line', () => {
    assert.equal(readTool.summarize({ path: 'src/a.ts' }), 'read src/a.ts')
    assert.equal(readTool.summarize({ path: 'src/a.ts', offset: 10, limit: 20 }), 'read src/a.ts:10+20')
  })
})
