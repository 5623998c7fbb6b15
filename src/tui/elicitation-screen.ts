// The question screen: an MCP server of the open session asks the person something during
// one of its tool calls (status.blocking_reason of kind `elicitation`). A form shows each
// field with its type, limits, choices and default; Up/Down (or Tab) move between fields,
// typing fills the focused one, Left/Right step through a field's choices (or flip a yes/no),
// Enter sends (accept), Esc cancels, Ctrl-D declines. A URL shows the page and its message:
// y opens it (in the browser unless HEARTH_NO_BROWSER) and accepts, n declines, Esc cancels.
// The daemon's field errors (a 422) show under their fields; the screen closes once answered,
// or when the question is answered elsewhere or expires (the chat says so).
import { ProblemError } from '../client/client.ts'
import {
  ANSWERED,
  type Answer,
  choicesLine,
  contentOf,
  defaultText,
  type Field,
  fieldLabel,
  type Question,
  questionHead,
} from '../client/elicitation-view.ts'
import { openBrowser } from '../client/login.ts'
import { urlRows } from './login-screen.ts'
import { type Component, type Focusable, matchesKey, truncateToWidth, wrapTextWithAnsi } from './pi.ts'
import type { Theme } from './theme.ts'

export interface ElicitationScreenOptions {
  theme: Theme
  rows: () => number
  requestRender: () => void
  question: Question
  /** Sends the answer (an input of kind elicitation); throws its problem. */
  answer: (a: Answer) => Promise<void>
  /** Leaves the screen, saying what happened. */
  close: (said: string) => void
  env?: NodeJS.ProcessEnv
}

export class ElicitationScreen implements Component, Focusable {
  focused = false
  readonly #o: ElicitationScreenOptions
  readonly #fields: Field[]
  readonly #texts: Record<string, string> = {}
  #errors: Record<string, string> = {}
  #focus = 0
  #footer = ''
  #sending = false

