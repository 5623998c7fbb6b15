// The chat screen: the transcript's window, the status line and the editor, filling the
// terminal. Keys: PageUp/PageDown scroll, Ctrl-T shows details (reasoning, tool output),
// y/n/a answer an open approval (with an empty editor) and Esc denies it, else Esc or
// Ctrl-C interrupts the run in progress, a second Ctrl-C quits; everything else edits the
// message. Lines starting with / are commands. The pickers and screens it shows in its
// place (sessions, model, login, quota) are ./overlays.ts.

import { parseSlash } from '../client/catalog.ts'
import { ProblemError } from '../client/client.ts'
import type { ApprovalBlock } from './blocks.ts'
import { type CommandContext, parseCommand } from './commands.ts'
import { parseMouse } from './mouse.ts'
import { errorText, Overlays } from './overlays.ts'
import {
  type Component,
  Editor,
  type Focusable,
  matchesKey,
  type TUI,
  truncateToWidth,
  wrapTextWithAnsi,
} from './pi.ts'
import type { SessionLink } from './session-link.ts'
import { statusLine } from './status-line.ts'
import { LiveCompletion, Templates } from './templates.ts'
import { editorTheme, type Theme } from './theme.ts'
import { windowOf } from './window.ts'

/** What an empty session's screen says. */
const EMPTY_HINT =
  'Type a message, Enter sends · Alt-Enter new line · / commands (/help) · Ctrl-O sessions · Ctrl-C twice quits'

/** Within this long, a second Ctrl-C quits. */
const QUIT_WINDOW_MS = 2000
/** Rows one notch of the mouse wheel scrolls. */
const WHEEL_ROWS = 3

export interface ChatScreenOptions {
  tui: TUI
  link: SessionLink
  theme: Theme
  workspace: string
  rows: () => number
  quit: () => void
  /** The quota of the account in use, for the status line (undefined: nothing shown). */
  quota?: () => string | undefined
}

export class ChatScreen implements Component, Focusable {
  readonly editor: Editor
  /** The session's command templates (src/tui/templates.ts). */
  readonly templates: Templates
  readonly #completion: LiveCompletion
  readonly #o: ChatScreenOptions
  /** Rows scrolled up from the bottom, and whether the window shows the first row held. */
  #offset = 0
  /** A page read failed: no more are read until the next scroll. */
  #pagingFailed = false
  #lastCtrlC = 0
  #note: string | undefined
  #noteTimer: NodeJS.Timeout | undefined
  #focused = false
  /** The pickers and screens shown in place of the chat (./overlays.ts). */
  readonly #overlays: Overlays

