// `grep` with both engines on the same real tree: ripgrep (installed by .ci/run; its absence
// fails here rather than skipping) and the built-in one. Both give the same lines, skip
// binary files, .git, node_modules and symlinks, and cap what they return.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readdirSync, readlinkSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createGrepTool, GREP_MAX_CHARS } from '../../../src/tools/files/grep.ts'
import { findRipgrep, grepBuiltin, grepWithRipgrep } from '../../../src/tools/files/grep-engines.ts'
import { type HeldDir, holdDir } from '../../../src/tools/files/held-dir.ts'
import { until } from '../../helpers/daemon.ts'
import { call, context, files, tempDir } from './helpers.ts'

/** The processes whose working directory is `dir`. */
function processesIn(dir: string): string[] {
  return readdirSync('/proc').filter((pid) => {
    try {
      return /^\d+$/.test(pid) && readlinkSync(`/proc/${pid}/cwd`) === dir
    } catch {
      return false // gone, or not ours to read
    }
  })
}

const ws = tempDir()
const outside = tempDir('hearth-outside-')
const ctx = context(ws)
files(outside, { 'leak.txt': 'needle outside\n' })
files(ws, {
  'src/a.ts': 'const needle = 1\nconst other = 2\nexport { needle }\n',
  'src/b.js': 'let Needle = "x"\r\n',
  'src/deep/c.ts': '// needle in a comment\n',
  'docs/notes.md': 'no match here\nneedle: in docs\n',
  '.hidden/h.txt': 'needle hidden\n',
  '.git/config': 'needle in git\n',
  'node_modules/pkg/index.js': 'needle in a package\n',
  'bin/tool': Buffer.concat([Buffer.from('needle'), Buffer.from([0, 1, 2]), Buffer.from('needle\n')]),
  'long.txt': `${'x'.repeat(800)}needle${'y'.repeat(800)}\n`,
  'many.txt': Array.from({ length: 300 }, (_, i) => `needle ${i}`).join('\n'),
})
symlinkSync(outside, join(ws, 'out-link'))
symlinkSync(join(outside, 'leak.txt'), join(ws, 'leak-link.txt'))

for (const engine of ['ripgrep', 'builtin'] as const) {
  describe(`grep (${engine})`, () => {
    const grep = createGrepTool({ engine })

    before(async () => {
      if (engine === 'ripgrep')
        assert.ok(await findRipgrep(), 'rg must be on PATH (.ci/run installs ripgrep)')
    })

    it('returns path:line:text in path order, skipping binary files, .git, node_modules and symlinks', async () => {
      const r = await call(grep, { pattern: 'needle', path: 'src' }, ctx)
      assert.equal(r.outcome, 'ok', r.output)
      assert.equal(
        r.output,
        [
          'src/a.ts:1:const needle = 1',
          'src/a.ts:3:export { needle }',
          'src/deep/c.ts:1:// needle in a comment',
        ].join('\n'),
      )
      assert.equal(r.meta?.engine, engine)
      const all = await call(grep, { pattern: 'needle', limit: 500 }, ctx)
      const paths = new Set(all.output.split('\n').map((l) => l.split(':')[0]))
      assert.deepEqual(
        [...paths].filter((p) => !p.startsWith('(') && p !== ''),
        ['.hidden/h.txt', 'docs/notes.md', 'long.txt', 'many.txt', 'src/a.ts', 'src/deep/c.ts'],
      )
    })

    it('filters files with include, on names or on paths', async () => {
      const byName = await call(grep, { pattern: 'needle', include: '*.md' }, ctx)
      assert.equal(byName.output, 'docs/notes.md:2:needle: in docs')
      const byPath = await call(grep, { pattern: 'needle', include: 'src/deep/**' }, ctx)
      assert.equal(byPath.output, 'src/deep/c.ts:1:// needle in a comment')
    })

    it('ignores case when asked, and strips a CR', async () => {
      const r = await call(grep, { pattern: 'NEEDLE =', ignore_case: true, path: 'src' }, ctx)
      assert.equal(r.output, 'src/a.ts:1:const needle = 1\nsrc/b.js:1:let Needle = "x"')
    })

    it('takes a pattern that starts with a dash as a pattern, not an option', async () => {
      const r = await call(grep, { pattern: '-- needle', path: 'src' }, ctx)
      assert.equal(r.outcome, 'ok', r.output)
      assert.equal(r.output, 'No matches in src.')
      const files = await call(grep, { pattern: '--files' }, ctx)
      assert.equal(files.output, 'No matches in the workspace.')
    })

    it('searches one file when path names a file', async () => {
      const r = await call(grep, { pattern: 'other', path: 'src/a.ts' }, ctx)
      assert.equal(r.output, 'src/a.ts:2:const other = 2')
    })

    it('caps the matches and says there are more', async () => {
      const r = await call(grep, { pattern: 'needle \\d+', path: 'many.txt' }, ctx)
      const lines = r.output.split('\n\n')[0].split('\n')
      assert.equal(lines.length, 100)
      assert.equal(lines[99], 'many.txt:100:needle 99')
      assert.match(r.output, /Showing the first 100 matches; there are more\. Narrow the pattern/)
      assert.equal(r.meta?.truncated, true)
      const five = await call(grep, { pattern: 'needle', path: 'many.txt', limit: 5 }, ctx)
      assert.equal(five.output.split('\n\n')[0].split('\n').length, 5)
      const exact = await call(grep, { pattern: 'needle 29\\d', path: 'many.txt', limit: 10 }, ctx)
      assert.equal(exact.output.split('\n').length, 10, 'exactly the limit: no note')
      assert.equal(exact.meta?.truncated, false)
    })

    it('caps the characters returned and shortens long lines', async () => {
      const r = await call(grep, { pattern: 'needle', path: 'long.txt' }, ctx)
      assert.equal(r.output, `long.txt:1:${'x'.repeat(500)} [... omitted end of long line]`)
      const wide = tempDir()
      files(wide, {
        'w.txt': Array.from({ length: 400 }, (_, i) => `needle ${i} ${'z'.repeat(400)}`).join('\n'),
      })
      const w = await call(grep, { pattern: 'needle', limit: 500 }, context(wide))
      assert.ok(w.output.length < GREP_MAX_CHARS + 300, `${w.output.length}`)
      assert.match(w.output, /Showing the first \d+ matches \(output cut at 50 KB\); there are more/)
    })

    it('says when nothing matches, and refuses a bad pattern', async () => {
      const none = await call(grep, { pattern: 'nowhere-to-be-found' }, ctx)
      assert.equal(none.outcome, 'ok')
      assert.equal(none.output, 'No matches in the workspace.')
      const bad = await call(grep, { pattern: '(unclosed' }, ctx)
      assert.equal(bad.outcome, 'error')
      assert.match(bad.output, engine === 'ripgrep' ? /regex parse error/ : /Invalid regular expression/)
    })

    it('refuses a path outside the workspace', async () => {
      for (const path of ['..', outside, 'out-link']) {
        const r = await call(grep, { pattern: 'needle', path }, ctx)
        assert.equal(r.outcome, 'error', path)
        assert.doesNotMatch(r.output, /needle outside/)
      }
    })

    it('stops when interrupted', async () => {
      const ac = new AbortController()
      ac.abort()
      const r = await call(grep, { pattern: 'needle' }, context(ws, { signal: ac.signal }))
      assert.equal(r.outcome, 'interrupted')
    })
  })
}

