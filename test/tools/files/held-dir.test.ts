// Held directories, with the swap made by hand between holding and using: whatever the path
// now leads to, the walk, ripgrep's recheck and the atomic writer stay in the directory that
// was checked. (race.test.ts runs the same swaps against the tools, in a loop, through the
// daemon.)
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, renameSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { writeAtomic } from '../../../src/tools/files/atomic.ts'
import { recheckLines } from '../../../src/tools/files/grep-recheck.ts'
import { holdDir, holdDirMaking, holdSubdir, NotHeld } from '../../../src/tools/files/held-dir.ts'
import { newWalkStats, walk } from '../../../src/tools/files/walk.ts'
import { context, files, tempDir } from './helpers.ts'

function setup() {
  const ws = tempDir('hearth-ws-')
  const outside = tempDir('hearth-outside-')
  files(ws, { 'd/inside.txt': 'inside needle\n', 'd/sub/deep.txt': 'deep needle\n' })
  files(outside, { 'inside.txt': 'outside needle\n', 'sub/deep.txt': 'outside deep\n' })
  return { ws, outside, ctx: context(ws) }
}

/** Moves `dir` aside and puts a link to `to` in its place. */
function swapForLink(dir: string, to: string): void {
  renameSync(dir, `${dir}.aside`)
  symlinkSync(to, dir)
}

describe('held directories', () => {
  it('refuse a directory whose descriptor leads outside, and a link in its place', () => {
    const { ws, outside, ctx } = setup()
    assert.throws(
      () => holdDir(outside, ctx),
      (e) => e instanceof NotHeld && e.reason === 'outside',
    )
    symlinkSync(outside, join(ws, 'link'))
    assert.throws(
      () => holdDir(join(ws, 'link'), ctx),
      (e) => e instanceof NotHeld && e.reason === 'link',
    )
    const d = holdDir(join(ws, 'd'), ctx)
    symlinkSync(outside, join(ws, 'd/out'))
    assert.throws(() => holdSubdir(d, 'out', ctx), NotHeld)
    d.close()
  })

  it('walk the directory that was checked, after its path was swapped for a link out', async () => {
    const { ws, outside, ctx } = setup()
    const d = holdDir(join(ws, 'd'), ctx)
    swapForLink(join(ws, 'd'), outside)
    const opts = {
      ignore: new Set<string>(),
      maxDepth: 5,
      maxEntries: 100,
      signal: new AbortController().signal,
      roots: ctx,
    }
    const seen: string[] = []
    try {
      for await (const e of walk(d, opts, newWalkStats())) {
        seen.push(e.rel)
        if (e.kind === 'file') assert.doesNotMatch(readFileSync(e.at, 'utf8'), /outside/)
      }
    } finally {
      d.close()
    }
    assert.deepEqual(seen, ['inside.txt', 'sub', 'sub/deep.txt'])
  })

  it("reread ripgrep's lines from the checked directory, never through a link swapped in", async () => {
    const { ws, outside, ctx } = setup()
    const d = holdDir(join(ws, 'd'), ctx)
    // rg would have read sub/deep.txt through the link: the recheck does not follow it.
    swapForLink(join(ws, 'd/sub'), join(outside, 'sub'))
    const cut = (s: string) => s
    const lines = await recheckLines(
      d,
      [
        { rel: 'inside.txt', line: 1 },
        { rel: 'sub/deep.txt', line: 1 },
      ],
      ctx,
      cut,
    )
    d.close()
    assert.deepEqual(
      lines.map((m) => m.text),
      ['inside needle'],
    )
  })

  it('write into the checked directory, after its path was swapped for a link out', async () => {
    const { ws, outside, ctx } = setup()
    const d = holdDir(join(ws, 'd'), ctx)
    swapForLink(join(ws, 'd'), outside)
    await writeAtomic(d, 'new.txt', Buffer.from('written'))
    d.close()
    assert.equal(existsSync(join(outside, 'new.txt')), false)
    assert.equal(readFileSync(join(ws, 'd.aside/new.txt'), 'utf8'), 'written')
    assert.deepEqual(readdirSync(outside).sort(), ['inside.txt', 'sub'])
  })

  it('make missing parents one held level at a time, refusing a link met on the way', () => {
    const { ws, outside, ctx } = setup()
    const made = holdDirMaking(join(ws, 'a/b/c'), ctx)
    assert.equal(made.path, join(ws, 'a/b/c'))
    made.close()
    symlinkSync(outside, join(ws, 'x'))
    assert.throws(() => holdDirMaking(join(ws, 'x/y'), ctx), NotHeld)
    assert.equal(existsSync(join(outside, 'y')), false)
  })
})
