// The terminal client is loaded only where it is used: the daemon's bundle holds none of
// it, and the CLI reaches it only through a dynamic import (so `hearth status`, `hearth
// send` and the rest never read it). Reads the built bundles (npm test builds first).
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { ROOT } from '../helpers/daemon.ts'

const DIST = join(ROOT, 'dist')
// Chunk specifiers only (./name-HASH.mjs): bundled sources hold other import-like text.
const STATIC = /(?:^|[;\n}])\s*(?:import|export)\s*(?:[^'"()]*?\sfrom\s*)?["'](\.\/[\w-]+\.mjs)["']/g
const DYNAMIC = /import\(\s*["'](\.\/[\w-]+\.mjs)["']\s*\)/g

/** The files an entry loads: with `dynamic`, also those behind import(). */
function reach(entry: string, dynamic: boolean): Map<string, string> {
  const seen = new Map<string, string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    const text = readFileSync(join(DIST, file), 'utf8')
    seen.set(file, text)
    for (const m of text.matchAll(STATIC)) visit(m[1].slice(2))
    if (dynamic) for (const m of text.matchAll(DYNAMIC)) visit(m[1].slice(2))
  }
  visit(entry)
  return seen
}

const holdsClient = (text: string) =>
  text.includes('node_modules/@earendil-works/pi-tui/') || text.includes('src/tui/')

describe('where the terminal client is bundled', () => {
  it('not in the daemon, whatever it loads', () => {
    const files = reach('daemon.mjs', true)
    assert.ok(files.size > 1)
    for (const [file, text] of files) assert.ok(!holdsClient(text), `${file} holds terminal client code`)
  })

  it('in the CLI only behind a dynamic import', () => {
    for (const [file, text] of reach('hearth.mjs', false))
      assert.ok(!holdsClient(text), `${file} is loaded at start`)
    assert.ok(
      [...reach('hearth.mjs', true).values()].some(holdsClient),
      'the client is reachable from the CLI',
    )
  })

  it('without typebox before the first call: the client and the terminal client load no schemas', () => {
    const tui = [...reach('hearth.mjs', true)].find(([, text]) => text.includes('src/tui/app.ts'))
    assert.ok(tui, 'the terminal client chunk')
    for (const [file, text] of [...reach('hearth.mjs', false), ...reach(tui[0], false)])
      assert.ok(!text.includes('node_modules/typebox/'), `${file} loads typebox at start`)
  })

  it("with pi-tui's text measures unchanged by the lazy segmenter and emoji expression", async () => {
    const [file] = [...reach('hearth.mjs', true)].find(([, text]) => text.includes('graphemes ??=')) ?? []
    assert.ok(file, 'the bundled pi-tui utils')
    const bundled = await import(join(DIST, file))
    const original = await import('@earendil-works/pi-tui/dist/utils.js')
    const samples = [
      '─'.repeat(50),
      '› hello · world — “q” … ↓ ┌─┐│└┘ ▓',
      'café naïve ÿ',
      '\x1b[1mbold\x1b[0m ─ x',
      'e\u0301 combining, soft\u00adhyphen',
      '😀 emoji ↔️ 👍🏽 🇫🇷',
      'tab\tx',
      '日本語 text ｱ',
    ]
    for (const text of samples)
      for (const width of [4, 11, 30]) {
        const measure = (m: typeof original) => [
          m.visibleWidth(text),
          m.truncateToWidth(text, width),
          m.wrapTextWithAnsi(text, width),
          [...m.getGraphemeSegmenter().segment(text)].map((g) => [g.segment, g.index]),
          [...m.getWordSegmenter().segment(text)].map((g) => [g.segment, g.index, g.isWordLike]),
        ]
        assert.deepEqual(measure(bundled), measure(original), `${JSON.stringify(text)} at ${width}`)
      }
  })
})
