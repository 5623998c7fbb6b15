// `list` and `glob` on real trees: markers, depth, ignored directories, caps, ordering by
// modification time, and the tool list the loop registers.
import assert from 'node:assert/strict'
import { symlinkSync, utimesSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { GLOB_MAX_RESULTS, globTool } from '../../../src/tools/files/glob.ts'
import { fileTools } from '../../../src/tools/files/index.ts'
import { LIST_MAX_ENTRIES, listTool } from '../../../src/tools/files/list.ts'
import { call, context, files, tempDir } from './helpers.ts'

describe('list', () => {
  const ws = tempDir()
  const ctx = context(ws)
  files(ws, {
    'b.txt': 'b',
    'a.txt': 'a',
    'src/index.ts': 'x',
    'src/lib/util.ts': 'x',
    '.env.example': 'x',
    '.git/HEAD': 'ref',
    'node_modules/pkg/index.js': 'x',
  })
  symlinkSync('src/index.ts', join(ws, 'main.ts'))

  it('shows a directory one level deep, dirs with /, links with @, leaving out .git and node_modules', async () => {
    const r = await call(listTool, {}, ctx)
    assert.equal(r.outcome, 'ok', r.output)
    assert.equal(
      r.output,
      './\n.env.example\na.txt\nb.txt\nmain.ts@\nsrc/\n\n(Not shown: .git/, node_modules/ (include_ignored: true shows them).)',
    )
    const all = await call(listTool, { include_ignored: true }, ctx)
    assert.equal(all.output, './\n.env.example\n.git/\na.txt\nb.txt\nmain.ts@\nnode_modules/\nsrc/')
  })

  it('goes deeper with depth, as relative paths', async () => {
    const r = await call(listTool, { path: 'src', depth: 3 }, ctx)
    assert.equal(r.output, 'src/\nindex.ts\nlib/\nlib/util.ts')
  })

  it(`stops at ${LIST_MAX_ENTRIES} entries and says how to see the rest`, async () => {
    const big = tempDir()
    files(
      big,
      Object.fromEntries(
        Array.from({ length: LIST_MAX_ENTRIES + 20 }, (_, i) => [`f${String(i).padStart(4, '0')}`, '']),
      ),
    )
    const r = await call(listTool, {}, context(big))
    const lines = r.output.split('\n\n')[0].split('\n')
    assert.equal(lines.length, LIST_MAX_ENTRIES + 1) // the header line, then the entries
    assert.match(r.output, /Showing the first 500 entries; list a subdirectory/)
    assert.equal(r.meta?.truncated, true)
  })

  it('refuses a file, a missing directory and a path outside', async () => {
    for (const [path, why] of [
      ['a.txt', /is a file, not a directory; use read/],
      ['nope', /no such directory/],
      ['..', /outside the workspace/],
    ] as const) {
      const r = await call(listTool, { path }, ctx)
      assert.equal(r.outcome, 'error')
      assert.match(r.output, why)
    }
  })
})

describe('glob', () => {
  const ws = tempDir()
  const ctx = context(ws)
  files(ws, {
    'old.ts': 'x',
    'new.ts': 'x',
    'src/a.ts': 'x',
    'src/b.js': 'x',
    'src/deep/c.ts': 'x',
    '.config/d.ts': 'x',
    'node_modules/pkg/e.ts': 'x',
  })
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s))
  for (const [i, f] of ['old.ts', 'src/a.ts', 'src/deep/c.ts', 'new.ts', '.config/d.ts'].entries())
    utimesSync(join(ws, f), at(i), at(i))

  it('finds files by pattern, newest first, skipping node_modules and dot names', async () => {
    const r = await call(globTool, { pattern: '**/*.ts' }, ctx)
    assert.equal(r.outcome, 'ok', r.output)
    assert.equal(r.output, 'new.ts\nsrc/deep/c.ts\nsrc/a.ts\nold.ts')
    const top = await call(globTool, { pattern: '*.ts' }, ctx)
    assert.equal(top.output, 'new.ts\nold.ts')
  })

  it('searches under path and names results from the workspace', async () => {
    const r = await call(globTool, { pattern: '**/*.{ts,js}', path: 'src' }, ctx)
    assert.equal(r.output, 'src/b.js\nsrc/deep/c.ts\nsrc/a.ts', 'b.js was written last')
  })

  it('goes into node_modules or a dot directory when the pattern names it', async () => {
    const nm = await call(globTool, { pattern: 'node_modules/**/*.ts' }, ctx)
    assert.equal(nm.output, 'node_modules/pkg/e.ts')
    const dot = await call(globTool, { pattern: '.config/*.ts' }, ctx)
    assert.equal(dot.output, '.config/d.ts')
  })

  it('says when nothing matches, with a hint for a pattern without /', async () => {
    const r = await call(globTool, { pattern: '*.js' }, ctx)
    assert.equal(
      r.output,
      'No files match *.js in the workspace. A pattern without "/" matches only directly in the workspace; use **/*.js to search below it.',
    )
  })

  it(`returns at most ${GLOB_MAX_RESULTS} paths and says there are more`, async () => {
    const big = tempDir()
    files(
      big,
      Object.fromEntries(Array.from({ length: GLOB_MAX_RESULTS + 50 }, (_, i) => [`d/f${i}.md`, ''])),
    )
    const r = await call(globTool, { pattern: '**/*.md' }, context(big))
    assert.equal(r.output.split('\n\n')[0].split('\n').length, GLOB_MAX_RESULTS)
    assert.match(r.output, /Showing 200 of 250 matches \(newest first\)/)
  })

  it('refuses patterns that climb out or are absolute, and a base that is a symlink out', async () => {
    const outside = tempDir('hearth-outside-')
    files(outside, { 'x.ts': 'x' })
    symlinkSync(outside, join(ws, 'out'))
    for (const [pattern, why] of [
      ['../**/*.ts', /must not contain "\.\."/],
      ['/etc/*', /is absolute/],
      ['out/*.ts', /symbolic link/],
    ] as const) {
      const r = await call(globTool, { pattern }, ctx)
      assert.equal(r.outcome, 'error', pattern)
      assert.match(r.output, why)
    }
    const walked = await call(globTool, { pattern: '**/x.ts' }, ctx)
    assert.match(walked.output, /^No files match/, 'the walk does not follow the link')
  })
})

describe('the file tools', () => {
  it('are listed in the order the model sees them, each with an object schema and an effect', () => {
    assert.deepEqual(
      fileTools.map((t) => [t.name, t.effect]),
      [
        ['read', 'read'],
        ['list', 'read'],
        ['glob', 'read'],
        ['grep', 'read'],
        ['write', 'write'],
        ['edit', 'write'],
      ],
    )
    for (const t of fileTools) {
      const schema = JSON.parse(JSON.stringify(t.parameters))
      assert.equal(schema.type, 'object', t.name)
      assert.equal(schema.additionalProperties, false, t.name)
      assert.ok(t.description.length > 40, t.name)
      for (const [name, prop] of Object.entries<{ description?: string }>(schema.properties))
        assert.ok(prop.description, `${t.name}.${name} has a description`)
    }
  })
})
