// The build's patches of dependency sources (scripts/patches.mjs) against the installed
// packages: each still finds its text, and a source whose text moved fails with the
// package's name and version. An upgrade that moves the text fails here before it ships.
import assert from 'node:assert/strict'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { describe, it } from 'node:test'
import { pathToFileURL } from 'node:url'
import { PATCHES, packageOf } from '../../scripts/patches.mjs'
import { ROOT, tempHome } from '../helpers/daemon.ts'

const require = createRequire(join(ROOT, 'package.json'))

/** The installed file each patch applies to, found as the bundle finds it (from the root). */
const TARGETS: Record<string, string> = {
  'sqlite-addon-from-package': join(dirname(require.resolve('better-sqlite3')), 'binding.js'),
  'lazy-pi-tui-tables': join(dirname(require.resolve('@earendil-works/pi-tui')), 'utils.js'),
  'lazy-tmux-hyperlinks': join(dirname(require.resolve('@earendil-works/pi-tui')), 'terminal-image.js'),
  'lazy-pi-tui-editor-patterns': join(
    dirname(require.resolve('@earendil-works/pi-tui')),
    'components',
    'editor.js',
  ),
  'lazy-pi-tui-autocomplete-patterns': join(
    dirname(require.resolve('@earendil-works/pi-tui')),
    'autocomplete.js',
  ),
  'lazy-cjk-friendly-patterns': createRequire(require.resolve('@earendil-works/pi-tui')).resolve(
    'marked-cjk-friendly',
  ),
}

const patchNamed = (name: string) => {
  const p = PATCHES.find((x) => x.name === name)
  assert.ok(p, name)
  return p
}

/** pi-tui's terminal-image.js as the bundle has it, loaded with its imports from the package. */
async function patchedTerminalImage() {
  const file = TARGETS['lazy-tmux-hyperlinks']
  const patched = patchNamed('lazy-tmux-hyperlinks')
    .patch(file, readFileSync(file, 'utf8'))
    .replace('"./utils.js"', JSON.stringify(pathToFileURL(join(dirname(file), 'utils.js')).href))
  return import(`data:text/javascript,${encodeURIComponent(patched)}`)
}

