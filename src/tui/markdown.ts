// Markdown to terminal lines, through pi-tui's Markdown component (marked parses it) with
// code blocks highlighted (./highlight.ts). A streaming answer is cut into blocks: once a
// block is followed by a blank line outside a code fence it is sealed and its lines are
// kept, so each frame parses only the growing last block, however long the answer gets.
import type { Markdown } from '@earendil-works/pi-tui/dist/components/markdown.js'
import { highlightLines } from './highlight.ts'
import { type Component, wrapTextWithAnsi } from './pi.ts'
import { markdownTheme, type Theme } from './theme.ts'

let MarkdownComponent: typeof Markdown | undefined
let loading: Promise<void> | undefined

/** Loads the Markdown renderer (pi-tui's component and marked) once. */
export function loadMarkdown(): Promise<void> {
  loading ??= import('@earendil-works/pi-tui/dist/components/markdown.js').then((m) => {
    MarkdownComponent = m.Markdown
  })
  return loading
}

/** Text shown as it is until the renderer is loaded (the first frame has no Markdown). */
class PlainText implements Component {
  readonly #text: string
  constructor(text: string) {
    this.#text = text
  }
  invalidate(): void {}
  render(width: number): string[] {
    return this.#text.split('\n').flatMap((l) => wrapTextWithAnsi(l, Math.max(1, width)))
  }
}

export function markdownComponent(text: string, theme: Theme): Component {
  if (!MarkdownComponent) return new PlainText(text)
  const md = markdownTheme(theme, (code, lang) => highlightLines(code, lang, theme) ?? code.split('\n'))
  return new MarkdownComponent(text, 0, 0, md)
}

/** Markdown text rendered to lines of at most `width` columns. */
export function markdownLines(text: string, width: number, theme: Theme): readonly string[] {
  return markdownComponent(text, theme).render(width)
}

const FENCE = /^ {0,3}(```|~~~)/

export class StreamingMarkdown implements Component {
  readonly #theme: Theme
  readonly #indent: string
  /** The sealed blocks' lines at #width (indented, a blank line between blocks). */
  #sealedLines: string[] = []
  #sealedDrawn = 0
  /** Sealed blocks, never parsed again (each caches its lines per width). */
  #sealed: Component[] = []
  /**
   * The text as it came, in pieces: appending to one long string and searching it would
   * flatten the whole string on every delta (gigabytes of copies over a long answer).
   */
  #parts: string[] = []
  /** Complete lines of the block not yet sealed, and the line still being written. */
  #block = ''
  #line = ''
  #inFence = false
  #tail: Component | undefined
  #tailText = ''
  #lines: string[] | undefined
  #width = 0

  /** `indent` goes before every line (the width given to render includes it). */
  constructor(theme: Theme, text = '', indent = '') {
    this.#theme = theme
    this.#indent = indent
    if (text) this.append(text)
  }

  get text(): string {
    if (this.#parts.length > 1) this.#parts = [this.#parts.join('')]
    return this.#parts[0] ?? ''
  }

  append(delta: string): void {
    if (delta === '') return
    this.#parts.push(delta)
    let from = 0
    for (let nl = delta.indexOf('\n'); nl >= 0; nl = delta.indexOf('\n', from)) {
      this.#completeLine(this.#line + delta.slice(from, nl))
      this.#line = ''
      from = nl + 1
    }
    this.#line += delta.slice(from)
    this.#lines = undefined
  }

  /** Replaces the whole text (a final entry that differs from what streamed). */
  setText(text: string): void {
    if (text === this.text) return
    this.#sealed.length = 0
    this.#sealedLines = []
    this.#sealedDrawn = 0
    this.#parts = []
    this.#block = this.#line = ''
    this.#inFence = false
    this.append(text)
  }

  #reseal(): void {
    const text = this.text
    this.#parts = []
    this.#sealed = []
    this.#block = this.#line = ''
    this.#inFence = false
    this.#tail = undefined
    this.append(text)
  }

  /** Seals the block at a blank line outside a code fence. */
  #completeLine(line: string): void {
    if (FENCE.test(line)) this.#inFence = !this.#inFence
    else if (!this.#inFence && line.trim() === '') {
      if (this.#block.trim() !== '') this.#sealed.push(markdownComponent(this.#block, this.#theme))
      this.#block = ''
      return
    }
    this.#block += `${line}\n`
  }

  invalidate(): void {
    // Blocks made before the renderer was loaded are made again.
    if (
      MarkdownComponent &&
      (this.#tail instanceof PlainText || this.#sealed.some((m) => m instanceof PlainText))
    )
      this.#reseal()
    for (const m of this.#sealed) m.invalidate()
    this.#tail?.invalidate()
    this.#lines = undefined
    this.#sealedLines = []
    this.#sealedDrawn = 0
  }

  /**
   * Sealed blocks are drawn once per width and kept; a frame draws only the last block and
   * copies the kept lines (no new strings), so a long answer does not churn memory.
   */
  render(width: number): string[] {
    if (this.#lines && width === this.#width) return this.#lines
    if (width !== this.#width) {
      this.#sealedLines = []
      this.#sealedDrawn = 0
    }
    const inner = Math.max(1, width - this.#indent.length)
    for (; this.#sealedDrawn < this.#sealed.length; this.#sealedDrawn++) {
      if (this.#sealedLines.length > 0) this.#sealedLines.push('')
      for (const l of this.#sealed[this.#sealedDrawn].render(inner)) this.#sealedLines.push(this.#indent + l)
    }
    const tailText = this.#block + this.#line
    if (!this.#tail || tailText !== this.#tailText) {
      this.#tail = markdownComponent(tailText, this.#theme)
      this.#tailText = tailText
    }
    const lines = this.#sealedLines.slice()
    if (tailText.trim() !== '') {
      if (lines.length > 0) lines.push('')
      for (const l of this.#tail.render(inner)) lines.push(this.#indent + l)
    }
    this.#width = width
    this.#lines = lines
    return lines
  }
}
