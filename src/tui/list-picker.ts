// A full-screen list to choose from, the base of the session and model pickers: a title, a
// line of typed text (a search, or a value being entered), the rows around the selection,
// and a footer for hints and outcomes. Up/Down/PageUp/PageDown move, typing edits the line
// (Backspace, Ctrl-U clears it; its owner is told, to filter or search), Esc or Ctrl-C leaves; every other key goes to
// the owner first.

import { parseMouse } from './mouse.ts'
import { type Component, type Focusable, matchesKey, truncateToWidth } from './pi.ts'
import type { Theme } from './theme.ts'

/** Rows one notch of the mouse wheel moves. */
const WHEEL_ROWS = 3

export interface PickerRow {
  /** The line shown; the picker cuts it to the width. */
  text: string
  dim?: boolean
}

export interface ListPickerOptions {
  theme: Theme
  rows: () => number
  requestRender: () => void
  /** Leave the picker. */
  close: () => void
}

export abstract class ListPicker implements Component, Focusable {
  focused = false
  protected readonly o: ListPickerOptions
  protected selected = 0
  /** The typed line. */
  protected text = ''
  /** What the typed line is, shown before it ("search", "name"). */
  protected textLabel = 'search'
  protected footer = ''
  protected footerKind: 'info' | 'warn' | 'error' = 'info'

  constructor(o: ListPickerOptions) {
    this.o = o
  }

  protected abstract title(): string
  protected abstract hint(): string
  protected abstract items(): PickerRow[]
  /** The typed line changed. */
  protected abstract textChanged(): void
  /** Enter on the selected row. */
  protected abstract choose(index: number): void
  /** Keys the owner handles before the list (true: handled). */
  protected onKey(_data: string): boolean {
    return false
  }
  /** Esc: leave, unless the owner undoes a step first (true: handled). */
  protected back(): boolean {
    return false
  }

  protected say(text: string, kind: 'info' | 'warn' | 'error' = 'info'): void {
    this.footer = text
    this.footerKind = kind
    this.o.requestRender()
  }

  /** Moves the selection by `by` rows, within the list. */
  protected move(by: number): void {
    const count = this.items().length
    this.selected = Math.max(0, Math.min(count - 1, this.selected + by))
    this.moved()
    this.o.requestRender()
  }

  /** The selection moved (a long list reads more rows near its end). */
  protected moved(): void {}

  /** Rows the list shows at once (PageUp/PageDown move by this much). */
  protected pageRows(): number {
    return Math.max(1, this.o.rows() - 6)
  }

  protected render_(): void {
    this.o.requestRender()
  }

  handleInput(data: string): void {
    if (matchesKey(data, 'escape') || matchesKey(data, 'ctrl+c')) {
      if (!this.back()) this.o.close()
      return
    }
    const mouse = parseMouse(data)
    if (mouse) {
      if (mouse.wheel) this.move(mouse.wheel === 'up' ? -WHEEL_ROWS : WHEEL_ROWS)
      return
    }
    if (this.onKey(data)) return
    const count = this.items().length
    const page = this.pageRows()
    const step = keyStep(data, page)
    if (step !== null) {
      this.move(step)
      return
    }
    if (matchesKey(data, 'enter')) {
      if (count > 0) this.choose(this.selected)
      return
    }
    if (matchesKey(data, 'backspace') || matchesKey(data, 'ctrl+u')) {
      if (this.text === '') return
      this.text = matchesKey(data, 'ctrl+u') ? '' : this.text.slice(0, -1)
      this.selected = 0
      this.textChanged()
      this.o.requestRender()
      return
    }
    // Printable text (typed or pasted; a paste's brackets and line breaks dropped).
    const pasted = data.startsWith('\x1b[200~')
    const typed = data.replace(/\x1b\[20[01]~/g, '').replace(/[\x00-\x1f\x7f]/g, '')
    if (typed !== '' && (pasted || !data.startsWith('\x1b'))) {
      this.text += typed
      this.selected = 0
      this.textChanged()
      this.o.requestRender()
    }
  }

  invalidate(): void {}

  render(width: number): string[] {
    const t = this.o.theme
    const rows = Math.max(5, this.o.rows())
    const items = this.items()
    this.selected = Math.max(0, Math.min(items.length - 1, this.selected))
    const head = [
      t.bold(this.title()),
      `${t.dim(`${this.textLabel}:`)} ${this.text}${t.inverse(' ')}`,
      t.dim('─'.repeat(width)),
    ]
    const foot = [
      t.dim('─'.repeat(width)),
      this.footer
        ? this.footerKind === 'error'
          ? t.error(this.footer)
          : this.footerKind === 'warn'
            ? t.warn(this.footer)
            : this.footer
        : '',
      t.dim(this.hint()),
    ]
    const height = Math.max(1, rows - head.length - foot.length)
    const first = Math.max(0, Math.min(this.selected - Math.floor(height / 2), items.length - height))
    const body = items.slice(first, first + height).map((r, i) => {
      const mine = first + i === this.selected
      const line = `${mine ? '› ' : '  '}${r.text}`
      return mine ? t.inverse(truncateToWidth(line, width)) : r.dim ? t.dim(line) : line
    })
    if (items.length === 0) body.push(t.dim('  (none)'))
    while (body.length < height) body.push('')
    return [...head, ...body, ...foot].map((l) => truncateToWidth(l, width, '…'))
  }
}

/** The rows an arrow or page key moves by (`page` for a page key); null for another key. */
export function keyStep(data: string, page: number): number | null {
  if (matchesKey(data, 'up')) return -1
  if (matchesKey(data, 'down')) return 1
  if (matchesKey(data, 'pageUp')) return -page
  if (matchesKey(data, 'pageDown')) return page
  return null
}