  constructor(o: ElicitationScreenOptions) {
    this.#o = o
    this.#fields = o.question.fields ?? []
    for (const f of this.#fields) this.#texts[f.name] = defaultText(f)
  }

  get requestId(): string {
    return this.#o.question.request_id
  }

  /** An answer from here is on its way: its own close says how it went. */
  get answering(): boolean {
    return this.#sending
  }

  handleInput(data: string): void {
    if (this.#sending) return
    if (matchesKey(data, 'escape') || matchesKey(data, 'ctrl+d')) {
      void this.#send({ action: matchesKey(data, 'escape') ? 'cancel' : 'decline' })
      return
    }
    if (this.#o.question.mode === 'url') {
      this.#urlKey(data)
      return
    }
    if (matchesKey(data, 'enter')) {
      this.#submit()
      return
    }
    const field = this.#fields[this.#focus]
    if (matchesKey(data, 'up') || matchesKey(data, 'shift+tab')) this.#move(-1)
    else if (matchesKey(data, 'down') || matchesKey(data, 'tab')) this.#move(1)
    else if (field && (matchesKey(data, 'left') || matchesKey(data, 'right')))
      this.#step(field, matchesKey(data, 'left') ? -1 : 1)
    else if (field) this.#type(field, data)
    this.#o.requestRender()
  }

  #urlKey(data: string): void {
    if (/^[yY]$/.test(data)) {
      const opened = openBrowser(this.#o.question.url ?? '', this.#o.env)
      void this.#send({ action: 'accept' }, opened ? 'opened in the browser' : 'open it yourself')
    } else if (/^[nNdD]$/.test(data)) void this.#send({ action: 'decline' })
  }

  #move(by: number): void {
    const n = this.#fields.length
    if (n > 0) this.#focus = (this.#focus + by + n) % n
  }

  /** Left/Right: the previous or next choice, or a yes/no flipped. */
  #step(f: Field, by: number): void {
    if (f.type === 'boolean') {
      this.#texts[f.name] = this.#texts[f.name] === 'y' ? 'n' : 'y'
      return
    }
    if (!f.options || f.type === 'array') return
    const at = f.options.findIndex((o) => o.value === this.#texts[f.name])
    const next = (at + by + f.options.length + (at < 0 && by < 0 ? 1 : 0)) % f.options.length
    this.#texts[f.name] = f.options[next].value
  }

  #type(f: Field, data: string): void {
    const text = this.#texts[f.name] ?? ''
    if (matchesKey(data, 'backspace')) this.#texts[f.name] = text.slice(0, -1)
    else if (matchesKey(data, 'ctrl+u')) this.#texts[f.name] = ''
    else {
      const pasted = data.startsWith('\x1b[200~')
      const typed = data.replace(/\x1b\[20[01]~/g, '').replace(/[\x00-\x1f\x7f]/g, '')
      if (typed === '' || (!pasted && data.startsWith('\x1b'))) return
      this.#texts[f.name] = text + typed
    }
    delete this.#errors[f.name]
  }

  #submit(): void {
    const r = contentOf(this.#fields, this.#texts)
    if ('errors' in r) {
      this.#errors = r.errors
      this.#footer = 'fix the fields marked, then Enter'
      this.#o.requestRender()
      return
    }
    void this.#send({ action: 'accept', content: r.content })
  }

  async #send(a: Answer, note?: string): Promise<void> {
    this.#sending = true
    this.#footer = 'sending…'
    this.#o.requestRender()
    try {
      await this.#o.answer(a)
      const said = `${questionHead(this.#o.question)} — ${ANSWERED[a.action]}`
      this.#o.close(note ? `${said} (${note})` : said)
    } catch (err) {
      this.#sending = false
      if (err instanceof ProblemError && err.status === 409)
        return this.#o.close(`not answered: ${err.problem.detail ?? err.problem.title}`)
      const problem = err instanceof ProblemError ? (err.problem as { errors?: unknown }) : {}
      const errors = problem.errors as { field: string; message: string }[] | undefined
      if (Array.isArray(errors)) this.#errors = Object.fromEntries(errors.map((e) => [e.field, e.message]))
      this.#footer = `not sent: ${err instanceof ProblemError ? (err.problem.detail ?? err.problem.title) : (err as Error).message}`
      this.#o.requestRender()
    }
  }

  invalidate(): void {}

  render(width: number): string[] {
    const t = this.#o.theme
    const q = this.#o.question
    const rows = Math.max(5, this.#o.rows())
    const body = [t.bold(`MCP server ${q.server} asks`), t.dim('─'.repeat(width))]
    body.push(...wrapTextWithAnsi(q.message, width), '')
    if (q.mode === 'url') body.push(...urlRows(q.url ?? '', width))
    else body.push(...this.#fieldLines(width))
    const hint =
      q.mode === 'url'
        ? 'y open it · n decline · Esc cancel'
        : 'Up/Down field · Left/Right choice · Enter send · Ctrl-D decline · Esc cancel'
    const foot = [t.dim('─'.repeat(width)), ...wrapTextWithAnsi(this.#footer, width), t.dim(hint)]
    const height = Math.max(1, rows - foot.length)
    const lines = body.slice(0, height)
    while (lines.length < height) lines.push('')
    return [...lines, ...foot].map((l) => truncateToWidth(l, width, '…'))
  }

  #fieldLines(width: number): string[] {
    const t = this.#o.theme
    const out: string[] = []
    this.#fields.forEach((f, i) => {
      const focused = i === this.#focus
      out.push(`${focused ? '› ' : '  '}${t.bold(fieldLabel(f))}`)
      if (f.description) out.push(...wrapTextWithAnsi(t.dim(f.description), width - 4).map((l) => `    ${l}`))
      const choices = choicesLine(f)
      if (choices) out.push(...wrapTextWithAnsi(t.dim(choices), width - 4).map((l) => `    ${l}`))
      const text = this.#texts[f.name] ?? ''
      out.push(`    ${text}${focused ? t.inverse(' ') : ''}`)
      const error = this.#errors[f.name]
      if (error) out.push(`    ${t.error(error)}`)
    })
    return out
  }
}
