// The pickers' rows without a terminal: the session list built from a page of summaries
// (children under their parents, pinned first, archived hidden unless asked), and a
// model's line with the catalogue's facts.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { SessionSummary } from '../../src/schemas/session-read.ts'
import { ListPicker, type PickerRow } from '../../src/tui/list-picker.ts'
import { modelLine } from '../../src/tui/model-picker.ts'
import { mouseWanted, parseMouse } from '../../src/tui/mouse.ts'
import { sessionRows, sessionTitle } from '../../src/tui/session-list.ts'
import { makeTheme } from '../../src/tui/theme.ts'

/** A summary with the fields the list reads; the rest are never looked at. */
function summary(
  id: string,
  o: { parent?: string; pinned?: boolean; pinOrder?: number; archived?: boolean; name?: string } = {},
): SessionSummary {
  return {
    id,
    name: o.name ?? id,
    automatic_name: '',
    parent_id: o.parent ?? null,
    preview: { text: '', transcript_count: 0, truncated: false },
    preferences: {
      pinned: o.pinned ?? false,
      pin_order: o.pinOrder ?? null,
      archived: o.archived ?? false,
      opens: 0,
    },
  } as Partial<SessionSummary> as SessionSummary
}

const shape = (rows: ReturnType<typeof sessionRows>) =>
  rows.map((r) => `${'.'.repeat(r.depth)}${r.session.id}`)

describe('the session list', () => {
  it('puts children right under their parents, deeper ones deeper, in the order given', () => {
    const page = [
      summary('grandchild', { parent: 'child-a' }),
      summary('other'),
      summary('child-a', { parent: 'root' }),
      summary('root'),
      summary('child-b', { parent: 'root' }),
    ]
    assert.deepEqual(shape(sessionRows(page)), ['other', 'root', '.child-a', '..grandchild', '.child-b'])
  })

  it('puts pinned sessions first, by pin order (unset last), and keeps the rest in order', () => {
    const page = [
      summary('recent'),
      summary('pinned-late', { pinned: true }),
      summary('older'),
      summary('pinned-2', { pinned: true, pinOrder: 2 }),
      summary('pinned-1', { pinned: true, pinOrder: 1 }),
      summary('pinned-child', { parent: 'older', pinned: true }),
      summary('plain-child', { parent: 'older' }),
    ]
    assert.deepEqual(shape(sessionRows(page)), [
      'pinned-1',
      'pinned-2',
      'pinned-late',
      'recent',
      'older',
      '.pinned-child',
      '.plain-child',
    ])
  })

  it('shows a child whose parent is not in the page (a search hit) at the top level', () => {
    assert.deepEqual(shape(sessionRows([summary('child', { parent: 'absent' }), summary('b')])), [
      'child',
      'b',
    ])
  })

  it('hides archived sessions unless asked for (a child of a hidden one stands at the top level)', () => {
    const page = [
      summary('kept'),
      summary('archived', { archived: true }),
      summary('under-archived', { parent: 'archived' }),
    ]
    assert.deepEqual(shape(sessionRows(page)), ['kept', 'under-archived'])
    assert.deepEqual(shape(sessionRows(page, { archived: true })), ['kept', 'archived', '.under-archived'])
  })

  it('titles a session by name, automatic name, then preview', () => {
    const s = summary('x', { name: '' })
    assert.equal(sessionTitle(s), '(empty)')
    assert.equal(
      sessionTitle({ ...s, preview: { text: 'first\nsecond', transcript_count: 1, truncated: false } }),
      'first',
    )
    assert.equal(sessionTitle({ ...s, automatic_name: 'auto' }), 'auto')
    assert.equal(sessionTitle({ ...s, name: 'named', automatic_name: 'auto' }), 'named')
  })
})

