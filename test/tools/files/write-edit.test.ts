// `write` and `edit` on real files: round trips through read, atomic replacement (no temp
// file left, mode kept), exact-match edits refusing missing and ambiguous matches with the
// reason, multi-edits all or nothing, CRLF and BOM kept.
import assert from 'node:assert/strict'
import { chmodSync, chownSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { ChangedMeanwhile, writeAtomic } from '../../../src/tools/files/atomic.ts'
import { editTool } from '../../../src/tools/files/edit.ts'
import { holdDir } from '../../../src/tools/files/held-dir.ts'
import { readTool } from '../../../src/tools/files/read.ts'
import { writeTool } from '../../../src/tools/files/write.ts'
import { call, context, files, tempDir } from './helpers.ts'

describe('write', () => {
  const ws = tempDir()
  const ctx = context(ws)

  it('creates a file and its directories, reports the bytes, and reads back the same', async () => {
    const content = 'const é = 1\nexport default é\n'
    const w = await call(writeTool, { path: 'new/deep/mod.ts', content }, ctx)
    assert.equal(w.outcome, 'ok', w.output)
    assert.equal(w.output, 'Wrote 31 bytes (2 lines) to new/deep/mod.ts (new file).')
    assert.deepEqual(w.meta, { path: 'new/deep/mod.ts', bytes: 31, created: true })
    assert.equal(readFileSync(join(ws, 'new/deep/mod.ts'), 'utf8'), content)
    const r = await call(readTool, { path: 'new/deep/mod.ts' }, ctx)
    assert.equal(r.output, '     1\tconst é = 1\n     2\texport default é')
  })

  it('replaces a file whole, keeps its mode, and leaves no temp file', async () => {
    files(ws, { 'run.sh': '#!/bin/sh\necho old\n' })
    chmodSync(join(ws, 'run.sh'), 0o750)
    const before = statSync(join(ws, 'run.sh')).ino
    const w = await call(writeTool, { path: 'run.sh', content: '#!/bin/sh\necho new\n' }, ctx)
    assert.equal(w.outcome, 'ok', w.output)
    assert.match(w.output, /\(replaced the previous 19 bytes\)/)
    assert.equal(readFileSync(join(ws, 'run.sh'), 'utf8'), '#!/bin/sh\necho new\n')
    const st = statSync(join(ws, 'run.sh'))
    assert.equal(st.mode & 0o777, 0o750)
    assert.notEqual(st.ino, before, 'a new inode: renamed into place, not written in place')
    assert.deepEqual(
      readdirSync(ws).filter((n) => n.endsWith('.tmp')),
      [],
    )
  })

  it('keeps the owner of a file it replaces, where it may (as root)', async (t) => {
    if (process.getuid?.() !== 0) return t.skip('only root may give a file to another user')
    files(ws, { 'theirs.txt': 'old' })
    chownSync(join(ws, 'theirs.txt'), 1234, 5678)
    const w = await call(writeTool, { path: 'theirs.txt', content: 'new' }, ctx)
    assert.equal(w.outcome, 'ok', w.output)
    const st = statSync(join(ws, 'theirs.txt'))
    assert.deepEqual([st.uid, st.gid], [1234, 5678])
    const e = await call(editTool, { path: 'theirs.txt', old_string: 'new', new_string: 'newer' }, ctx)
    assert.equal(e.outcome, 'ok', e.output)
    assert.equal(statSync(join(ws, 'theirs.txt')).uid, 1234)
  })

  it('refuses a directory and bad arguments', async () => {
    const d = await call(writeTool, { path: 'new', content: 'x' }, ctx)
    assert.equal(d.outcome, 'error')
    assert.match(d.output, /is a directory/)
    const slash = await call(writeTool, { path: 'fresh/', content: 'x' }, ctx)
    assert.equal(slash.outcome, 'error')
    assert.match(slash.output, /names a directory/)
    assert.throws(() => statSync(join(ws, 'fresh')))
    const a = await call(writeTool, { path: 'x.txt' }, ctx)
    assert.equal(a.outcome, 'error')
    assert.match(a.output, /content/)
  })

  it('writes nothing once interrupted', async () => {
    const ac = new AbortController()
    ac.abort()
    const r = await call(writeTool, { path: 'late.txt', content: 'x' }, context(ws, { signal: ac.signal }))
    assert.equal(r.outcome, 'interrupted')
    assert.throws(() => statSync(join(ws, 'late.txt')))
  })
})

describe('edit', () => {
  const ws = tempDir()
  const ctx = context(ws)
  const source = [
    'function greet(name) {',
    '  return "hello " + name',
    '}',
    '',
    'function part() {',
    '  return "hello " + name',
    '}',
    '',
  ].join('\n')

  it('replaces one exact match and shows the changed lines', async () => {
    files(ws, { 'a.js': source })
    const r = await call(editTool, { path: 'a.js', old_string: 'greet(name)', new_string: 'greet(who)' }, ctx)
    assert.equal(r.outcome, 'ok', r.output)
    assert.equal(
      r.output,
      'Edited a.js: 1 replacement.\n     1\tfunction greet(who) {\n     2\t  return "hello " + name',
    )
    assert.equal(readFileSync(join(ws, 'a.js'), 'utf8'), source.replace('greet(name)', 'greet(who)'))
    const back = await call(readTool, { path: 'a.js', limit: 1 }, ctx)
    assert.match(back.output, /^ {5}1\tfunction greet\(who\) \{/)
  })

  it('refuses an ambiguous match, naming the lines, and changes nothing', async () => {
    files(ws, { 'b.js': source })
    const r = await call(
      editTool,
      { path: 'b.js', old_string: '  return "hello " + name', new_string: 'x' },
      ctx,
    )
    assert.equal(r.outcome, 'error')
    assert.equal(
      r.output,
      'b.js: old_string matches 2 times (at lines 2, 6). Include more surrounding lines to pick one, or set ' +
        'replace_all: true to change every one. The file is unchanged.',
    )
    assert.equal(readFileSync(join(ws, 'b.js'), 'utf8'), source)
    const all = await call(
      editTool,
      { path: 'b.js', old_string: '"hello "', new_string: '"hi "', replace_all: true },
      ctx,
    )
    assert.equal(all.outcome, 'ok', all.output)
    assert.match(all.output, /2 replacements/)
    assert.equal(readFileSync(join(ws, 'b.js'), 'utf8'), source.replaceAll('"hello "', '"hi "'))
  })

  it('refuses a missing match and says where the text probably is', async () => {
    files(ws, { 'c.js': source })
    const spacing = await call(
      editTool,
      { path: 'c.js', old_string: 'function part() {\n    return "hello " + name', new_string: 'x' },
      ctx,
    )
    assert.equal(spacing.outcome, 'error')
    assert.match(spacing.output, /not found.*different indentation or spacing is at line 5/)
    const numbered = await call(
      editTool,
      { path: 'c.js', old_string: '     1\tfunction greet(name) {', new_string: 'x' },
      ctx,
    )
    assert.match(numbered.output, /include the line numbers that read shows/)
    const near = await call(
      editTool,
      { path: 'c.js', old_string: 'function greets(nam) {', new_string: 'x' },
      ctx,
    )
    assert.match(near.output, /The closest line is 1: "function greet\(name\) \{"/)
    const follows = await call(
      editTool,
      { path: 'c.js', old_string: 'function greet(name) {\n  return 42', new_string: 'x' },
      ctx,
    )
    assert.match(follows.output, /first line is at line 1, but what follows differs/)
    const nothing = await call(editTool, { path: 'c.js', old_string: 'zzzz qqqq', new_string: 'x' }, ctx)
    assert.match(nothing.output, /Read the file again/)
    assert.equal(readFileSync(join(ws, 'c.js'), 'utf8'), source)
  })

  it('applies several edits in order, each to the result of the one before', async () => {
    files(ws, { 'd.js': source })
    const r = await call(
      editTool,
      {
        path: 'd.js',
        edits: [
          { old_string: 'function part() {', new_string: 'function farewell(name) {' },
          { old_string: '"hello "', new_string: '"bye "', replace_all: true },
          {
            old_string: 'function greet(name) {\n  return "bye "',
            new_string: 'function greet(name) {\n  return "hello "',
          },
        ],
      },
      ctx,
    )
    assert.equal(r.outcome, 'ok', r.output)
    assert.match(r.output, /4 replacements/)
    assert.equal(
      readFileSync(join(ws, 'd.js'), 'utf8'),
      [
        'function greet(name) {',
        '  return "hello " + name',
        '}',
        '',
        'function farewell(name) {',
        '  return "bye " + name',
        '}',
        '',
      ].join('\n'),
    )
  })

  it('applies none of several edits when one fails', async () => {
    files(ws, { 'e.js': source })
    const before = readFileSync(join(ws, 'e.js'))
    const mtime = statSync(join(ws, 'e.js')).mtimeMs
    const r = await call(
      editTool,
      {
        path: 'e.js',
        edits: [
          { old_string: 'greet', new_string: 'welcome' },
          { old_string: 'no such text anywhere', new_string: 'x' },
          { old_string: 'part', new_string: 'leave' },
        ],
      },
      ctx,
    )
    assert.equal(r.outcome, 'error')
    assert.match(r.output, /^e\.js: Edit 2 of 3: old_string was not found/)
    assert.match(r.output, /No edit was applied; the file is unchanged\.$/)
    assert.deepEqual(readFileSync(join(ws, 'e.js')), before)
    assert.equal(statSync(join(ws, 'e.js')).mtimeMs, mtime)
  })

  it('keeps CRLF line endings and a byte order mark', async () => {
    const crlf = '\uFEFFline one\r\nline two\r\nline three\r\n'
    files(ws, { 'win.txt': crlf })
    const r = await call(
      editTool,
      { path: 'win.txt', old_string: 'line one\nline two', new_string: 'first\nsecond\nextra' },
      ctx,
    )
    assert.equal(r.outcome, 'ok', r.output)
    assert.equal(r.meta?.line_endings, 'crlf')
    assert.equal(
      readFileSync(join(ws, 'win.txt'), 'utf8'),
      '\uFEFFfirst\r\nsecond\r\nextra\r\nline three\r\n',
    )
    // The model may also send the CRLF it saw elsewhere: it matches the same.
    const again = await call(
      editTool,
      { path: 'win.txt', old_string: 'extra\r\nline three', new_string: 'end' },
      ctx,
    )
    assert.equal(again.outcome, 'ok', again.output)
    assert.equal(readFileSync(join(ws, 'win.txt'), 'utf8'), '\uFEFFfirst\r\nsecond\r\nend\r\n')
  })

  it('matches a file with mixed line endings as it is', async () => {
    files(ws, { 'mixed.txt': 'a\r\nb\nc\r\n' })
    const r = await call(editTool, { path: 'mixed.txt', old_string: 'b\nc', new_string: 'B\nC' }, ctx)
    assert.equal(r.outcome, 'ok', r.output)
    assert.equal(readFileSync(join(ws, 'mixed.txt'), 'utf8'), 'a\r\nB\nC\r\n')
  })

  it('puts replacement text in literally ($& and $1 are not patterns)', async () => {
    files(ws, { 'f.txt': 'price: X\n' })
    const r = await call(editTool, { path: 'f.txt', old_string: 'X', new_string: '$& $1 $$' }, ctx)
    assert.equal(r.outcome, 'ok', r.output)
    assert.equal(readFileSync(join(ws, 'f.txt'), 'utf8'), 'price: $& $1 $$\n')
  })

  it('refuses what it cannot do, saying what to use instead', async () => {
    files(ws, { 'g.bin': Buffer.from([1, 2, 0, 3]), 'h.txt': 'same\n' })
    writeFileSync(join(ws, 'latin.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]))
    const cases: [object, RegExp][] = [
      [{ path: 'nope.txt', old_string: 'a', new_string: 'b' }, /no such file\. To create a file, use write/],
      [{ path: 'g.bin', old_string: 'a', new_string: 'b' }, /binary file/],
      [{ path: 'latin.txt', old_string: 'caf', new_string: 'b' }, /not valid UTF-8/],
      [{ path: 'h.txt', old_string: 'same', new_string: 'same' }, /are the same/],
      [{ path: 'h.txt', old_string: '', new_string: 'x' }, /old_string is empty/],
      [{ path: 'h.txt', old_string: 'same' }, /Give old_string and new_string/],
      [
        { path: 'h.txt', old_string: 'a', new_string: 'b', edits: [{ old_string: 'a', new_string: 'b' }] },
        /not both/,
      ],
      [{ path: 'h.txt', edits: [] }, /Invalid arguments: edits/],
    ]
    for (const [args, why] of cases) {
      const r = await call(editTool, args, ctx)
      assert.equal(r.outcome, 'error', JSON.stringify(args))
      assert.match(r.output, why, JSON.stringify(args))
    }
    assert.equal(readFileSync(join(ws, 'h.txt'), 'utf8'), 'same\n')
  })

  it('summarizes a call in one line', () => {
    assert.equal(editTool.summarize({ path: 'a.ts', old_string: 'x', new_string: 'y' }), 'edit a.ts')
    assert.equal(
      editTool.summarize({
        path: 'a.ts',
        edits: [
          { old_string: 'x', new_string: 'y' },
          { old_string: 'z', new_string: 'w' },
        ],
      }),
      'edit a.ts (2 edits)',
    )
  })
})

describe('the atomic writer', () => {
  it('does not overwrite a file that changed since it was read', async () => {
    const ws = tempDir()
    const path = join(ws, 'x.txt')
    writeFileSync(path, 'first')
    const st = statSync(path)
    writeFileSync(path, 'changed by someone else')
    const dir = holdDir(ws, context(ws))
    await assert.rejects(
      writeAtomic(dir, 'x.txt', Buffer.from('mine'), {
        expect: { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs },
      }),
      ChangedMeanwhile,
    )
    dir.close()
    assert.equal(readFileSync(path, 'utf8'), 'changed by someone else')
    assert.deepEqual(readdirSync(ws), ['x.txt'], 'the temp file is removed')
  })
})
