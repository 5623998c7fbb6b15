// The person's git is never touched: a repository with staged and unstaged changes, a stash and
// branches is byte-for-byte the same (status, stash, HEAD, branches, index file) after a take and
// a restore. Their global config, hooks and GIT_* variables do not apply to the engine. Two
// sessions taking at once on one workspace both succeed, and a stale index.lock is cleared.
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { filesOf, newEngine, put, tempDir, userGit } from './fixture.ts'

/** What the person would see of their repository's state. */
function gitState(repo: string) {
  return {
    status: userGit(repo, 'status', '--porcelain=v2', '--branch', '--untracked-files=all'),
    stash: userGit(repo, 'stash', 'list'),
    head: userGit(repo, 'rev-parse', 'HEAD'),
    symbolicHead: readFileSync(join(repo, '.git', 'HEAD'), 'latin1'),
    branches: userGit(repo, 'for-each-ref', '--format=%(refname) %(objectname)'),
    index: readFileSync(join(repo, '.git', 'index')).toString('base64'),
    config: readFileSync(join(repo, '.git', 'config'), 'latin1'),
    gitEntries: readdirSync(join(repo, '.git')).sort(),
  }
}

describe('snapshot isolation', () => {
  it('leaves the person’s repository as it was through a take and a restore', async () => {
    const { engine } = newEngine()
    const repo = tempDir('hearth-repo-')
    userGit(repo, 'init', '-q', '-b', 'main')
    put(repo, '.gitignore', 'dist/\n')
    put(repo, 'a.txt', 'committed\n')
    put(repo, 'b.txt', 'committed b\n')
    userGit(repo, 'add', '-A')
    userGit(repo, 'commit', '-qm', 'first')
    userGit(repo, 'branch', 'feature')
    put(repo, 'a.txt', 'stashed\n')
    userGit(repo, 'stash', '-q')
    put(repo, 'a.txt', 'staged\n')
    userGit(repo, 'add', 'a.txt')
    put(repo, 'a.txt', 'staged then unstaged\n')
    put(repo, 'b.txt', 'unstaged b\n')
    put(repo, 'untracked.txt', 'new\n')
    put(repo, 'dist/bundle.js', 'built\n')
    writeFileSync(join(repo, '.git', 'info', 'exclude'), 'secret.env\n')
    put(repo, 'secret.env', 'TOKEN=1\n')
    const state = gitState(repo)

    const before = await engine.take([repo], 'before')
    assert.deepEqual(gitState(repo), state, 'a take changes nothing of the person’s git')
    put(repo, 'a.txt', 'agent wrote\n')
    put(repo, 'agent.txt', 'agent file\n')
    const after = await engine.take([repo], 'after')
    const changes = await engine.changes(before.roots, after.roots)
    assert.deepEqual(
      changes.map((c) => c.path),
      ['a.txt', 'agent.txt'],
      'neither .git, nor ignored files, nor info/exclude’d ones are captured',
    )
    const plan = await engine.plan(before.roots, after.roots, after.roots)
    await engine.apply(plan)
    assert.deepEqual(gitState(repo), state, 'a restore changes nothing of the person’s git')
    assert.equal(filesOf(repo)['a.txt'], 'staged then unstaged\n')
    assert.equal(existsSync(join(repo, 'agent.txt')), false)
  })

  it('ignores the person’s global config, hooks and GIT_* variables', async () => {
    const fakeHome = tempDir('hearth-person-home-')
    const hooks = join(fakeHome, 'hooks')
    const marker = join(fakeHome, 'hook-ran')
    put(fakeHome, '.gitignore_global', '*.txt\n')
    put(hooks, 'post-index-change', `#!/bin/sh\ntouch ${marker}\n`, 0o755)
    put(hooks, 'post-commit', `#!/bin/sh\ntouch ${marker}\n`, 0o755)
    put(
      fakeHome,
      '.gitconfig',
      `[core]\n\texcludesFile = ${join(fakeHome, '.gitignore_global')}\n\thooksPath = ${hooks}\n\tautocrlf = true\n[init]\n\tdefaultBranch = x\n`,
    )
    put(fakeHome, '.config/git/ignore', '*.md\n')
    const elsewhere = tempDir('hearth-elsewhere-')
    const saved = { ...process.env }
    Object.assign(process.env, {
      HOME: fakeHome,
      XDG_CONFIG_HOME: join(fakeHome, '.config'),
      GIT_DIR: elsewhere,
      GIT_WORK_TREE: elsewhere,
      GIT_INDEX_FILE: join(elsewhere, 'index'),
      GIT_CONFIG_PARAMETERS: "'core.excludesfile'='/nonexistent'",
    })
    try {
      const { engine } = newEngine()
      const root = tempDir()
      put(root, 'a.txt', 'line\r\nline\n')
      put(root, 'b.md', 'md\n')
      const before = await engine.take([root], 'one')
      put(root, 'a.txt', 'changed\r\n')
      put(root, 'b.md', 'md 2\n')
      const after = await engine.take([root], 'two')
      assert.deepEqual(
        (await engine.changes(before.roots, after.roots)).map((c) => c.path),
        ['a.txt', 'b.md'],
        'the global excludes did not apply',
      )
      await engine.apply(await engine.plan(before.roots, after.roots, after.roots))
      assert.equal(filesOf(root)['a.txt'], 'line\r\nline\n', 'no line-ending rewriting')
      assert.equal(existsSync(marker), false, 'no hook of the person’s ran')
      assert.deepEqual(readdirSync(elsewhere), [], 'GIT_DIR of the environment was not used')
    } finally {
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name]
      Object.assign(process.env, saved)
    }
  })

  it('serialises concurrent takes on one workspace; both succeed with their own refs', async () => {
    const { home, engine } = newEngine()
    const root = tempDir()
    for (let i = 0; i < 200; i++) put(root, `f${i}.txt`, `file ${i}\n`)
    const [one, two, three] = await Promise.all([
      engine.take([root], 'session-a'),
      engine.take([root], 'session-b'),
      engine.take([root], 'session-c'),
    ])
    assert.equal(one.roots[0].tree, two.roots[0].tree)
    assert.equal(two.roots[0].tree, three.roots[0].tree)
    const store = readdirSync(join(home, 'snapshots')).find((n) => /^[0-9a-f]{16}$/.test(n)) as string
    assert.deepEqual(readdirSync(join(home, 'snapshots', store, 'refs', 'hearth')).sort(), [
      'session-a',
      'session-b',
      'session-c',
    ])
  })

  it('clears an index.lock left by a killed git', async () => {
    const { home, engine } = newEngine()
    const root = tempDir()
    put(root, 'a.txt', 'a\n')
    const first = await engine.take([root], 'first')
    const store = readdirSync(join(home, 'snapshots')).find((n) => /^[0-9a-f]{16}$/.test(n)) as string
    writeFileSync(join(home, 'snapshots', store, 'index.lock'), '')
    put(root, 'a.txt', 'b\n')
    const second = await engine.take([root], 'second')
    assert.notEqual(second.roots[0].tree, first.roots[0].tree)
    assert.equal(existsSync(join(home, 'snapshots', store, 'index.lock')), false)
  })

  it('drops snapshots and prunes what no snapshot refers to', async () => {
    const { home, engine } = newEngine()
    const root = tempDir()
    put(root, 'a.txt', 'x'.repeat(100_000))
    const first = await engine.take([root], 'first')
    put(root, 'a.txt', 'y'.repeat(100_000))
    await engine.take([root], 'second')
    const store = readdirSync(join(home, 'snapshots')).find((n) => /^[0-9a-f]{16}$/.test(n)) as string
    await engine.drop(['first', 'never-was'])
    assert.deepEqual(readdirSync(join(home, 'snapshots', store, 'refs', 'hearth')), ['second'])
    put(root, 'a.txt', 'z'.repeat(100_000)) // the index no longer holds the first content either
    await engine.take([root], 'third')
    await engine.drop(['second'])
    await engine.prune()
    const { execFileSync } = await import('node:child_process')
    const exists = (id: string) => {
      try {
        execFileSync('git', [`--git-dir=${join(home, 'snapshots', store)}`, 'cat-file', '-e', id], {
          stdio: 'ignore',
        })
        return true
      } catch {
        return false
      }
    }
    assert.equal(exists(first.roots[0].tree), false, 'the dropped snapshot’s tree is gone after a prune')
    assert.ok((await engine.bytes()) > 0)
  })
})