describe('a model line', () => {
  const cost = { input: 1.25, output: 10, cache_read: null, cache_write: null }
  it('shows the context window and the price where the catalogue knows them', () => {
    assert.equal(
      modelLine({ id: 'gpt-x', context_window: 400_000, cost }),
      'gpt-x  400k context · $1.25/$10 per M',
    )
    assert.equal(modelLine({ id: 'bare', context_window: null, cost: { ...cost, input: null } }), 'bare')
  })
})

/** A picker over fixed rows that records what it is told. */
class Fixed extends ListPicker {
  chosen: number[] = []
  changes: string[] = []
  closed = 0
  readonly list: string[]
  constructor(list: string[]) {
    super({ theme: makeTheme(false), rows: () => 12, requestRender: () => {}, close: () => this.closed++ })
    this.list = list
  }
  get typed(): string {
    return this.text
  }
  protected title() {
    return 'Fixed'
  }
  protected hint() {
    return 'hint'
  }
  protected items(): PickerRow[] {
    return this.list.map((text) => ({ text }))
  }
  protected textChanged() {
    this.changes.push(this.text)
  }
  protected choose(i: number) {
    this.chosen.push(i)
  }
}

describe('the list picker', () => {
  it('edits its line from typed keys and a bracketed paste, moves, chooses and leaves', () => {
    const p = new Fixed(['a', 'b', 'c'])
    for (const k of ['f', 'o', '\x7f', 'x']) p.handleInput(k)
    p.handleInput('\x1b[200~pasted\nline\x1b[201~')
    assert.equal(p.typed, 'fxpastedline')
    p.handleInput('\x15') // Ctrl-U
    assert.equal(p.typed, '')
    assert.deepEqual(p.changes.at(-1), '')
    p.handleInput('\x1b[B') // Down
    p.handleInput('\x1b[B')
    p.handleInput('\x1b[B')
    p.handleInput('\r')
    assert.deepEqual(p.chosen, [2])
    const screen = p.render(30).map((l) => l.replace(/\x1b\[[0-9;]*m/g, ''))
    assert.ok(
      screen.some((l) => l.startsWith('› c')),
      screen.join('\n'),
    )
    assert.ok(screen.every((l) => l.length <= 30))
    p.handleInput('\x1b')
    assert.equal(p.closed, 1)
  })

  it('moves three rows a notch of the mouse wheel (SGR or legacy reports), and no report is typed', () => {
    const p = new Fixed(Array.from({ length: 10 }, (_, i) => `row ${i}`))
    p.handleInput('\x1b[<65;3;4M') // wheel down
    p.handleInput('\x1b[<65;3;4M')
    p.handleInput('\x1b[<64;3;4M') // wheel up
    p.handleInput('\x1b[M`!!') // legacy wheel up (button 64 + 32)
    p.handleInput('\x1b[Ma!!') // legacy wheel down
    p.handleInput('\x1b[<0;3;4M') // a click: nothing
    p.handleInput('\x1b[<0;3;4m')
    p.handleInput('\r')
    assert.deepEqual(p.chosen, [3])
    assert.equal(p.typed, '')
  })
})

describe('mouse reports', () => {
  it('reads the wheel with any modifier, other buttons as no wheel, and other input as none', () => {
    assert.deepEqual(parseMouse('\x1b[<64;1;1M'), { wheel: 'up' })
    assert.deepEqual(parseMouse('\x1b[<69;1;1M'), { wheel: 'down' }) // with Shift
    assert.deepEqual(parseMouse('\x1b[<80;1;1M'), { wheel: 'up' }) // with Ctrl
    assert.deepEqual(parseMouse('\x1b[<2;10;3m'), {})
    assert.equal(parseMouse('\x1b[A'), undefined)
    assert.equal(parseMouse('x'), undefined)
    assert.equal(mouseWanted({}), true)
    assert.equal(mouseWanted({ HEARTH_MOUSE: 'off' }), false)
    assert.equal(mouseWanted({ HEARTH_MOUSE: '0' }), false)
  })
})