describe('build patches of dependency sources', () => {
  it('every patch has its target here, matched by its filter', () => {
    assert.deepEqual(PATCHES.map((p) => p.name).sort(), Object.keys(TARGETS).sort())
    for (const p of PATCHES) assert.match(TARGETS[p.name], p.filter, p.name)
  })

  for (const [name, file] of Object.entries(TARGETS)) {
    it(`${name} applies to the installed ${packageOf(file).name}@${packageOf(file).version}`, () => {
      const source = readFileSync(file, 'utf8')
      const patched = patchNamed(name).patch(file, source)
      assert.notEqual(patched, source)
    })
  }

  it('better-sqlite3: no __dirname of the package is left for the bundle to change', () => {
    const file = TARGETS['sqlite-addon-from-package']
    const patched = patchNamed('sqlite-addon-from-package').patch(file, readFileSync(file, 'utf8'))
    // The one __dirname left is the helper's own (the bundle's folder).
    assert.equal(patched.split('__dirname').length - 1, 1)
  })

  it('pi-tui: the segmenters and the emoji expression are made on first use', () => {
    const file = TARGETS['lazy-pi-tui-tables']
    const patched = patchNamed('lazy-pi-tui-tables').patch(file, readFileSync(file, 'utf8'))
    assert.doesNotMatch(patched, /^const \w+ = new Intl\.Segmenter/m)
    assert.match(patched, /graphemes \?\?= new Intl\.Segmenter/)
    assert.match(patched, /words \?\?= new Intl\.Segmenter/)
    assert.match(patched, /rgiEmoji \?\?= new RegExp/)
  })

  it('pi-tui: the patterns built from Unicode properties are compiled on first use, and match as before', async () => {
    for (const name of [
      'lazy-pi-tui-tables',
      'lazy-pi-tui-editor-patterns',
      'lazy-pi-tui-autocomplete-patterns',
    ]) {
      const file = TARGETS[name]
      const patched = patchNamed(name).patch(file, readFileSync(file, 'utf8'))
      assert.doesNotMatch(patched, /^(export )?const \w+ = new RegExp\(/m, name)
      assert.doesNotMatch(patched, /return new RegExp\(/, name)
    }
    const utils = await import(pathToFileURL(TARGETS['lazy-pi-tui-tables']).href)
    const lazy = await import(
      `data:text/javascript,${encodeURIComponent(
        patchNamed('lazy-pi-tui-tables')
          .patch(TARGETS['lazy-pi-tui-tables'], readFileSync(TARGETS['lazy-pi-tui-tables'], 'utf8'))
          .replace(
            '"get-east-asian-width"',
            JSON.stringify(
              import.meta.resolve('get-east-asian-width', pathToFileURL(TARGETS['lazy-pi-tui-tables']).href),
            ),
          ),
      )}`
    )
    const samples = ['a b', '你好，世界', '路径：src', '(@src/foo', 'plain', '。', 'x\ty']
    for (const name of ['cjkPunctuationRegex', 'autocompleteSeparatorRegex', 'autocompleteBoundaryRegex']) {
      assert.equal(lazy[name].source, utils[name].source, name)
      for (const text of samples) {
        assert.equal(lazy[name].test(text), utils[name].test(text), `${name} ${text}`)
        assert.equal(text.search(lazy[name]), text.search(utils[name]), `${name} ${text}`)
      }
    }
  })

  it('marked-cjk-friendly: its patterns are built on first use, and Markdown parses as before', async () => {
    const file = TARGETS['lazy-cjk-friendly-patterns']
    const patched = patchNamed('lazy-cjk-friendly-patterns').patch(file, readFileSync(file, 'utf8'))
    assert.doesNotMatch(patched, /^const \w+ = (new RegExp|buildRDelim)/m)
    const original = (await import(pathToFileURL(file).href)).default
    const lazy = (await import(`data:text/javascript,${encodeURIComponent(patched)}`)).default
    const { Marked } = await import(createRequire(file).resolve('marked'))
    // As pi-tui's Markdown uses it (emphasis), and its strikethrough; GFM and not.
    const parsers = (friendly: typeof original) =>
      [true, false].map((gfm) => new Marked({ gfm }).use({ tokenizer: friendly().tokenizer }))
    const [before, after] = [parsers(original), parsers(lazy)]
    const samples = [
      '**bold** and *em*, __under__ and _u_, ~~gone~~ and ~one~',
      'a*b*c ***x** y* snake_case_word **a**b __a__b ~~a~~b',
      '这是**强调**。日本語の*強調*です。한국어 **굵게**입니다',
      '**「括号」**后 中文_下划线_中文 x**。**y ~~删除~~线 *中*文*字*',
      '**これは太字になりません。**ご注意ください。~~删除。~~线 *强调。*文字 __下划线。__文字',
      '- **项目**：说明\n- *斜体*，~~删~~。\n\n> **引用**文字',
    ]
    // The CJK samples are ones the package parses differently from marked alone.
    assert.notEqual(before[0].parse(samples[3]), new Marked().parse(samples[3]))
    // Twice over, so the scanners' lastIndex is reused as the package reuses it.
    for (const text of [...samples, ...samples]) {
      for (const [i, parser] of before.entries()) {
        assert.deepEqual(after[i].lexer(text), parser.lexer(text), text)
        assert.equal(after[i].parse(text), parser.parse(text), text)
      }
    }
  })

  it('pi-tui under tmux: the capabilities are read without running tmux, hyperlinks run it once', async () => {
    const capabilities = await patchedTerminalImage()
    const bin = tempHome('hearth-fake-tmux-')
    const calls = join(bin, 'calls')
    writeFileSync(join(bin, 'tmux'), `#!/bin/sh\necho call >> '${calls}'\necho 'clipboard,hyperlinks'\n`, {
      mode: 0o755,
    })
    const saved = { PATH: process.env.PATH, TMUX: process.env.TMUX, PI_HYPERLINKS: process.env.PI_HYPERLINKS }
    process.env.PATH = `${bin}:${process.env.PATH}`
    process.env.TMUX = '/tmp/tmux-0/default,1,0'
    delete process.env.PI_HYPERLINKS
    try {
      const ran = () => (existsSync(calls) ? readFileSync(calls, 'utf8').split('\n').length - 1 : 0)
      capabilities.resetCapabilitiesCache()
      assert.equal(capabilities.getCapabilities().images, null)
      assert.equal(ran(), 0)
      assert.equal(capabilities.getCapabilities().hyperlinks, true)
      assert.equal(capabilities.getCapabilities().hyperlinks, true)
      assert.equal(ran(), 1)
      // An override still wins, without running tmux.
      capabilities.setCapabilityOverrides({ hyperlinks: false })
      assert.equal(capabilities.getCapabilities().hyperlinks, false)
      assert.equal(ran(), 1)
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k]
        else process.env[k] = v
      }
    }
  })

  it('a target text gone or repeated fails with the package, its version and the text', () => {
    for (const [name, file] of Object.entries(TARGETS)) {
      const { name: pkg, version } = packageOf(file)
      const source = readFileSync(file, 'utf8')
      const p = patchNamed(name)
      for (const changed of [
        // each text the patch looks for, removed in turn
        ...[
          '__dirname',
          'new Intl.Segmenter',
          '\\p{RGI_Emoji}',
          '...capabilityOverrides,',
          'let cachedCapabilities',
        ]
          .filter((t) => source.includes(t))
          .map((t) => source.split(t).join('/*moved*/')),
        // the whole file twice: every text found twice as often
        `${source}\n${source}`,
      ]) {
        assert.throws(
          () => p.patch(file, changed),
          (err: Error) => {
            assert.ok(err.message.includes(`${pkg}@${version}`), err.message)
            assert.match(err.message, /expected \d+ × ".+", found \d+/)
            return true
          },
          name,
        )
      }
    }
  })
})
