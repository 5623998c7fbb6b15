// The two bounded buffers under the exec tools, on their own: the head-and-tail capture of a
// shell call and the ring of files behind a job's output.
import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { completeLength, HeadTailCapture, leadingContinuation } from '../../../src/tools/exec/capture.ts'
import { OutputRing } from '../../../src/tools/exec/ring.ts'

describe('head and tail capture', () => {
  it('keeps everything under the cap', () => {
    const c = new HeadTailCapture(20)
    c.push(Buffer.from('hello '))
    c.push(Buffer.from('world'))
    assert.equal(c.text(), 'hello world')
    assert.equal(c.cutBytes, 0)
  })

  it('keeps the first and the last half of the cap, in chunks of any size', () => {
    const whole = Array.from({ length: 500 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('')
    for (const size of [1, 3, 7, 64, 500]) {
      const c = new HeadTailCapture(40)
      for (let i = 0; i < whole.length; i += size) c.push(Buffer.from(whole.slice(i, i + size)))
      assert.equal(c.totalBytes, 500)
      assert.equal(c.cutBytes, 460)
      assert.equal(
        c.text(),
        `${whole.slice(0, 20)}\n[… 460 bytes of output cut …]\n${whole.slice(-20)}`,
        `size ${size}`,
      )
    }
  })

  it('cuts on character borders', () => {
    const c = new HeadTailCapture(10)
    c.push(Buffer.from('aaaa€€€€€€€€bbbb€'))
    // 35 bytes; the head's fifth byte starts a € and goes; the tail's five are `bb€`.
    assert.equal(c.text(), 'aaaa\n[… 26 bytes of output cut …]\nbb€')
  })

  it('finds partial characters at both ends', () => {
    const euro = Buffer.from('€') // e2 82 ac
    assert.equal(completeLength(Buffer.concat([Buffer.from('a'), euro.subarray(0, 2)])), 1)
    assert.equal(completeLength(Buffer.concat([Buffer.from('a'), euro])), 4)
    assert.equal(leadingContinuation(Buffer.concat([euro.subarray(1), Buffer.from('a')])), 2)
  })
})

describe('output ring', () => {
  const withRing = (max: number, f: (ring: OutputRing, dir: string) => void) => {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-ring-test-'))
    try {
      f(new OutputRing(dir, max), dir)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }

  it('reads what was written, across the two segments', () => {
    withRing(20, (ring) => {
      ring.write(Buffer.from('0123456789'))
      ring.write(Buffer.from('abcdefghij'))
      assert.equal(ring.totalBytes, 20)
      assert.deepEqual(ring.read(0, 100), {
        bytes: Buffer.from('0123456789abcdefghij'),
        start: 0,
        skipped: 0,
      })
      assert.deepEqual(ring.read(8, 4), { bytes: Buffer.from('89ab'), start: 8, skipped: 0 })
      assert.deepEqual(ring.read(25, 4), { bytes: Buffer.alloc(0), start: 20, skipped: 0 })
    })
  })

  it('drops the oldest segment when full and counts what a read missed', () => {
    withRing(20, (ring, dir) => {
      const all = 'abcdefghijklmnopqrstuvwxyz0123456789'
      for (const ch of all) ring.write(Buffer.from(ch))
      // Segments of 10: 30..35 in the current one, 20..29 in the older; 0..19 dropped.
      assert.equal(ring.keptFrom, 20)
      const r = ring.read(5, 8)
      assert.deepEqual(r, { bytes: Buffer.from(all.slice(20, 28)), start: 20, skipped: 15 })
      assert.equal(ring.read(20, 100).bytes.toString(), all.slice(20))
      const onDisk = readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0)
      assert.ok(onDisk <= 20, `${onDisk} bytes on disk`)
    })
  })

  it('takes one big write across rotations', () => {
    withRing(8, (ring) => {
      ring.write(Buffer.from('0123456789abcdefghij'))
      assert.equal(ring.totalBytes, 20)
      assert.deepEqual(ring.read(0, 100), { bytes: Buffer.from('cdefghij'), start: 12, skipped: 12 })
    })
  })

  it('counts everything as dropped once removed', () => {
    withRing(20, (ring, dir) => {
      ring.write(Buffer.from('hello'))
      ring.remove()
      assert.deepEqual(ring.read(0, 10), { bytes: Buffer.alloc(0), start: 5, skipped: 5 })
      assert.deepEqual(readdirSync(join(dir, '..')).includes(dir.split('/').at(-1) as string), false)
    })
  })
})
