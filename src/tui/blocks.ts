// The blocks a transcript is made of: one per message, answer, reasoning, tool call,
// approval or notice. Each renders itself to lines of a given width and keeps them until
// it changes, so a frame costs only what changed.

import {
  type ApprovalRequest,
  alwaysCovers,
  approvalDetails,
  callHeading,
  type DetailLine,
  decisionText,
} from '../client/approval-view.ts'
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

/** A text the history page cut: its size, and how to read it whole. */
export interface CutText {
  bytes: number | undefined
  read: () => Promise<string>
  redraw: () => void
}

/**
 * The mark under a cut text, and the read of its whole the first time the block is drawn
 * (it came into view); once the whole text is set, the mark goes.
 */
class WholeText {
  readonly #cut: CutText
  /** 'cut' until drawn, 'reading', 'whole', or why the read failed. */
  #state = 'cut'
  constructor(cut: CutText) {
    this.#cut = cut
  }
  /** Starts the read when first asked; the mark for now, or undefined once whole. */
  mark(theme: Theme, setText: (text: string) => void, changed: () => void): string | undefined {
    if (this.#state === 'whole') return undefined
    if (this.#state === 'cut') {
      this.#state = 'reading'
      this.#cut.read().then(
        (text) => {
          this.#state = 'whole'
          setText(text)
          changed()
          this.#cut.redraw()
        },
        (err) => {
          this.#state = `could not be read: ${(err as Error).message}`
          changed()
          this.#cut.redraw()
        },
      )
    }
    const size = this.#cut.bytes ? ` (${this.#cut.bytes.toLocaleString('en')} bytes in all)` : ''
    const why = this.#state === 'reading' ? 'reading the rest…' : `the rest ${this.#state}`
    return theme.warn(`  … cut here${size}: ${why}`)
  }
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
  #whole: WholeText | undefined
  delivered(): void {
    this.#pending = false
    this.changed()
  }
  /** The text is the start of a longer one, read whole when the block is first drawn. */
  cut(cut: CutText): void {
    this.#whole = new WholeText(cut)
  }
  protected draw(width: number): string[] {
    const t = this.theme
    const setText = (text: string) => {
      this.#text = text
    }
    const mark = this.#whole?.mark(t, setText, () => this.changed())
    const body = wrapped(this.#text, width - 2, (s) => t.bold(s))
    const lines = prefixed(body, `${t.user('›')} `, '  ')
    if (mark) lines.push(mark)
    if (this.#pending) lines.push(t.dim('  (sending…)'))
    return lines
  }
}

export class AnswerBlock extends CachedBlock {
  readonly theme: Theme
  readonly runId: string | undefined
  readonly md: StreamingMarkdown
  #status: string | undefined
  #whole: WholeText | undefined
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
  /** The text is the start of a longer one, read whole when the block is first drawn. */
  cut(cut: CutText): void {
    this.#whole = new WholeText(cut)
  }
  override invalidate(): void {
    this.md.invalidate()
    super.invalidate()
  }
  protected draw(width: number): string[] {
    const mark = this.#whole?.mark(
      this.theme,
      (text) => this.md.setText(text),
      () => this.changed(),
    )
    const lines = [...this.md.render(width), ...(mark ? [mark] : [])]
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

/** The last lines of a tool call's output shown under it (all kept ones with details shown). */
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
  #approval: ApprovalBlock | undefined
  /** Lines dropped from the start of what is kept. */
  #dropped = 0
  #partial = ''
  #outcome: string | undefined
  #detail: string | undefined
  /** Whether the transcript shows details (all the output kept; Ctrl-T). */
  readonly expanded: () => boolean
  constructor(
    theme: Theme,
    callId: string,
    name: string,
    summary: string,
    effect: string | undefined,
    expanded: () => boolean = () => false,
  ) {
    super()
    this.theme = theme
    this.expanded = expanded
    this.callId = callId
    this.name = name
    this.summary = summary
    this.effect = effect
  }
  get ended(): boolean {
    return this.#outcome !== undefined
  }
  /** The call's approval, asked under its heading (the call is named once). */
  ask(approval: ApprovalBlock): void {
    this.#approval = approval
    approval.onChange = () => this.changed()
    this.changed()
  }
  progress(text: string): void {
    const parts = (this.#partial + text).split('\n')
    this.#partial = parts.pop() ?? ''
    this.#output.push(...parts)
    if (this.#output.length > TOOL_OUTPUT_KEEP)
      this.#dropped += this.#output.splice(0, this.#output.length - TOOL_OUTPUT_KEEP).length
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
    const asking = this.#outcome === undefined && this.#approval?.open
    const mark =
      this.#outcome === undefined
        ? t.warn(asking ? '?' : '⋯')
        : this.#outcome === 'ok'
          ? t.ok('✓')
          : t.error('✗')
    const outcome = this.#outcome ? t.dim(` ${this.#outcome}${this.#detail ? `, ${this.#detail}` : ''}`) : ''
    const effect = asking && this.effect ? t.dim(` (${this.effect})`) : ''
    const head = `  ${mark} ${t.bold(callHeading(this.name, this.summary))}${effect}${outcome}`
    const lines = [truncateToWidth(head, width, '…'), ...(this.#approval?.body(width) ?? [])]
    const all = [...this.#output, ...(this.#partial ? [this.#partial] : [])]
    if (this.expanded()) {
      // Every line kept, wrapped rather than cut.
      if (this.#dropped > 0) lines.push(t.dim(`    … ${this.#dropped} earlier lines not kept here`))
      for (const l of all)
        lines.push(...prefixed(wrapped(l, width - 6, t.dim), t.dim('    │ '), t.dim('    │ ')))
      return lines
    }
    const hidden = this.#dropped + Math.max(0, all.length - TOOL_OUTPUT_LINES)
    if (hidden > 0)
      lines.push(t.dim(`    … ${hidden} more line${hidden === 1 ? '' : 's'} (Ctrl-T shows them)`))
    for (const l of all.slice(-TOOL_OUTPUT_LINES))
      lines.push(truncateToWidth(t.dim(`    │ ${l}`), width, '…'))
    return lines
  }
}

export type Decision = 'allow' | 'deny'

/** Where an approval stands: asked, answered from here (waiting for its event), decided, or gone. */
type ApprovalState =
  | { kind: 'open' }
  | { kind: 'answering' }
  | { kind: 'decided'; decision: string; remember?: string }
  | { kind: 'closed'; why: string }

export class ApprovalBlock extends CachedBlock {
  readonly theme: Theme
  readonly request: ApprovalRequest
  /** The run that asked (unknown for the request of a session opened while it waited). */
  readonly runId: string | undefined
  readonly #details: DetailLine[]
  #state: ApprovalState = { kind: 'open' }
  constructor(theme: Theme, request: ApprovalRequest, runId: string | undefined, workspace?: string) {
    super()
    this.theme = theme
    this.request = request
    this.runId = runId
    this.#details = approvalDetails(request, workspace)
  }
  get requestId(): string {
    return this.request.request_id
  }
  /** Still waiting for a decision (answered from here counts as waiting until it is recorded). */
  get open(): boolean {
    return this.#state.kind === 'open' || this.#state.kind === 'answering'
  }
  /** Open, and not yet answered from here: keys answer it. */
  get askable(): boolean {
    return this.#state.kind === 'open'
  }
  answering(): void {
    this.#set({ kind: 'answering' })
  }
  /** The answer could not be sent: it can be given again. */
  unanswered(): void {
    if (this.#state.kind === 'answering') this.#set({ kind: 'open' })
  }
  decided(decision: string, remember?: string): void {
    this.#set({ kind: 'decided', decision, remember })
  }
  /** No longer pending without a decision seen here (the run ended, it expired). */
  close(why: string): void {
    if (this.open) this.#set({ kind: 'closed', why })
  }
  #set(state: ApprovalState): void {
    this.#state = state
    this.changed()
    this.onChange()
  }
  /** Told when the state changes (the call's block that draws this one draws again). */
  onChange: () => void = () => {}
  protected draw(width: number): string[] {
    const t = this.theme
    const effect = this.request.effect ? t.dim(` (${this.request.effect})`) : ''
    const heading = `${t.warn('?')} ${t.bold(callHeading(this.request.tool, this.request.summary))}${effect}`
    return [...prefixed(wrapped(heading, width - 2), '  ', '    '), ...this.body(width)]
  }
  /** The details and the answer line: drawn under the call's own block when it has one. */
  body(width: number): string[] {
    const lines: string[] = []
    for (const d of this.#details) lines.push(...detailLine(this.theme, d, width))
    lines.push(...prefixed(wrapped(this.#answerLine(), width - 4), '    ', '    '))
    return lines
  }
  #answerLine(): string {
    const t = this.theme
    const s = this.#state
    if (s.kind === 'open')
      return `${t.warn('allow?')} ${t.bold('y')} allow · ${t.bold('n')} deny · ${t.bold('a')} always: ${alwaysCovers(this.request)} · ${t.bold('Esc')} deny`
    if (s.kind === 'answering') return t.dim('answering…')
    if (s.kind === 'decided') return t.dim(decisionText(s.decision, s.remember))
    return t.dim(s.why)
  }
}

const DETAIL_MARK: Record<DetailLine['kind'], string> = { text: '  ', note: '', remove: '- ', add: '+ ' }

/** A detail of an approval, wrapped (a command line is shown whole) and styled by its kind. */
function detailLine(t: Theme, d: DetailLine, width: number): string[] {
  const style =
    d.kind === 'add' ? t.ok : d.kind === 'remove' ? t.error : d.kind === 'note' ? t.dim : (s: string) => s
  return wrapped(`${DETAIL_MARK[d.kind]}${d.text}`, width - 6).map((l) => `      ${style(l)}`)
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
