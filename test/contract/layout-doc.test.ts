// CONTRIBUTING.md's layout is where a newcomer looks first: it must name every folder and
// file at the top of src/, so a new module cannot land without a line saying what it is.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, it } from 'node:test'

const ROOT = resolve(import.meta.dirname, '..', '..')

/** The layout block: the first fenced block under `## Layout`. */
function layoutBlock(markdown: string): string {
  const section = markdown.slice(markdown.indexOf('## Layout'))
  const start = section.indexOf('```')
  const end = section.indexOf('```', start + 3)
  assert.ok(start >= 0 && end > start, 'CONTRIBUTING.md has a fenced block under "## Layout"')
  return section.slice(start, end)
}

/** Whether the block names this entry of src/: `src/name/` for a folder, its file name for a file. */
function names(block: string, entry: { name: string; folder: boolean }): boolean {
  if (entry.folder) return block.includes(`src/${entry.name}/`)
  return new RegExp(`(^|[\\s,/])${entry.name.replace('.', '\\.')}\\b`, 'm').test(block)
}

describe('CONTRIBUTING.md layout', () => {
  it('names every folder and file at the top of src/', () => {
    const block = layoutBlock(readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8'))
    const entries = readdirSync(join(ROOT, 'src'), { withFileTypes: true }).map((e) => ({
      name: e.name,
      folder: e.isDirectory(),
    }))
    const missing = entries.filter((e) => !names(block, e)).map((e) => `src/${e.name}${e.folder ? '/' : ''}`)
    assert.deepStrictEqual(missing, [], 'add a line for each to the layout in CONTRIBUTING.md')
  })

  it('notices a missing line', () => {
    const block = '```\nsrc/api/   handlers\nsrc/main.ts  entry\n'
    assert.equal(names(block, { name: 'api', folder: true }), true)
    assert.equal(names(block, { name: 'main.ts', folder: false }), true)
    assert.equal(names(block, { name: 'runs', folder: true }), false)
    assert.equal(names(block, { name: 'log.ts', folder: false }), false)
  })
})
