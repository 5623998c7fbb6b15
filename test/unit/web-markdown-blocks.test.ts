// The cuts of a streaming answer's Markdown (src/web/app/ui/markdown-blocks.ts): after a
// blank line, never inside a code fence, never before the first block.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { blockEnds } from '../../src/web/app/ui/markdown-blocks.ts'

const cut = (text: string) => {
  const parts: string[] = []
  let from = 0
  for (const end of blockEnds(text)) {
    parts.push(text.slice(from, end))
    from = end
  }
  return [...parts, text.slice(from)]
}

describe('streaming Markdown blocks', () => {
  it('cuts after blank lines, keeping a fence with blank lines whole', () => {
    const text = 'One.\n\nTwo\nlines.\n\n```js\na()\n\nb()\n```\n\nLast, still grow'
    assert.deepEqual(cut(text), [
      'One.\n\n',
      'Two\nlines.\n\n',
      '```js\na()\n\nb()\n```\n\n',
      'Last, still grow',
    ])
  })

  it('does not cut an open fence, several blank lines, or a text without a finished block', () => {
    assert.deepEqual(cut('```\ncode\n\nmore'), ['```\ncode\n\nmore'])
    assert.deepEqual(cut('a\n\n\n\nb'), ['a\n\n', '\n\nb'])
    assert.deepEqual(cut('\n\nx'), ['\n\nx'])
    assert.deepEqual(cut('plain'), ['plain'])
  })
})