  constructor(o: ChatScreenOptions) {
    this.#o = o
    this.editor = new Editor(o.tui, editorTheme(o.theme), { paddingX: 1, autocompleteMaxVisible: 6 })
    const completion = new LiveCompletion(o.workspace)
    this.#completion = completion
    this.editor.setAutocompleteProvider(completion)
    this.templates = new Templates((items) => completion.set(items))
    this.editor.onSubmit = (text) => this.#submit(text)
    this.#overlays = new Overlays({
      tui: o.tui,
      theme: o.theme,
      rows: o.rows,
      link: o.link,
      workspace: o.workspace,
      say: this.#say,
      toBottom: () => {
        this.#offset = 0
      },
    })
    o.link.onOwnRunFailed = (problem) => this.#overlays.loginAfterFailure(problem)
    // A reopened session's messages are recalled by Up like ones sent from here.
    o.link.onOpenedMessages = (texts) => {
      for (const text of texts) this.editor.addToHistory(text)
    }
  }

  get focused(): boolean {
    return this.#focused
  }
  set focused(v: boolean) {
    this.#focused = v
    this.editor.focused = v
  }

  get #link(): SessionLink {
    return this.#o.link
  }

  /** A short message in the status line for a few seconds. */
  note(text: string, ms = 3000): void {
    this.#note = text
    clearTimeout(this.#noteTimer)
    this.#noteTimer = setTimeout(() => {
      this.#note = undefined
      this.#o.tui.requestRender()
    }, ms)
    this.#noteTimer.unref()
    this.#o.tui.requestRender()
  }

  #say: CommandContext['say'] = (text, kind = 'info') => {
    const t = this.#o.theme
    this.#link.transcript.notice(text, kind === 'error' ? t.error : kind === 'warn' ? t.warn : t.dim)
    this.#offset = 0
    // Read far back, the notice waits at the end: the end is shown again.
    this.#link.toEnd().catch(() => {})
    this.#o.tui.requestRender()
  }

  #submit(text: string): void {
    if (text.trim() === '') return
    this.editor.addToHistory(text)
    this.#offset = 0
    const cmd = parseCommand(text)
    if (!cmd?.command && parseSlash(text)) {
      this.templates.send(this.#link, text, this.#say)
      return
    }
    if (cmd?.command) {
      const ctx: CommandContext = {
        link: this.#link,
        args: cmd.args,
        say: this.#say,
        quit: this.#o.quit,
        workspace: this.#o.workspace,
        pickSession: () => this.#overlays.pickSession(),
        pickModel: () => this.#overlays.pickModel(),
        login: (provider) => void this.#overlays.openLogin({ provider, start: provider !== undefined }),
        quota: () => this.#overlays.openQuota(),
        changes: (mode) => this.#overlays.openChanges(mode),
        templates: this.templates,
      }
      Promise.resolve(cmd.command.run(ctx)).catch((err) =>
        this.#say(`/${cmd.name}: ${errorText(err)}`, 'error'),
      )
      return
    }
    this.#link.send(text).catch((err) => this.#say(`not sent: ${errorText(err)}`, 'error'))
  }

  /** The open session changed: an MCP server's question shows (or goes) with it. */
  sessionChanged(): void {
    this.#overlays.syncQuestion(this.#link.session?.status.blocking_reason)
  }

  /** Reads the open session's templates again (another session opened). */
  refreshTemplates(): void {
    const id = this.#link.id
    if (id) this.templates.refresh(this.#link.client(), id).catch(() => {})
  }

  handleInput(data: string): void {
    const tui = this.#o.tui
    const link = this.#link
    if (this.#overlays.handleInput(data)) return
    const mouse = parseMouse(data)
    if (mouse) {
      if (mouse.wheel) this.#scroll(mouse.wheel === 'up' ? WHEEL_ROWS : -WHEEL_ROWS)
      return
    }
    if (matchesKey(data, 'ctrl+o')) {
      this.#overlays.pickSession()
      return
    }
    if (matchesKey(data, 'ctrl+c')) {
      this.#ctrlC()
      return
    }
    const approval = link.transcript.openApproval
    if (matchesKey(data, 'escape') && !this.editor.isShowingAutocomplete()) {
      // Esc dismisses a question by denying it (the run goes on); otherwise it interrupts.
      if (approval) this.#answer(approval, 'n')
      else if (link.session?.status.run_id) this.#interrupt()
      return
    }
    if (matchesKey(data, 'pageUp') || matchesKey(data, 'pageDown')) {
      this.#scroll(matchesKey(data, 'pageUp') ? this.#pageRows() : -this.#pageRows())
      return
    }
    if (matchesKey(data, 'ctrl+t')) {
      link.transcript.showReasoning = !link.transcript.showReasoning
      link.transcript.invalidate()
      tui.requestRender()
      return
    }
    // Enter on a command whose argument is complete runs it (the list would only complete it).
    if (matchesKey(data, 'enter') && this.editor.isShowingAutocomplete())
      if (this.#completion.completeArgument(this.editor.getText())) this.editor.handleInput('\x1b')
    if (approval && this.editor.getText() === '' && /^[yna]$/i.test(data)) {
      this.#answer(approval, data.toLowerCase())
      return
    }
    this.editor.handleInput(data)
  }

  /** y allows once, a allows for the session, n denies. */
  #answer(approval: ApprovalBlock, key: string): void {
    const decision = key === 'n' ? 'deny' : 'allow'
    const remember = key === 'a' ? 'session' : 'once'
    this.#link.approve(approval, decision, remember).catch((err) => {
      // A request no longer pending: its block says so.
      if (!(err instanceof ProblemError && err.status === 409))
        this.#say(`approval not sent: ${errorText(err)}`, 'error')
    })
  }

  #ctrlC(): void {
    const now = Date.now()
    if (now - this.#lastCtrlC < QUIT_WINDOW_MS) {
      this.#o.quit()
      return
    }
    this.#lastCtrlC = now
    if (this.#link.session?.status.run_id) this.#interrupt()
    else if (this.editor.getText() !== '') this.editor.setText('')
    this.note('Ctrl-C again to quit', QUIT_WINDOW_MS)
  }

  #interrupt(): void {
    this.#link.interrupt().catch((err) => {
      this.#say(`could not interrupt: ${errorText(err)}`, 'error')
      void this.#link.refresh()
    })
  }

  #pageRows(): number {
    return Math.max(1, this.#o.rows() - 8)
  }

  #scroll(by: number): void {
    this.#offset = Math.max(0, this.#offset + by)
    this.#pagingFailed = false
    this.#o.tui.requestRender()
  }

  /**
   * Reads the page past either end of the window once the window reaches it: older entries
   * at the top, and newer ones at the bottom when the newest were dropped while reading back.
   */
  #readMore(atTop: boolean, height: number): void {
    const link = this.#link
    const t = link.transcript
    if (this.#pagingFailed) return
    const failed = (err: unknown) => {
      this.#pagingFailed = true
      this.#say(`history: ${errorText(err)}`, 'error')
    }
    if (atTop && t.hasOlder) link.loadOlder().catch(failed)
    if (!t.atEnd && this.#offset < height) link.loadNewer().catch(failed)
  }

  invalidate(): void {
    this.editor.invalidate()
    this.#link.transcript.invalidate()
  }

  render(width: number): string[] {
    const rows = Math.max(3, this.#o.rows())
    const overlay = this.#overlays.top
    if (overlay) return overlay.render(width).slice(0, rows)
    const editor = this.editor.render(width)
    const link = this.#link
    const status = statusLine(
      link.session ?? link.draftView,
      width,
      this.#o.theme,
      this.#note,
      this.#o.quota?.(),
    )
    const height = Math.max(1, rows - editor.length - 1)
    const transcript = this.#link.transcript
    // Pages read or dropped below the window since the last frame keep the window in place.
    this.#offset = Math.max(0, this.#offset + transcript.takeShift())
    const win = windowOf(transcript, width, height, this.#offset)
    this.#offset = win.offset
    this.#readMore(win.atTop, height)
    const lines = win.lines.map((l) => truncateToWidth(l, width))
    // A session with nothing in it yet (or a new one, created with its first message) says
    // how to begin.
    if (transcript.blocks.length === 0 && !transcript.hasOlder && (this.#link.session || this.#link.draft))
      lines.push(...wrapTextWithAnsi(this.#o.theme.dim(EMPTY_HINT), width).slice(0, height))
    while (lines.length < height) lines.unshift('')
    if (!transcript.atEnd) lines[lines.length - 1] = this.#o.theme.dim('  ↓ newer entries below (PageDown)')
    else if (this.#offset > 0)
      lines[lines.length - 1] = this.#o.theme.dim(`  ↓ ${this.#offset} more lines (PageDown)`)
    return [...lines, status, ...editor].slice(-rows)
  }
}