describe('grep engines stop when the run is interrupted mid-search', () => {
  const held: HeldDir[] = []
  const query = (signal: AbortSignal, dir = ws, only?: string) => {
    const roots = context(dir)
    held.push(holdDir(dir, roots))
    return {
      pattern: 'needle',
      ignoreCase: false,
      dir: held[held.length - 1],
      only,
      maxMatches: 100,
      signal,
      roots,
    }
  }
  after(() => {
    for (const d of held) d.close()
  })

  it('kills ripgrep', { timeout: 10_000 }, async () => {
    const rg = await findRipgrep()
    assert.ok(rg)
    // rg blocks opening a pipe nobody writes to: only killing it ends this search.
    const fifoDir = tempDir()
    execFileSync('mkfifo', [join(fifoDir, 'pipe')])
    const ac = new AbortController()
    const running = grepWithRipgrep(rg, query(ac.signal, fifoDir, 'pipe'))
    await until('ripgrep on the pipe', () => processesIn(fifoDir).length > 0)
    ac.abort()
    const found = await running
    assert.equal(found.interrupted, true)
  })

  it('stops the built-in walk', async () => {
    const ac = new AbortController()
    const running = grepBuiltin(query(ac.signal))
    ac.abort()
    const found = await running
    assert.equal(found.interrupted, true)
    assert.ok(found.matches.length < 10)
  })
})

describe('grep engines agree', () => {
  it('give the same output on the same tree', async () => {
    for (const args of [
      { pattern: 'needle' },
      { pattern: 'n[e]+dle \\d', limit: 20 },
      { pattern: 'x', include: '*.ts' },
    ]) {
      const rg = await call(createGrepTool({ engine: 'ripgrep' }), args, ctx)
      const builtin = await call(createGrepTool({ engine: 'builtin' }), args, ctx)
      assert.equal(builtin.output, rg.output, JSON.stringify(args))
    }
  })

  it('use ripgrep by default when it is on PATH', async () => {
    const r = await call(createGrepTool(), { pattern: 'needle', path: 'src/a.ts' }, ctx)
    assert.equal(r.meta?.engine, 'ripgrep')
  })

  it('summarize a call in one line', () => {
    assert.equal(
      createGrepTool().summarize({ pattern: 'foo\\(', path: 'src', include: '*.ts' }),
      'grep foo\\( in src (*.ts)',
    )
  })
})
