// Restoring: the plan's actions and conflicts, apply putting the files back (modes, links,
// deletions, empty directories), applying twice, chosen files, two roots, files over the size
// bound and ignored output left alone, and a symlink planted to lead outside the root refused.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, renameSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { dirsOf, filesOf, newEngine, put, tempDir } from './fixture.ts'

const actions = (plan: { path: string; action: string; conflict: boolean }[]) =>
  plan.map((i) => `${i.path}:${i.action}${i.conflict ? ':conflict' : ''}`)

/** A root with a run's worth of changes between `before` and `after`. */
async function ranOnce(maxFileBytes?: number) {
  const { engine } = newEngine(maxFileBytes)
  const root = tempDir()
  put(root, '.gitignore', 'build/\n')
  put(root, 'a.txt', 'one\ntwo\nthree\n')
  put(root, 'gone.txt', 'bye\n')
  put(root, 'tool.sh', '#!/bin/sh\n')
  put(root, 'old/name.txt', 'moving\n')
  symlinkSync('a.txt', join(root, 'link'))
  put(root, 'build/out.js', 'compiled 1')
  const before = await engine.take([root], 'before')
  const original = filesOf(root)

  put(root, 'a.txt', 'one\nTWO\nthree\n')
  rmSync(join(root, 'gone.txt'))
  put(root, 'tool.sh', '#!/bin/sh\necho run\n', 0o755)
  mkdirSync(join(root, 'new'))
  renameSync(join(root, 'old/name.txt'), join(root, 'new/name.txt'))
  rmSync(join(root, 'old'), { recursive: true })
  put(root, 'added/deep/file.txt', 'added\n')
  rmSync(join(root, 'link'))
  symlinkSync('tool.sh', join(root, 'link'))
  put(root, 'build/out.js', 'compiled 2')
  const after = await engine.take([root], 'after')
  return { engine, root, before, after, original }
}

