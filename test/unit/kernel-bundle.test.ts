// KernelBundle: which kernel bundle is on disk, by identity (device, inode, size, mtime), read
// at most every STAT_TTL_MS, and a watch that hears an update with nobody reading. Real files
// in a temp folder: a rename over the bundle (an install), a write in place, a touch, a
// bundle that goes away.
import assert from 'node:assert/strict'
import { mkdtempSync, renameSync, rmSync, utimesSync, watch, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { KernelBundle, STAT_TTL_MS } from '../../src/kernel/bundle.ts'

const dir = mkdtempSync(join(tmpdir(), 'hearth-bundle-'))
after(() => rmSync(dir, { recursive: true, force: true }))

let n = 0
function bundleFile(text = 'export {}\n'): string {
  const path = join(dir, `kernel-${++n}.mjs`)
  writeFileSync(path, text)
  return path
}

describe('KernelBundle', () => {
  it('a bundle renamed over the old one is another bundle; a process forked from the old one is stale', () => {
    const path = bundleFile()
    const bundle = new KernelBundle(path)
    const forkedFrom = bundle.identity(true)
    assert.ok(forkedFrom)
    assert.equal(bundle.replaced(forkedFrom), false)
    const next = join(dir, 'next.mjs')
    writeFileSync(next, 'export {}\n')
    renameSync(next, path)
    const now = bundle.identity(true)
    assert.notEqual(now, forkedFrom, 'same size, another inode')
    assert.equal(bundle.replaced(forkedFrom), true)
    assert.equal(bundle.replaced(now), false)
  })

  it('a write in place (same inode) or a touch is another bundle too', () => {
    const path = bundleFile('export const a = 1\n')
    const bundle = new KernelBundle(path)
    const first = bundle.identity(true)
    writeFileSync(path, 'export const a = 2\n')
    utimesSync(path, new Date(), new Date(Date.now() + 5_000))
    const written = bundle.identity(true)
    assert.notEqual(written, first)
    utimesSync(path, new Date(), new Date(Date.now() + 10_000))
    assert.notEqual(bundle.identity(true), written, 'only the modification time moved')
  })

  it('a read within the TTL answers from the last stat; a fresh one stats again', () => {
    const path = bundleFile()
    const bundle = new KernelBundle(path)
    let changes = 0
    bundle.onChange = () => changes++
    const first = bundle.identity()
    utimesSync(path, new Date(), new Date(Date.now() + 20_000))
    assert.equal(bundle.identity(), first, `cached for ${STAT_TTL_MS} ms`)
    assert.equal(changes, 0)
    const fresh = bundle.identity(true)
    assert.notEqual(fresh, first)
    assert.equal(changes, 1, 'told once, by the stat that saw the change')
    assert.equal(bundle.identity(true), fresh)
    assert.equal(changes, 1)
  })

  it('a bundle that cannot be read calls nothing stale', () => {
    const path = bundleFile()
    const bundle = new KernelBundle(path)
    const forkedFrom = bundle.identity(true)
    rmSync(path)
    assert.equal(bundle.identity(true), null)
    assert.equal(bundle.replaced(forkedFrom), false)
    assert.equal(bundle.replaced(null), false)
  })

  it('the watch hears an update with nobody reading, and not a neighbour written beside it', async () => {
    const path = bundleFile()
    // No settling time: a watch event taken for the bundle's would stat it at the next timer.
    const bundle = new KernelBundle(path, 0)
    bundle.identity(true)
    let changes = 0
    let stats = 0
    bundle.onChange = () => changes++
    const identity = bundle.identity.bind(bundle)
    bundle.identity = (fresh) => {
      stats++
      return identity(fresh)
    }
    bundle.watch()
    // A watch of the test's own on the same folder: once it has heard the neighbour, so
    // has the bundle's, and a timer set after that runs after any the bundle's set.
    const heard = new Promise<void>((resolve) => {
      const own = watch(dir, { persistent: false }, (_type, name) => {
        if (name !== 'neighbour.txt') return
        own.close()
        resolve()
      })
    })
    try {
      writeFileSync(join(dir, 'neighbour.txt'), 'x')
      await heard
      await new Promise((r) => setImmediate(r))
      await sleep(1)
      assert.equal(stats, 0, 'another file in the folder is not the bundle')
      assert.equal(changes, 0)
      const next = join(dir, 'update.mjs')
      writeFileSync(next, 'export const updated = true\n')
      renameSync(next, path)
      const deadline = Date.now() + 5_000
      while (changes === 0 && Date.now() < deadline) await sleep(20)
      assert.equal(changes, 1)
    } finally {
      bundle.close()
    }
  })
})
