// Taking snapshots and reading what changed: a workspace without git, renames, deletions, mode
// changes, binary and large files, symlinks, ignored build output, the changes and diff shapes.
import assert from 'node:assert/strict'
import { existsSync, renameSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { filesOf, newEngine, put, tempDir, userGit } from './fixture.ts'

const byPath = <T extends { path: string }>(items: T[]) => Object.fromEntries(items.map((i) => [i.path, i]))

describe('snapshot take and changes', () => {
  it('captures a workspace without git in a private directory of the home, and lists what changed', async () => {
    const { home, engine } = newEngine()
    const root = tempDir()
    put(root, 'a.txt', 'one\ntwo\nthree\nfour\nfive\nsix\n')
    put(root, 'gone.txt', 'bye\n')
    put(root, 'tool.sh', '#!/bin/sh\necho hi\n')
    put(root, 'img.bin', Buffer.from([0, 1, 2, 3, 0, 255]))
    put(root, 'src/keep.ts', 'export {}\n')
    symlinkSync('a.txt', join(root, 'link'))
    const before = await engine.take([root], 'snap-1')
    assert.equal(before.roots.length, 1)
    assert.equal(before.roots[0].root, root)
    assert.match(before.roots[0].tree, /^[0-9a-f]{40}$/)
    assert.deepEqual(before.skipped, [])
    assert.equal(existsSync(join(root, '.git')), false, 'no git directory in the workspace')

    renameSync(join(root, 'a.txt'), join(root, 'b.txt'))
    put(root, 'b.txt', 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n')
    rmSync(join(root, 'gone.txt'))
    put(root, 'tool.sh', '#!/bin/sh\necho hi\n', 0o755)
    put(root, 'img.bin', Buffer.from([0, 1, 2, 3, 0, 254, 7]))
    put(root, 'new/dir/file.md', '# new\n')
    rmSync(join(root, 'link'))
    symlinkSync('b.txt', join(root, 'link'))
    const after = await engine.take([root], 'snap-2')

    const changes = byPath(await engine.changes(before.roots, after.roots))
    assert.deepEqual(Object.keys(changes).sort(), [
      'b.txt',
      'gone.txt',
      'img.bin',
      'link',
      'new/dir/file.md',
      'tool.sh',
    ])
    assert.deepEqual(changes['b.txt'], {
      root,
      path: 'b.txt',
      old_path: 'a.txt',
      status: 'renamed',
      old_mode: '100644',
      new_mode: '100644',
      binary: false,
      additions: 1,
      deletions: 0,
      size_before: 28,
      size_after: 34,
    })
    assert.equal(changes['gone.txt'].status, 'deleted')
    assert.equal(changes['gone.txt'].new_mode, null)
    assert.equal(changes['gone.txt'].size_after, null)
    assert.equal(changes['gone.txt'].deletions, 1)
    assert.equal(changes['tool.sh'].status, 'modified')
    assert.deepEqual([changes['tool.sh'].old_mode, changes['tool.sh'].new_mode], ['100644', '100755'])
    assert.equal(changes['tool.sh'].additions, 0)
    assert.equal(changes['img.bin'].binary, true)
    assert.equal(changes['img.bin'].additions, null)
    assert.equal(changes['img.bin'].size_after, 7)
    assert.equal(changes['new/dir/file.md'].status, 'added')
    assert.equal(changes['new/dir/file.md'].old_mode, null)
    assert.equal(changes.link.new_mode, '120000', 'a symlink is captured as a link')
    assert.equal(changes.link.size_after, 'b.txt'.length)

    assert.ok(existsSync(join(home, 'snapshots')), 'the store is in the home')
    assert.ok((await engine.bytes()) > 0)
  })

  it('reads one file’s diff, bounded, and names a binary file without dumping it', async () => {
    const { engine } = newEngine()
    const root = tempDir()
    put(root, 'notes.txt', 'alpha\nbeta\n')
    put(root, 'data.bin', Buffer.from([0, 1, 2]))
    const before = await engine.take([root], 'd1')
    put(root, 'notes.txt', `alpha\ngamma\n${'x'.repeat(5000)}\n`)
    put(root, 'data.bin', Buffer.from([0, 1, 3, 0, 0]))
    const after = await engine.take([root], 'd2')

    const diff = await engine.diff(before.roots, after.roots, root, 'notes.txt', 100_000)
    assert.equal(diff.binary, false)
    assert.equal(diff.truncated, false)
    assert.match(diff.text, /^-beta$/m)
    assert.match(diff.text, /^\+gamma$/m)
    assert.match(diff.text, /^--- a\/notes\.txt$/m)

    const cut = await engine.diff(before.roots, after.roots, root, 'notes.txt', 200)
    assert.equal(cut.truncated, true)
    assert.ok(Buffer.byteLength(cut.text) <= 200)

    const binary = await engine.diff(before.roots, after.roots, root, 'data.bin', 100_000)
    assert.equal(binary.binary, true)
    assert.match(binary.text, /Binary files/)
    assert.ok(!binary.text.includes('\0'))

    const none = await engine.diff(before.roots, after.roots, root, 'nothing.txt', 100_000)
    assert.deepEqual(none, { root, path: 'nothing.txt', binary: false, truncated: false, text: '' })
  })

  it('leaves out files over the size bound (named as skipped) and ignored build output', async () => {
    const { engine } = newEngine(1000)
    const root = tempDir()
    put(root, '.gitignore', 'build/\n*.log\n')
    put(root, 'build/out.js', 'compiled')
    put(root, 'debug.log', 'noise')
    put(root, 'small.txt', 'small')
    put(root, 'big.bin', Buffer.alloc(5000, 1))
    const first = await engine.take([root], 'b1')
    assert.deepEqual(first.skipped, [{ root, path: 'big.bin', reason: 'too_large' }])

    put(root, 'build/out.js', 'compiled again')
    put(root, 'small.txt', Buffer.alloc(2000, 2)) // grows past the bound
    put(root, 'big.bin', Buffer.alloc(6000, 3))
    const second = await engine.take([root], 'b2')
    assert.deepEqual(second.skipped.map((s) => `${s.path}:${s.reason}`).sort(), [
      'big.bin:too_large',
      'small.txt:too_large',
    ])
    const changes = await engine.changes(first.roots, second.roots)
    assert.deepEqual(
      changes.map((c) => c.path),
      ['small.txt'],
      'neither ignored output nor the large file is in the snapshot',
    )
  })

  it('validates snapshot ids and roots, and leaves out a root that is not a directory', async () => {
    const { engine } = newEngine()
    const root = tempDir()
    await assert.rejects(engine.take([root], '../x'), /invalid snapshot id/)
    await assert.rejects(engine.take([root], 'a/b'), /invalid snapshot id/)
    await assert.rejects(engine.take(['relative/dir'], 'ok'), /absolute/)
    const capture = await engine.take([root, join(root, 'missing')], 'ok')
    assert.deepEqual(
      capture.roots.map((r) => r.root),
      [root],
    )
  })

  it('captures two roots, each in its own git directory', async () => {
    const { home, engine } = newEngine()
    const one = tempDir()
    const two = tempDir()
    put(one, 'x.txt', 'x')
    put(two, 'y.txt', 'y')
    const before = await engine.take([one, two], 'r1')
    put(two, 'y.txt', 'yy')
    const after = await engine.take([one, two], 'r2')
    const changes = await engine.changes(before.roots, after.roots)
    assert.deepEqual(
      changes.map((c) => [c.root, c.path, c.status]),
      [[two, 'y.txt', 'modified']],
    )
    const { readdirSync } = await import('node:fs')
    assert.equal(readdirSync(join(home, 'snapshots')).filter((n) => /^[0-9a-f]{16}$/.test(n)).length, 2)
  })

  it('captures a nested repository as a gitlink, skips one without a commit, follows a file that became a directory', async () => {
    const { engine } = newEngine()
    const root = tempDir()
    put(root, 'was-file', 'a file\n')
    put(root, 'plain.txt', 'plain\n')
    const before = await engine.take([root], 'n1')
    rmSync(join(root, 'was-file'))
    put(root, 'was-file/inside.txt', 'now a directory\n')
    put(root, 'vendor/lib/a.txt', 'nested\n')
    userGit(join(root, 'vendor/lib'), 'init', '-q')
    userGit(join(root, 'vendor/lib'), 'add', '-A')
    userGit(join(root, 'vendor/lib'), 'commit', '-qm', 'nested')
    put(root, 'empty-repo/x.txt', 'x\n')
    userGit(join(root, 'empty-repo'), 'init', '-q')
    put(root, 'plain.txt', 'plain 2\n')
    const after = await engine.take([root], 'n2')
    assert.deepEqual(after.skipped, [{ root, path: 'empty-repo', reason: 'unreadable' }])
    const changes = byPath(await engine.changes(before.roots, after.roots))
    assert.deepEqual(Object.keys(changes).sort(), [
      'plain.txt',
      'vendor/lib',
      'was-file',
      'was-file/inside.txt',
    ])
    assert.equal(changes['vendor/lib'].new_mode, '160000')
    assert.equal(changes['vendor/lib'].binary, false)
    assert.equal(changes['was-file'].status, 'deleted')
    assert.equal(changes['was-file/inside.txt'].status, 'added')
    const plan = await engine.plan(before.roots, after.roots, after.roots)
    assert.deepEqual(
      plan.map((i) => `${i.path}:${i.action}`),
      ['plain.txt:write', 'was-file:write', 'was-file/inside.txt:delete'],
      'a nested repository is never restored',
    )
    await engine.apply(plan)
    assert.equal(filesOf(root)['was-file'], 'a file\n')
    assert.equal(filesOf(root)['vendor/lib/a.txt'], 'nested\n')
  })
})