describe('snapshot restore', () => {
  it('puts every file the run changed back, idempotently, and leaves ignored output alone', async () => {
    const { engine, root, before, after, original } = await ranOnce()
    const current = await engine.take([root], 'current')
    const plan = await engine.plan(before.roots, after.roots, current.roots)
    assert.deepEqual(actions(plan), [
      'a.txt:write',
      'added/deep/file.txt:delete',
      'gone.txt:write',
      'link:write',
      'new/name.txt:delete',
      'old/name.txt:write',
      'tool.sh:write',
    ])
    const write = plan.find((i) => i.path === 'tool.sh')
    assert.equal(write?.mode, '100644')
    assert.match(write?.blob ?? '', /^[0-9a-f]{40}$/)

    await engine.apply(plan)
    const restored = filesOf(root)
    const expected: Record<string, string> = { ...original, 'build/out.js': 'compiled 2' }
    assert.deepEqual(restored, expected, 'ignored output is untouched')
    assert.equal(restored.link, 'link:a.txt')
    assert.equal(restored['tool.sh'], '#!/bin/sh\n', 'the mode is the snapshot’s (not executable)')
    assert.deepEqual(dirsOf(root), ['build', 'old'], 'directories the restore emptied are removed')

    await engine.apply(plan)
    assert.deepEqual(filesOf(root), restored, 'applying the same plan again changes nothing')
    const again = await engine.take([root], 'again')
    assert.deepEqual(
      actions(await engine.plan(before.roots, after.roots, again.roots)).every((a) => a.endsWith(':keep')),
      true,
      'after the restore every file is at its target',
    )
  })

  it('marks files changed since the run as conflicts; keeps files already at the target', async () => {
    const { engine, root, before, after } = await ranOnce()
    put(root, 'a.txt', 'the person edited this\n') // after the run
    put(root, 'gone.txt', 'bye\n') // the person already put it back
    put(root, 'untouched-by-run.txt', 'mine\n')
    const current = await engine.take([root], 'current')
    const plan = await engine.plan(before.roots, after.roots, current.roots)
    const byPath = Object.fromEntries(plan.map((i) => [i.path, i]))
    assert.equal(byPath['a.txt'].conflict, true)
    assert.equal(byPath['a.txt'].action, 'write')
    assert.equal(byPath['gone.txt'].action, 'keep')
    assert.equal(byPath['gone.txt'].conflict, false)
    assert.equal(byPath['tool.sh'].conflict, false)
    assert.equal(
      byPath['untouched-by-run.txt'],
      undefined,
      'a file the run did not change is not in the plan',
    )

    await engine.apply(plan) // what the daemon does with overwrite
    assert.equal(filesOf(root)['a.txt'], 'one\ntwo\nthree\n')
    assert.equal(filesOf(root)['untouched-by-run.txt'], 'mine\n')
  })

  it('restores chosen files only (a file, or a directory and what is under it)', async () => {
    const { engine, root, before, after } = await ranOnce()
    const current = await engine.take([root], 'current')
    const plan = await engine.plan(before.roots, after.roots, current.roots, [
      { root, path: 'a.txt' },
      { root, path: 'added' },
      { root, path: 'not-changed.txt' },
    ])
    assert.deepEqual(actions(plan), ['a.txt:write', 'added/deep/file.txt:delete', 'not-changed.txt:keep'])
    await engine.apply(plan)
    const files = filesOf(root)
    assert.equal(files['a.txt'], 'one\ntwo\nthree\n')
    assert.equal(files['added/deep/file.txt'], undefined)
    assert.equal(files['tool.sh'], '#!/bin/sh\necho run\n +x', 'a file not chosen stays as the run left it')
    assert.equal(existsSync(join(root, 'added')), false)
  })

  it('never restores or deletes a file over the size bound', async () => {
    const { engine } = newEngine(1000)
    const root = tempDir()
    put(root, 'grows.txt', 'small\n')
    const before = await engine.take([root], 'before')
    put(root, 'grows.txt', Buffer.alloc(4000, 65)) // past the bound: not captured
    put(root, 'huge.bin', Buffer.alloc(4000, 66))
    const after = await engine.take([root], 'after')
    const current = await engine.take([root], 'current')
    const plan = await engine.plan(before.roots, after.roots, current.roots)
    assert.deepEqual(plan, [], 'the grown file is left as it is, not overwritten by its small past')
    await engine.apply(plan)
    assert.equal(filesOf(root)['grows.txt'].length, 4000)
    assert.equal(filesOf(root)['huge.bin'].length, 4000)
  })

  it('restores two roots in one plan', async () => {
    const { engine } = newEngine()
    const one = tempDir()
    const two = tempDir()
    put(one, 'x.txt', 'x1')
    put(two, 'y.txt', 'y1')
    const before = await engine.take([one, two], 'before')
    put(one, 'x.txt', 'x2')
    put(two, 'y.txt', 'y2')
    put(two, 'z.txt', 'z2')
    const after = await engine.take([one, two], 'after')
    const plan = await engine.plan(before.roots, after.roots, after.roots)
    assert.deepEqual(
      plan.map((i) => [i.root, i.path, i.action]),
      [
        [one, 'x.txt', 'write'],
        [two, 'y.txt', 'write'],
        [two, 'z.txt', 'delete'],
      ],
    )
    await engine.apply(plan)
    assert.deepEqual(filesOf(one), { 'x.txt': 'x1' })
    assert.deepEqual(filesOf(two), { 'y.txt': 'y1' })
  })

  it('refuses a restore through a directory symlinked outside the root and writes nothing', async () => {
    const { engine } = newEngine()
    const root = tempDir()
    const outside = tempDir('hearth-outside-')
    put(root, 'dir/secret.txt', 'original\n')
    put(root, 'top.txt', 'top 1\n')
    const before = await engine.take([root], 'before')
    put(root, 'top.txt', 'top 2\n')
    rmSync(join(root, 'dir'), { recursive: true })
    const after = await engine.take([root], 'after')
    symlinkSync(outside, join(root, 'dir')) // planted by a command after the run
    const current = await engine.take([root], 'current')
    const plan = await engine.plan(before.roots, after.roots, current.roots)
    assert.deepEqual(actions(plan), ['dir/secret.txt:write', 'top.txt:write'])
    await assert.rejects(engine.apply(plan), /link that leads outside the root/)
    assert.deepEqual(filesOf(outside), {}, 'nothing is written outside the root')
    assert.equal(
      filesOf(root)['top.txt'],
      'top 2\n',
      'nothing is written inside either: the plan is refused whole',
    )

    const forged = [
      {
        root,
        path: '../escape.txt',
        action: 'write' as const,
        conflict: false,
        mode: '100644',
        blob: plan[0].blob,
      },
    ]
    await assert.rejects(engine.apply(forged), /not a plain path/)
    const intoGit = [{ ...forged[0], path: '.git/config' }]
    await assert.rejects(engine.apply(intoGit), /not a plain path/)
    assert.equal(existsSync(join(root, '..', 'escape.txt')), false)
  })
})
