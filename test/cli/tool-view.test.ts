// The compact tool display of `hearth chat` / `hearth send`, fed the events a run emits.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseApprovalAnswer, ToolView } from '../../src/cli/tool-view.ts'

function capture() {
  let text = ''
  const write = (s: string) => {
    text += s
  }
  return { out: { write }, text: () => text }
}

describe('ToolView', () => {
  it('starts a call on a fresh line, streams its output in a gutter across chunk borders, and ends it', () => {
    const c = capture()
    const v = new ToolView(c.out)
    c.out.write('Let me look')
    v.answered('Let me look')
    v.started({ call_id: 'a', name: 'shell', summary: 'shell: npm test' })
    v.progress({ call_id: 'a', text: 'line one\nline ' })
    v.progress({ call_id: 'a', text: 'two\npartial' })
    v.ended({ call_id: 'a', outcome: 'ok', meta: { exit_code: 0 } })
    assert.equal(
      c.text(),
      'Let me look\n▸ shell: npm test\n  │ line one\n  │ line two\n  │ partial\n  ✓ done (exit 0)\n',
    )
  })

  it('ignores progress of calls it did not see start, and counts lines past its limit', () => {
    const c = capture()
    const v = new ToolView(c.out)
    v.progress({ call_id: 'x', text: 'stray\n' })
    v.started({ call_id: 'b', name: 'shell', summary: 'shell: yes' })
    v.progress({ call_id: 'b', text: 'y\n'.repeat(205) })
    v.ended({ call_id: 'b', outcome: 'interrupted', meta: { exit_code: 143 } })
    const lines = c.text().split('\n')
    assert.ok(!c.text().includes('stray'))
    assert.equal(lines.filter((l) => l === '  │ y').length, 200)
    assert.ok(c.text().includes('  │ … 5 more lines\n'))
    assert.ok(c.text().endsWith('  ✗ interrupted (exit 143)\n'))
  })

  it('shows the first line of a failure, cut to a terminal line', () => {
    const c = capture()
    const v = new ToolView(c.out)
    v.started({ call_id: 'c', name: 'edit', summary: 'edit src/a.ts' })
    v.ended({ call_id: 'c', outcome: 'error', output: `old_string matches 3 places\n${'x'.repeat(400)}` })
    assert.ok(c.text().endsWith('  ✗ error: old_string matches 3 places\n'))
    v.started({ call_id: 'd', name: 'x', summary: 'y'.repeat(300) })
    assert.ok(c.text().includes(`▸ ${'y'.repeat(159)}…\n`))
  })

  it('reads y, n and a as approval answers, anything else as no answer', () => {
    assert.deepEqual(parseApprovalAnswer(' Y '), { decision: 'allow', remember: 'once' })
    assert.deepEqual(parseApprovalAnswer('always'), { decision: 'allow', remember: 'session' })
    assert.deepEqual(parseApprovalAnswer('no'), { decision: 'deny', remember: 'once' })
    assert.equal(parseApprovalAnswer('maybe'), undefined)
    assert.equal(
      ToolView.question({ request_id: 'r', tool: 'shell', summary: 'shell: rm x' }),
      'Allow shell: rm x?',
    )
  })
})
