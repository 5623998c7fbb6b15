import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { describe, it } from 'node:test'
import zlib from 'node:zlib'
import {
  codedLimit,
  decodeZstdBody,
  frameEnd,
  MAX_WINDOW_SIZE,
  readFrameHeader,
} from '../../src/http/zstd.ts'
import { DEFAULT_BODY_LIMIT, INPUT_BODY_LIMIT } from '../../src/schemas/common.ts'
import { HearthError } from '../../src/schemas/problems.ts'

const MAGIC = [0x28, 0xb5, 0x2f, 0xfd]

/** A frame header: descriptor byte, then optional window byte, dictionary id and size field. */
function header(descriptor: number, rest: number[]): Buffer {
  return Buffer.from([...MAGIC, descriptor, ...rest])
}

function le(value: bigint, bytes: number): number[] {
  const b = Buffer.alloc(8)
  b.writeBigUInt64LE(value)
  return [...b.subarray(0, bytes)]
}

function problemCode(fn: () => unknown): string {
  try {
    fn()
  } catch (err) {
    assert.ok(err instanceof HearthError, String(err))
    return err.code
  }
  assert.fail('expected a problem')
}

async function rejectsWith(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (err: unknown) => err instanceof HearthError && err.code === code)
}

describe('zstd frame header (RFC 8878 §3.1.1.1)', () => {
  it('reads every Frame_Content_Size field size', () => {
    // FCS flag 0 + single segment: 1 byte.
    assert.deepEqual(readFrameHeader(header(0x20, [200])), {
      contentSize: 200,
      windowSize: 200,
      singleSegment: true,
      dictionaryId: 0,
      checksum: false,
      headerBytes: 6,
    })
    // FCS flag 0 without single segment: no size field at all.
    assert.equal(readFrameHeader(header(0x00, [0x00])).contentSize, undefined)
    // FCS flag 1: 2 bytes, offset by 256.
    assert.equal(readFrameHeader(header(0x40, [0x00, ...le(0n, 2)])).contentSize, 256)
    assert.equal(readFrameHeader(header(0x40, [0x00, ...le(0xffffn, 2)])).contentSize, 65535 + 256)
    // FCS flag 2: 4 bytes.
    assert.equal(readFrameHeader(header(0x80, [0x00, ...le(0xdeadbeefn, 4)])).contentSize, 0xdeadbeef)
    // FCS flag 3: 8 bytes.
    assert.equal(readFrameHeader(header(0xc0, [0x00, ...le(2n ** 40n, 8)])).contentSize, 2 ** 40)
    assert.ok((readFrameHeader(header(0xe0, le(2n ** 64n - 1n, 8))).contentSize as number) > INPUT_BODY_LIMIT)
  })

  it('takes the window from the descriptor byte, or the content size for a single segment', () => {
    // Window_Descriptor: exponent in the high 5 bits, mantissa in the low 3.
    assert.equal(readFrameHeader(header(0x00, [0x00])).windowSize, 1024)
    assert.equal(readFrameHeader(header(0x00, [(17 << 3) | 0])).windowSize, 2 ** 27)
    assert.equal(readFrameHeader(header(0x00, [(17 << 3) | 7])).windowSize, 2 ** 27 + 7 * 2 ** 24)
    assert.equal(readFrameHeader(header(0x00, [(31 << 3) | 7])).windowSize, 2 ** 41 + 7 * 2 ** 38)
    const single = readFrameHeader(header(0xa0, le(5000n, 4)))
    assert.equal(single.singleSegment, true)
    assert.equal(single.windowSize, 5000)
    assert.equal(single.contentSize, 5000)
  })

  it('reads every dictionary id size, before the size field', () => {
    assert.equal(readFrameHeader(header(0x21, [0x07, 0x10])).dictionaryId, 7)
    assert.equal(readFrameHeader(header(0x21, [0x07, 0x10])).contentSize, 0x10)
    assert.equal(readFrameHeader(header(0x22, [...le(0xbeefn, 2), 0x10])).dictionaryId, 0xbeef)
    const four = readFrameHeader(header(0x63, [...le(0xcafebaben, 4), ...le(1000n - 256n, 2)]))
    assert.equal(four.dictionaryId, 0xcafebabe)
    assert.equal(four.contentSize, 1000)
    const windowed = readFrameHeader(header(0x85, [(3 << 3) | 0, 0x09, ...le(77n, 4)]))
    assert.deepEqual(windowed, {
      contentSize: 77,
      windowSize: 8192,
      singleSegment: false,
      dictionaryId: 9,
      checksum: true,
      headerBytes: 11,
    })
  })

  it('refuses what is not one plain frame header', () => {
    assert.equal(
      problemCode(() => readFrameHeader(Buffer.from('{"a":1}'))),
      'zstd_invalid',
    )
    assert.equal(
      problemCode(() => readFrameHeader(Buffer.from(MAGIC))),
      'zstd_invalid',
    )
    // Skippable frame magic.
    assert.equal(
      problemCode(() => readFrameHeader(Buffer.from([0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0]))),
      'zstd_invalid',
    )
    // Reserved bit.
    assert.equal(
      problemCode(() => readFrameHeader(header(0x28, [0x10]))),
      'zstd_invalid',
    )
    // Truncated size and dictionary fields.
    assert.equal(
      problemCode(() => readFrameHeader(header(0xc0, [0x00, 1, 2, 3]))),
      'zstd_invalid',
    )
    assert.equal(
      problemCode(() => readFrameHeader(header(0x23, [1, 2]))),
      'zstd_invalid',
    )
  })

  it('agrees with frames written by node:zlib, header and block layout', () => {
    for (const size of [0, 1, 255, 256, 65_791, 65_792, 1 << 20]) {
      for (const data of [randomBytes(size), Buffer.alloc(size, 'a'), Buffer.from('abcd'.repeat(size / 4))]) {
        for (const checksumFlag of [0, 1]) {
          const frame = zlib.zstdCompressSync(data, {
            params: { [zlib.constants.ZSTD_c_checksumFlag]: checksumFlag },
          })
          const h = readFrameHeader(frame)
          assert.equal(h.contentSize, data.length, `size ${size}`)
          assert.equal(h.dictionaryId, 0)
          assert.equal(h.checksum, checksumFlag === 1)
          assert.ok(h.windowSize <= MAX_WINDOW_SIZE)
          assert.equal(frameEnd(frame, h), frame.length, `size ${size}`)
        }
      }
    }
    const undeclared = zlib.zstdCompressSync(Buffer.from('hello'), {
      params: { [zlib.constants.ZSTD_c_contentSizeFlag]: 0 },
    })
    assert.equal(readFrameHeader(undeclared).contentSize, undefined)
    const checksummed = zlib.zstdCompressSync(Buffer.from('hello'), {
      params: { [zlib.constants.ZSTD_c_checksumFlag]: 1 },
    })
    assert.equal(readFrameHeader(checksummed).contentSize, 5)
  })
})

