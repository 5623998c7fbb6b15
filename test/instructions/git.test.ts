// The git state of the environment block, read from real repositories that git itself made:
// the branch of a new repository, of a linked worktree, a detached HEAD; unstaged changes
// (content, removal, mode, a merge conflict) and none after staging; an index of a version
// hearth does not read gives the branch only.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { readGitState } from '../../src/instructions/git.ts'

const roots: string[] = []
after(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true })
})

function git(cwd: string, ...args: string[]): string {
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' }
  const who = ['-c', 'user.name=Ann', '-c', 'user.email=ann@example.test', '-c', 'commit.gpgsign=false']
  return execFileSync('git', [...who, ...args], { cwd, env, encoding: 'utf8', stdio: 'pipe' })
}

/** A repository on branch `trunk` with a.txt and b.txt committed. */
function repository(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-git-')))
  roots.push(dir)
  git(dir, 'init', '-q', '-b', 'trunk')
  writeFileSync(join(dir, 'a.txt'), 'a\n')
  writeFileSync(join(dir, 'b.txt'), 'b\n')
  git(dir, 'add', '.')
  git(dir, 'commit', '-q', '-m', 'first')
  return dir
}

describe('git state', () => {
  it('a repository without commits: its branch, nothing unstaged', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-git-')))
    roots.push(dir)
    git(dir, 'init', '-q', '-b', 'fresh')
    assert.deepEqual(await readGitState(dir), { branch: 'fresh', detached: null, unstaged: false })
  })

  it('content, removal and mode changes are unstaged until added', async () => {
    const dir = repository()
    assert.deepEqual(await readGitState(dir), { branch: 'trunk', detached: null, unstaged: false })
    writeFileSync(join(dir, 'a.txt'), 'a changed\n')
    assert.equal((await readGitState(dir))?.unstaged, true)
    git(dir, 'add', 'a.txt')
    assert.equal((await readGitState(dir))?.unstaged, false, 'staged is not unstaged')
    rmSync(join(dir, 'b.txt'))
    assert.equal((await readGitState(dir))?.unstaged, true)
    git(dir, 'checkout', '-q', '--', 'b.txt')
    chmodSync(join(dir, 'b.txt'), 0o755)
    assert.equal((await readGitState(dir))?.unstaged, true)
  })

  it('a merge conflict counts as unstaged', async () => {
    const dir = repository()
    git(dir, 'checkout', '-q', '-b', 'other')
    writeFileSync(join(dir, 'a.txt'), 'other\n')
    git(dir, 'commit', '-q', '-am', 'other')
    git(dir, 'checkout', '-q', 'trunk')
    writeFileSync(join(dir, 'a.txt'), 'trunk\n')
    git(dir, 'commit', '-q', '-am', 'trunk')
    assert.throws(() => git(dir, 'merge', '-q', 'other'))
    assert.deepEqual(await readGitState(dir), { branch: 'trunk', detached: null, unstaged: true })
  })

  it('a linked worktree and a detached HEAD', async () => {
    const dir = repository()
    const linked = join(dir, '..', `${dir.split('/').at(-1)}-linked`)
    roots.push(linked)
    git(dir, 'worktree', 'add', '-q', '-b', 'side', linked)
    assert.deepEqual(await readGitState(linked), { branch: 'side', detached: null, unstaged: false })
    writeFileSync(join(linked, 'a.txt'), 'side change\n')
    assert.equal((await readGitState(linked))?.unstaged, true)
    assert.equal((await readGitState(dir))?.unstaged, false, 'the main worktree is unchanged')
    const head = git(dir, 'rev-parse', 'HEAD').trim()
    git(dir, 'checkout', '-q', '--detach')
    assert.deepEqual(await readGitState(dir), { branch: null, detached: head.slice(0, 12), unstaged: false })
  })

  it('an index of version 4 gives the branch only', async () => {
    const dir = repository()
    git(dir, 'update-index', '--index-version', '4')
    assert.deepEqual(await readGitState(dir), { branch: 'trunk', detached: null, unstaged: null })
  })
})
