// Markdown to terminal lines, through pi-tui's Markdown component (marked parses it) with
// code blocks highlighted (./highlight.ts). A streaming answer is cut into blocks: once a
// block is followed by a blank line outside a code fence it is sealed and its lines are
// kept, so each frame parses only the growing last block, however long the answer gets.
import { type Component, Markdown } from '@mariozechner/pi-tui'
import { highlightLines } from './highlight.ts'
import { markdownTheme, type Theme } from './theme.ts'

export function markdownComponent(text: string, theme: Theme): Markdown {
  const md = markdownTheme(theme, (code, lang) => highlightLines(code, lang, theme) ?? code.split('\n'))
  return new Markdown(text, 0, 0, md)
}

/** Markdown text rendered to lines of at most `width` columns. */
export function markdownLines(text: string, width: number, theme: Theme): string[] {
  return markdownComponent(text, theme).render(width)
}

const FENCE = /^ {0,3}(```|~~~)/

export class StreamingMarkdown implements Component {
  readonly #theme: Theme
  /** Sealed blocks, never parsed again (each caches its lines per width). */
  readonly #sealed: Markdown[] = []
  #text = ''
  /** Where the unsealed text starts, and how far complete lines were scanned. */
  #blockStart = 0
  #scanned = 0
  #inFence = false
  #tail: Markdown | undefined
  #tailText = ''
  #lines: string[] | undefined
  #width = 0

  constructor(theme: Theme, text = '') {
    this.#theme = theme
    if (text) this.append(text)
  }

  get text(): string {
    return this.#text
  }

  append(delta: string): void {
    this.#text += delta
    this.#scan()
    this.#lines = undefined
  }

  /** Replaces the whole text (a final entry that differs from what streamed). */
  setText(text: string): void {
    if (text === this.#text) return
    this.#sealed.length = 0
    this.#text = ''
    this.#blockStart = this.#scanned = 0
    this.#inFence = false
    this.append(text)
  }

  /** Seals blocks at blank lines outside fences, looking only at lines not yet scanned. */
  #scan(): void {
    for (;;) {
      const nl = this.#text.indexOf('\n', this.#scanned)
      if (nl < 0) return
      const line = this.#text.slice(this.#scanned, nl)
      this.#scanned = nl + 1
      if (FENCE.test(line)) this.#inFence = !this.#inFence
      else if (!this.#inFence && line.trim() === '') {
        const block = this.#text.slice(this.#blockStart, nl)
        if (block.trim() !== '') this.#sealed.push(markdownComponent(block, this.#theme))
        this.#blockStart = this.#scanned
      }
    }
  }

  invalidate(): void {
    for (const m of this.#sealed) m.invalidate()
    this.#tail?.invalidate()
    this.#lines = undefined
  }

  render(width: number): string[] {
    if (this.#lines && width === this.#width) return this.#lines
    const tailText = this.#text.slice(this.#blockStart)
    if (!this.#tail || tailText !== this.#tailText) {
      this.#tail = markdownComponent(tailText, this.#theme)
      this.#tailText = tailText
    }
    const lines: string[] = []
    for (const m of this.#sealed) {
      if (lines.length > 0) lines.push('')
      lines.push(...m.render(width))
    }
    if (tailText.trim() !== '') {
      if (lines.length > 0) lines.push('')
      lines.push(...this.#tail.render(width))
    }
    this.#width = width
    this.#lines = lines
    return lines
  }
}