describe('zstd request bodies', () => {
  const limit = DEFAULT_BODY_LIMIT

  it('decodes a frame that declares its size', async () => {
    const text = JSON.stringify({ a: 'b'.repeat(10_000) })
    assert.equal((await decodeZstdBody(zlib.zstdCompressSync(Buffer.from(text)), limit)).toString(), text)
    assert.equal((await decodeZstdBody(zlib.zstdCompressSync(Buffer.alloc(0)), limit)).length, 0)
    const exact = randomBytes(limit)
    assert.deepEqual(await decodeZstdBody(zlib.zstdCompressSync(exact), limit), exact)
  })

  it('refuses a declared size over the limit before decoding', async () => {
    await rejectsWith(decodeZstdBody(zlib.zstdCompressSync(Buffer.alloc(limit + 1)), limit), 'body_too_large')
    await rejectsWith(decodeZstdBody(header(0xe0, le(2n ** 63n, 8)), limit), 'body_too_large')
  })

  it('refuses a frame without a declared size', async () => {
    const frame = zlib.zstdCompressSync(Buffer.from('{}'), {
      params: { [zlib.constants.ZSTD_c_contentSizeFlag]: 0 },
    })
    await rejectsWith(decodeZstdBody(frame, limit), 'zstd_size_undeclared')
  })

  it('refuses a window over 2^27, mantissa included', async () => {
    for (const wd of [(18 << 3) | 0, (17 << 3) | 1, (31 << 3) | 7]) {
      await rejectsWith(
        decodeZstdBody(header(0x80, [wd, ...le(10n, 4), 0x01, 0x00, 0x00]), limit),
        'zstd_window_too_large',
      )
    }
  })

  it('refuses dictionaries, corrupt frames and frames that decode to another size', async () => {
    await rejectsWith(
      decodeZstdBody(header(0x21, [0x07, 0x01, 0x09, 0x00, 0x00, 0x7b]), limit),
      'zstd_invalid',
    )
    const frame = zlib.zstdCompressSync(Buffer.from(JSON.stringify({ a: 'x'.repeat(3000), b: [1, 2, 3] })))
    await rejectsWith(decodeZstdBody(frame.subarray(0, frame.length - 3), limit), 'zstd_invalid')
    // The decoder alone would stop after the first frame and ignore the rest.
    for (const tail of [frame, Buffer.from('x'), Buffer.alloc(4)]) {
      assert.equal(
        zlib.zstdDecompressSync(Buffer.concat([frame, tail])).length,
        readFrameHeader(frame).contentSize,
      )
      await rejectsWith(decodeZstdBody(Buffer.concat([frame, tail]), limit), 'zstd_invalid')
    }
    const lying = zlib.zstdCompressSync(Buffer.alloc(4096, 'a'))
    assert.equal(lying[4], 0x60)
    lying.writeUInt16LE(4000 - 256, 5) // declares 4000 of the 4096 bytes
    await rejectsWith(decodeZstdBody(lying, limit), 'zstd_invalid')
    const garbage = Buffer.concat([header(0x20, [50]), randomBytes(40)])
    await rejectsWith(decodeZstdBody(garbage, limit), 'zstd_invalid')
  })

  it('bounds coded bytes at or above the worst case of the reference encoder', () => {
    // ZSTD_COMPRESSBOUND from zstd.h.
    const bound = (n: number) => n + (n >> 8) + (n < 128 << 10 ? ((128 << 10) - n) >> 11 : 0)
    for (const n of [0, 1, 1024, DEFAULT_BODY_LIMIT, 1 << 20, INPUT_BODY_LIMIT]) {
      assert.ok(codedLimit(n) >= bound(n), `limit ${n}`)
      assert.ok(codedLimit(n) <= n + (n >> 7) + 4096, `limit ${n} stays close to the decoded limit`)
    }
    const incompressible = randomBytes(DEFAULT_BODY_LIMIT)
    assert.ok(zlib.zstdCompressSync(incompressible).length <= codedLimit(DEFAULT_BODY_LIMIT))
  })
})
