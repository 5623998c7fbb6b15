// The blocks a transcript is made of: one per message, answer, reasoning, tool call,
// approval or notice. Each renders itself to lines of a given width and keeps them until
// it changes, so a frame costs only what changed.

import { StreamingMarkdown } from './markdown.ts'
import { type Component, truncateToWidth, wrapTextWithAnsi } from './pi.ts'
import type { Theme } from './theme.ts'

/** Plain text wrapped to the width, each line styled. */
export function wrapped(text: string, width: number, style: (s: string) => string = (s) => s): string[] {
  const out: string[] = []
  for (const line of text.split('\n')) {
    for (const w of wrapTextWithAnsi(line, Math.max(1, width))) out.push(style(w))
  }
  return out
}

/** A block's lines behind a prefix on the first line and an indent on the rest. */
function prefixed(lines: string[], first: string, rest: string): string[] {
  return lines.map((l, i) => (i === 0 ? first : rest) + l)
}

abstract class CachedBlock implements Component {
  #lines: string[] | undefined
  #width = 0
  protected changed(): void {
    this.#lines = undefined
  }
  invalidate(): void {
    this.#lines = undefined
  }
  render(width: number): string[] {
    if (!this.#lines || this.#width !== width) {
      this.#lines = this.draw(width)
      this.#width = width
    }
    return this.#lines
  }
  protected abstract draw(width: number): string[]
}

