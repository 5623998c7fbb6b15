// Escape attempts against the file tools, on real files, symlinks and hard links in temp
// directories: each is refused with an error result (never a throw), and nothing outside the
// workspace is read, created or changed.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import {
  closeSync,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  symlinkSync,
} from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { checkOpened, confine, setHearthHome } from '../../../src/tools/confine.ts'
import { editTool } from '../../../src/tools/files/edit.ts'
import { createGrepTool } from '../../../src/tools/files/grep.ts'
import { listTool } from '../../../src/tools/files/list.ts'
import { readTool } from '../../../src/tools/files/read.ts'
import { writeTool } from '../../../src/tools/files/write.ts'
import { call, context, files, tempDir } from './helpers.ts'

describe('workspace confinement', () => {
  const ws = tempDir('hearth-ws-')
  const outside = tempDir('hearth-outside-')
  const ctx = context(ws)
  files(outside, { 'secret.txt': 'outside secret\n', 'dir/inner.txt': 'inner secret\n' })
  files(ws, { 'src/a.ts': 'export const a = 1\n', 'README.md': '# readme\n' })

  async function refused(
    tool: typeof readTool | typeof writeTool | typeof editTool,
    args: object,
    why: RegExp,
  ) {
    const r = await call(tool, args, ctx)
    assert.equal(r.outcome, 'error', r.output)
    assert.match(r.output, why)
    assert.doesNotMatch(r.output, /secret\n/)
    return r
  }

  it('refuses .. that leaves the workspace, and allows .. that stays inside', async () => {
    await refused(readTool, { path: '../x' }, /outside the workspace/)
    await refused(
      readTool,
      { path: `src/../../${outside.split('/').pop()}/secret.txt` },
      /outside the workspace/,
    )
    await refused(writeTool, { path: '../escaped.txt', content: 'x' }, /outside the workspace/)
    assert.equal(existsSync(join(ws, '..', 'escaped.txt')), false)
    const inside = await call(readTool, { path: 'src/../README.md' }, ctx)
    assert.equal(inside.outcome, 'ok', inside.output)
    assert.match(inside.output, /# readme/)
  })

  it('refuses absolute paths outside the roots, and takes them inside', async () => {
    await refused(readTool, { path: '/etc/passwd' }, /\/etc\/passwd: is outside the workspace/)
    await refused(readTool, { path: join(outside, 'secret.txt') }, /outside the workspace/)
    await refused(writeTool, { path: join(outside, 'new.txt'), content: 'x' }, /outside/)
    assert.equal(existsSync(join(outside, 'new.txt')), false)
    const r = await call(readTool, { path: join(ws, 'src/a.ts') }, ctx)
    assert.equal(r.outcome, 'ok', r.output)
    assert.equal(r.meta?.path, 'src/a.ts')
  })

  it('refuses a symlink out, for reading, writing, editing and as a directory on the way', async () => {
    symlinkSync(join(outside, 'secret.txt'), join(ws, 'link-out'))
    symlinkSync(join(outside, 'dir'), join(ws, 'dir-out'))
    await refused(readTool, { path: 'link-out' }, /symbolic link/)
    await refused(writeTool, { path: 'link-out', content: 'overwritten' }, /symbolic link/)
    await refused(editTool, { path: 'link-out', old_string: 'outside', new_string: 'x' }, /symbolic link/)
    await refused(readTool, { path: 'dir-out/inner.txt' }, /symbolic link/)
    await refused(writeTool, { path: 'dir-out/planted.txt', content: 'x' }, /symbolic link/)
    const l = await call(listTool, { path: 'dir-out' }, ctx)
    assert.equal(l.outcome, 'error')
    assert.equal(readFileSync(join(outside, 'secret.txt'), 'utf8'), 'outside secret\n')
    assert.equal(existsSync(join(outside, 'dir/planted.txt')), false)
  })

  it('refuses a chain of symlinks that ends outside, and a dangling one that points out', async () => {
    symlinkSync(join(outside, 'secret.txt'), join(ws, 'chain-3'))
    symlinkSync('chain-3', join(ws, 'chain-2'))
    mkdirSync(join(ws, 'deep'))
    symlinkSync('../chain-2', join(ws, 'deep/chain-1'))
    await refused(readTool, { path: 'deep/chain-1' }, /symbolic link/)
    // A link to a file that does not exist yet: writing through it would create it outside.
    symlinkSync(join(outside, 'not-yet.txt'), join(ws, 'dangling'))
    await refused(writeTool, { path: 'dangling', content: 'planted' }, /symbolic link/)
    const c = await confine('dangling', ctx, 'write')
    assert.ok(
      !c.ok && /leads through a symbolic link/.test(c.message),
      'confine itself follows a dangling link',
    )
    assert.equal(existsSync(join(outside, 'not-yet.txt')), false)
    // A loop is refused, not followed forever.
    symlinkSync('loop-b', join(ws, 'loop-a'))
    symlinkSync('loop-a', join(ws, 'loop-b'))
    await refused(readTool, { path: 'loop-a' }, /too many levels of symbolic links/)
  })

  it('follows symlinks that stay inside the workspace', async () => {
    symlinkSync('src/a.ts', join(ws, 'alias.ts'))
    const r = await call(readTool, { path: 'alias.ts' }, ctx)
    assert.equal(r.outcome, 'ok', r.output)
    assert.equal(r.meta?.path, 'src/a.ts')
    const w = await call(writeTool, { path: 'alias.ts', content: 'export const a = 2\n' }, ctx)
    assert.equal(w.outcome, 'ok', w.output)
    assert.equal(readFileSync(join(ws, 'src/a.ts'), 'utf8'), 'export const a = 2\n')
  })

  it('refuses to write or edit through a hard link (it may be a file outside); reads it', async () => {
    linkSync(join(outside, 'secret.txt'), join(ws, 'hard.txt'))
    await refused(writeTool, { path: 'hard.txt', content: 'overwritten' }, /2 hard links/)
    await refused(editTool, { path: 'hard.txt', old_string: 'outside', new_string: 'changed' }, /hard links/)
    assert.equal(readFileSync(join(outside, 'secret.txt'), 'utf8'), 'outside secret\n')
    assert.equal(statSync(join(outside, 'secret.txt')).nlink, 2)
    const r = await call(readTool, { path: 'hard.txt' }, ctx)
    assert.equal(r.outcome, 'ok', 'reads through hard links are allowed (docs/tools-files.md)')
  })

  it('refuses paths that are not paths', async () => {
    await refused(readTool, { path: '' }, /non-empty/)
    await refused(readTool, { path: 'a\0b' }, /NUL/)
    await refused(readTool, { path: '~/.ssh/id_rsa' }, /not expanded/)
    const r = await call(readTool, { path: 42 }, ctx)
    assert.equal(r.outcome, 'error')
    assert.match(r.output, /path/)
  })

  it('refuses a named pipe instead of blocking on it', async () => {
    execFileSync('mkfifo', [join(ws, 'pipe')])
    await refused(readTool, { path: 'pipe' }, /named pipe/)
    await refused(writeTool, { path: 'pipe', content: 'x' }, /named pipe/)
  })

  it('reads and writes in an allowed root, and nowhere else', async () => {
    const extra = tempDir('hearth-allowed-')
    files(extra, { 'notes.md': 'allowed\n' })
    const withRoot = context(ws, { allowedRoots: [extra] })
    const r = await call(readTool, { path: join(extra, 'notes.md') }, withRoot)
    assert.equal(r.outcome, 'ok', r.output)
    assert.equal(r.meta?.path, join(extra, 'notes.md'), 'outside the workspace, paths are shown absolute')
    const w = await call(writeTool, { path: join(extra, 'new.md'), content: 'hi' }, withRoot)
    assert.equal(w.outcome, 'ok', w.output)
    const no = await call(readTool, { path: join(outside, 'secret.txt') }, withRoot)
    assert.equal(no.outcome, 'error')
    assert.match(no.output, /the allowed roots/)
  })

  it("refuses /proc even when a root contains it (this process's environment)", async () => {
    const wide = context(ws, { allowedRoots: ['/proc'] })
    for (const path of ['/proc/self/environ', '/proc/self/cmdline', `/proc/${process.pid}/environ`]) {
      const r = await call(readTool, { path }, wide)
      assert.equal(r.outcome, 'error', path)
      assert.match(r.output, /is under \/proc/)
    }
  })

  it('checks where an opened descriptor really points (the check-then-open window)', async () => {
    const inside = openSync(join(ws, 'README.md'), 'r')
    const out = openSync(join(outside, 'secret.txt'), 'r')
    try {
      assert.equal(await checkOpened(inside, 'README.md', ctx), null)
      const moved = await checkOpened(out, 'README.md', ctx)
      assert.match(moved?.message ?? '', /changed while it was being opened/)
    } finally {
      closeSync(inside)
      closeSync(out)
    }
  })

  it('confine() never throws and reports the real path and how to show it', async () => {
    const c = await confine('src/./a.ts', ctx, 'read')
    assert.ok(c.ok)
    assert.equal(c.path, join(ws, 'src/a.ts'))
    assert.equal(c.display, 'src/a.ts')
    const n = await confine('new/dir/file.txt', ctx, 'write')
    assert.ok(n.ok)
    assert.equal(n.stats, null)
    assert.equal(n.path, join(ws, 'new/dir/file.txt'))
  })
})

describe("hearth's home", () => {
  const ws = tempDir('hearth-ws-')
  const home = join(ws, '.hearth')
  const ctx = context(ws)
  files(home, { 'creds.json': '{"accounts":{"key":"sk-secret"}}', token: 'tok-secret' })
  files(ws, { 'app.js': 'const key = "sk-secret-lookalike"\n' })

  before(() => setHearthHome(home))
  after(() => setHearthHome(null))

  it('is refused even inside the workspace, by any path to it', async () => {
    for (const path of ['.hearth/creds.json', join(home, 'token'), '.hearth', 'src/../.hearth/creds.json']) {
      const r = await call(readTool, { path }, ctx)
      assert.equal(r.outcome, 'error', path)
      assert.match(r.output, /hearth's own home/)
    }
    symlinkSync('.hearth/creds.json', join(ws, 'creds-link'))
    const viaLink = await call(readTool, { path: 'creds-link' }, ctx)
    assert.equal(viaLink.outcome, 'error')
    const w = await call(writeTool, { path: '.hearth/token', content: 'replaced' }, ctx)
    assert.equal(w.outcome, 'error')
    assert.equal(readFileSync(join(home, 'token'), 'utf8'), 'tok-secret')
  })

  it('is refused through a hard link to one of its files', async () => {
    linkSync(join(home, 'creds.json'), join(ws, 'innocent.json'))
    const r = await call(readTool, { path: 'innocent.json' }, ctx)
    assert.equal(r.outcome, 'error')
    assert.match(r.output, /hard link to a file in hearth's own home/)
    assert.doesNotMatch(r.output, /sk-secret/)
  })

  it('is skipped by list and grep', async () => {
    const l = await call(listTool, {}, ctx)
    assert.equal(l.outcome, 'ok')
    assert.doesNotMatch(l.output, /\.hearth/)
    for (const engine of ['ripgrep', 'builtin'] as const) {
      const g = await call(createGrepTool({ engine }), { pattern: 'tok-secret|accounts' }, ctx)
      assert.equal(g.outcome, 'ok', g.output)
      assert.match(g.output, /^No matches/, `${engine}: ${g.output}`)
    }
  })
})
