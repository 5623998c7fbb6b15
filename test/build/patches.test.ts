// The build's patches of dependency sources (scripts/patches.mjs) against the installed
// packages: each still finds its text, and a source whose text moved fails with the
// package's name and version. An upgrade that moves the text fails here before it ships.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { describe, it } from 'node:test'
import { PATCHES, packageOf } from '../../scripts/patches.mjs'
import { ROOT } from '../helpers/daemon.ts'

const require = createRequire(join(ROOT, 'package.json'))

/** The installed file each patch applies to, found as the bundle finds it (from the root). */
const TARGETS: Record<string, string> = {
  'sqlite-addon-from-package': join(dirname(require.resolve('better-sqlite3')), 'binding.js'),
  'lazy-pi-tui-tables': join(dirname(require.resolve('@earendil-works/pi-tui')), 'utils.js'),
}

const patchNamed = (name: string) => {
  const p = PATCHES.find((x) => x.name === name)
  assert.ok(p, name)
  return p
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

  it('a target text gone or repeated fails with the package, its version and the text', () => {
    for (const [name, file] of Object.entries(TARGETS)) {
      const { name: pkg, version } = packageOf(file)
      const source = readFileSync(file, 'utf8')
      const p = patchNamed(name)
      for (const changed of [
        // each text the patch looks for, removed in turn
        ...['__dirname', 'new Intl.Segmenter', '\\p{RGI_Emoji}']
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