export class UserBlock extends CachedBlock {
  readonly theme: Theme
  readonly inputId: string | undefined
  #text: string
  #pending: boolean
  constructor(theme: Theme, text: string, inputId: string | undefined, pending: boolean) {
    super()
    this.theme = theme
    this.#text = text
    this.inputId = inputId
    this.#pending = pending
  }
  delivered(): void {
    this.#pending = false
    this.changed()
  }
  protected draw(width: number): string[] {
    const t = this.theme
    const body = wrapped(this.#text, width - 2, (s) => t.bold(s))
    const lines = prefixed(body, `${t.user('›')} `, '  ')
    if (this.#pending) lines.push(t.dim('  (sending…)'))
    return lines
  }
}

export class AnswerBlock extends CachedBlock {
  readonly theme: Theme
  readonly runId: string | undefined
  readonly md: StreamingMarkdown
  #status: string | undefined
  constructor(theme: Theme, runId: string | undefined, text = '', status?: string) {
    super()
    this.theme = theme
    this.runId = runId
    this.md = new StreamingMarkdown(theme, text, '  ')
    this.#status = status
  }
  append(delta: string): void {
    this.md.append(delta)
    this.changed()
  }
  finish(text: string | undefined, status: string | undefined): void {
    if (text !== undefined) this.md.setText(text)
    this.#status = status
    this.changed()
  }
  override invalidate(): void {
    this.md.invalidate()
    super.invalidate()
  }
  protected draw(width: number): string[] {
    const lines = this.md.render(width)
    return this.#status === 'interrupted' ? [...lines, this.theme.warn('  (interrupted)')] : lines
  }
}

/** Reasoning, dimmed; collapsed to its first line unless the transcript shows reasoning. */
export class ReasoningBlock extends CachedBlock {
  readonly theme: Theme
  readonly expanded: () => boolean
  readonly runId: string | undefined
  #text: string
  constructor(theme: Theme, expanded: () => boolean, runId: string | undefined, text = '') {
    super()
    this.theme = theme
    this.expanded = expanded
    this.runId = runId
    this.#text = text
  }
  append(delta: string): void {
    this.#text += delta
    this.changed()
  }
  finish(text: string | undefined): void {
    if (text !== undefined) this.#text = text
    this.changed()
  }
  protected draw(width: number): string[] {
    const t = this.theme
    const text = this.#text.trim()
    if (!this.expanded()) {
      const first = text.split('\n').find((l) => l.trim() !== '') ?? ''
      return [truncateToWidth(t.dim(t.italic(`  ∴ ${first}`)), width, '…')]
    }
    return prefixed(
      wrapped(text, width - 4, (s) => t.dim(t.italic(s))),
      t.dim('  ∴ '),
      '    ',
    )
  }
}

/** The last lines of a tool call's output shown under it while it runs. */
const TOOL_OUTPUT_LINES = 6
/** Output kept per tool call: its last lines only (the whole is in the history). */
const TOOL_OUTPUT_KEEP = 200

export class ToolBlock extends CachedBlock {
  readonly theme: Theme
  readonly callId: string
  readonly name: string
  readonly summary: string
  readonly effect: string | undefined
  #output: string[] = []
  #partial = ''
  #outcome: string | undefined
  #detail: string | undefined
  constructor(theme: Theme, callId: string, name: string, summary: string, effect: string | undefined) {
    super()
    this.theme = theme
    this.callId = callId
    this.name = name
    this.summary = summary
    this.effect = effect
  }
  get ended(): boolean {
    return this.#outcome !== undefined
  }
  progress(text: string): void {
    const parts = (this.#partial + text).split('\n')
    this.#partial = parts.pop() ?? ''
    this.#output.push(...parts)
    if (this.#output.length > TOOL_OUTPUT_KEEP) this.#output.splice(0, this.#output.length - TOOL_OUTPUT_KEEP)
    this.changed()
  }
  end(outcome: string, output: unknown, meta: Record<string, unknown> | undefined): void {
    this.#outcome = outcome
    if (this.#output.length === 0 && this.#partial === '' && typeof output === 'string') this.progress(output)
    const code = meta?.exit_code
    const dropped = meta?.progress_dropped_bytes
    const details = [
      code !== undefined && code !== null ? `exit ${code}` : '',
      typeof dropped === 'number' ? `${dropped.toLocaleString('en')} bytes not streamed` : '',
    ].filter(Boolean)
    this.#detail = details.length > 0 ? details.join(', ') : undefined
    this.changed()
  }
  protected draw(width: number): string[] {
    const t = this.theme
    const mark = this.#outcome === undefined ? t.warn('⋯') : this.#outcome === 'ok' ? t.ok('✓') : t.error('✗')
    const outcome = this.#outcome ? t.dim(` ${this.#outcome}${this.#detail ? `, ${this.#detail}` : ''}`) : ''
    const head = `  ${mark} ${t.bold(this.name)} ${this.summary}${outcome}`
    const lines = [truncateToWidth(head, width, '…')]
    const out = [...this.#output, ...(this.#partial ? [this.#partial] : [])].slice(-TOOL_OUTPUT_LINES)
    for (const l of out) lines.push(truncateToWidth(t.dim(`    │ ${l}`), width, '…'))
    return lines
  }
}

export type Decision = 'allow' | 'deny'

export class ApprovalBlock extends CachedBlock {
  readonly theme: Theme
  readonly requestId: string
  readonly tool: string
  readonly summary: string
  readonly effect: string | undefined
  #decision: string | undefined
  constructor(theme: Theme, requestId: string, tool: string, summary: string, effect: string | undefined) {
    super()
    this.theme = theme
    this.requestId = requestId
    this.tool = tool
    this.summary = summary
    this.effect = effect
  }
  get open(): boolean {
    return this.#decision === undefined
  }
  decided(decision: string): void {
    this.#decision = decision
    this.changed()
  }
  protected draw(width: number): string[] {
    const t = this.theme
    const effect = this.effect ? t.dim(` (${this.effect})`) : ''
    const head = `  ${t.warn('?')} ${t.bold(this.tool)} ${this.summary}${effect}`
    const lines = wrapped(head, width)
    lines.push(
      this.#decision === undefined
        ? `    ${t.warn('allow?')} ${t.bold('y')} allow · ${t.bold('n')} deny · ${t.bold('a')} always for this session`
        : t.dim(
            `    ${this.#decision === 'allow' ? 'allowed' : this.#decision === 'deny' ? 'denied' : this.#decision}`,
          ),
    )
    return lines.map((l) => truncateToWidth(l, width, '…'))
  }
}

export class NoticeBlock extends CachedBlock {
  readonly text: string
  readonly style: (s: string) => string
  constructor(text: string, style: (s: string) => string) {
    super()
    this.text = text
    this.style = style
  }
  protected draw(width: number): string[] {
    return wrapped(this.text, width - 2, this.style).map((l) => `  ${l}`)
  }
}
