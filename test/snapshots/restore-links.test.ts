// Restoring across a change of kind: a directory a run replaced with a symlink (leading outside
// the root, or inside it), a symlink replaced with a directory, a file with a directory and
// back. The plan deletes what stands in the way first; a link the plan does not delete (planted
// by someone else) still refuses the whole restore before anything is written.
import assert from 'node:assert/strict'
import { lstatSync, mkdirSync, readlinkSync, rmSync, symlinkSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { filesOf, newEngine, put, tempDir } from './fixture.ts'

const actions = (plan: { path: string; action: string; conflict: boolean }[]) =>
  plan.map((i) => `${i.path}:${i.action}${i.conflict ? ':conflict' : ''}`)

/** A root set up by `setup`, changed by `run` between the before and after snapshots. */
async function ran(setup: (root: string) => void, run: (root: string) => void) {
  const { engine } = newEngine()
  const root = tempDir()
  setup(root)
  const before = await engine.take([root], 'before')
  const original = filesOf(root)
  run(root)
  const after = await engine.take([root], 'after')
  const current = await engine.take([root], 'current')
  const plan = await engine.plan(before.roots, after.roots, current.roots)
  return { engine, root, before, after, original, plan }
}

const twoFiles = (root: string) => {
  put(root, 'src/a.txt', 'a\n')
  put(root, 'src/deep/b.txt', 'b\n')
  put(root, 'top.txt', 'top\n')
}

describe('snapshot restore across a change of kind', () => {
  it('a directory replaced with a link outside the root: the link goes, the files come back', async () => {
    const outside = tempDir('hearth-outside-')
    const { engine, root, original, plan } = await ran(twoFiles, (r) => {
      rmSync(join(r, 'src'), { recursive: true })
      symlinkSync(outside, join(r, 'src'))
    })
    assert.deepEqual(actions(plan), ['src:delete', 'src/a.txt:write', 'src/deep/b.txt:write'])
    await engine.apply(plan)
    assert.deepEqual(filesOf(root), original)
    assert.equal(lstatSync(join(root, 'src')).isDirectory(), true, 'a directory again, not the link')
    assert.deepEqual(filesOf(outside), {}, 'nothing written where the link led')

    await engine.apply(plan)
    assert.deepEqual(filesOf(root), original, 'applying the same plan again changes nothing')
    assert.deepEqual(filesOf(outside), {})
  })

  it('a directory replaced with a link inside the root: restored, the link’s target untouched', async () => {
    const { engine, root, original, plan } = await ran(
      (r) => {
        twoFiles(r)
        put(r, 'other/o.txt', 'other\n')
      },
      (r) => {
        rmSync(join(r, 'src'), { recursive: true })
        symlinkSync('other', join(r, 'src'))
      },
    )
    assert.deepEqual(actions(plan), ['src:delete', 'src/a.txt:write', 'src/deep/b.txt:write'])
    await engine.apply(plan)
    assert.deepEqual(filesOf(root), original, 'other/ holds only its own file')
  })

  it('a link replaced with a directory: the directory goes, the link comes back', async () => {
    const { engine, root, original, plan } = await ran(
      (r) => {
        put(r, 'real/x.txt', 'x\n')
        symlinkSync('real', join(r, 'src'))
      },
      (r) => {
        unlinkSync(join(r, 'src'))
        put(r, 'src/a.txt', 'a\n')
        put(r, 'src/deep/b.txt', 'b\n')
      },
    )
    assert.deepEqual(actions(plan), ['src:write', 'src/a.txt:delete', 'src/deep/b.txt:delete'])
    await engine.apply(plan)
    assert.deepEqual(filesOf(root), original)
    assert.equal(readlinkSync(join(root, 'src')), 'real')
    await engine.apply(plan)
    assert.deepEqual(filesOf(root), original, 'applying the same plan again changes nothing')
  })

  it('a file replaced with a directory, and a directory with a file', async () => {
    const { engine, root, original, plan } = await ran(
      (r) => {
        put(r, 'was-file', 'file\n')
        put(r, 'was-dir/in.txt', 'in\n')
      },
      (r) => {
        rmSync(join(r, 'was-file'))
        put(r, 'was-file/now.txt', 'now\n')
        rmSync(join(r, 'was-dir'), { recursive: true })
        put(r, 'was-dir', 'a file now\n')
      },
    )
    assert.deepEqual(actions(plan), [
      'was-dir:delete',
      'was-dir/in.txt:write',
      'was-file:write',
      'was-file/now.txt:delete',
    ])
    await engine.apply(plan)
    assert.deepEqual(filesOf(root), original)
    await engine.apply(plan)
    assert.deepEqual(filesOf(root), original, 'applying the same plan again changes nothing')
  })

  it('finishes a restore stopped after the link was deleted', async () => {
    const outside = tempDir('hearth-outside-')
    const { engine, root, original, plan } = await ran(twoFiles, (r) => {
      rmSync(join(r, 'src'), { recursive: true })
      symlinkSync(outside, join(r, 'src'))
    })
    unlinkSync(join(root, 'src')) // as far as a crash let the first apply get
    put(root, 'src/a.txt', 'a\n')
    await engine.apply(plan)
    assert.deepEqual(filesOf(root), original)
    assert.deepEqual(filesOf(outside), {})
  })

  it('restores a chosen file under a directory the run replaced with a link', async () => {
    const outside = tempDir('hearth-outside-')
    const { engine, root, before, after } = await ran(twoFiles, (r) => {
      rmSync(join(r, 'src'), { recursive: true })
      symlinkSync(outside, join(r, 'src'))
    })
    const current = await engine.take([root], 'current2')
    const plan = await engine.plan(before.roots, after.roots, current.roots, [{ root, path: 'src/a.txt' }])
    assert.deepEqual(actions(plan), ['src:delete', 'src/a.txt:write'])
    await engine.apply(plan)
    assert.deepEqual(filesOf(root), { 'src/a.txt': 'a\n', 'top.txt': 'top\n' })
    assert.deepEqual(filesOf(outside), {})
  })

  it('a link planted after the run, which the plan does not delete, refuses it whole', async () => {
    const outside = tempDir('hearth-outside-')
    const { engine } = newEngine()
    const root = tempDir()
    twoFiles(root)
    put(root, 'gone.txt', 'gone\n')
    const before = await engine.take([root], 'before')
    put(root, 'src/a.txt', 'changed by the run\n')
    put(root, 'added.txt', 'added by the run\n')
    rmSync(join(root, 'gone.txt'))
    const after = await engine.take([root], 'after')
    rmSync(join(root, 'src'), { recursive: true }) // by someone else, after the run
    symlinkSync(outside, join(root, 'src'))
    const current = await engine.take([root], 'current')
    const plan = await engine.plan(before.roots, after.roots, current.roots)
    assert.deepEqual(actions(plan), ['added.txt:delete', 'gone.txt:write', 'src/a.txt:write:conflict'])
    const was = filesOf(root)
    await assert.rejects(engine.apply(plan), /src is a link that leads outside the root/)
    assert.deepEqual(filesOf(root), was, 'nothing deleted or written: the plan is refused whole')
    assert.deepEqual(filesOf(outside), {})

    mkdirSync(join(outside, 'deep')) // a link to a directory inside the root refuses too
    rmSync(join(root, 'src'))
    put(root, 'elsewhere/keep.txt', 'keep\n')
    symlinkSync('elsewhere', join(root, 'src'))
    await assert.rejects(engine.apply(plan), /src is a link \(a restore never writes through one\)/)
    assert.deepEqual(filesOf(join(root, 'elsewhere')), { 'keep.txt': 'keep\n' })
  })
})
