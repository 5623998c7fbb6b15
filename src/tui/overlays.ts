// The screens the chat shows in its place until they close: the session and model
// pickers, the login screen, the quota screen and the changes screen (/diff, /undo, /redo), one over another (a login over the model
// picker). Each one's module loads with import() when it first opens, never at start: the
// first frame needs none of them. Kept apart from ./chat-screen.ts, which asks for them and,
// while one shows, gives it the keys and the rows.

import type { Question } from '../client/elicitation-view.ts'
import { advisesLogin } from '../client/login.ts'
import { extensionOfProfile } from '../client/profiles.ts'
import type { ChangesMode } from './changes-screen.ts'
import type { CommandContext } from './commands.ts'
import type { Component, TUI } from './pi.ts'
import type { SessionLink } from './session-link.ts'
import type { Theme } from './theme.ts'

export interface LoginRequest {
  /** The provider (extension) to choose at first. */
  provider?: string
  /** Start its sign-in at once. */
  start?: boolean
  /** Why the screen opened by itself. */
  reason?: string
}

/** A screen shown in place of the chat (a picker) until it closes. */
type Overlay = Component & { handleInput(data: string): void }

/** What the screens need of the chat that opens them. */
export interface OverlayHost {
  tui: TUI
  theme: Theme
  rows: () => number
  link: SessionLink
  workspace: string
  say: CommandContext['say']
  /** The chat's window goes back to its newest lines (another session opened). */
  toBottom: () => void
}

export class Overlays {
  readonly #o: OverlayHost
  /** Screens shown in place of the chat, the top one showing (a login over the model picker). */
  readonly #stack: Overlay[] = []
  /** Keys typed while a picker's module loads, given to it once it shows. */
  #keys: string[] | undefined

  constructor(o: OverlayHost) {
    this.#o = o
  }

  /** The screen showing, if any. */
  get top(): Overlay | undefined {
    return this.#stack.at(-1)
  }

  /** Gives a key to the screen showing (or loading); false when none is. */
  handleInput(data: string): boolean {
    if (this.#keys) {
      this.#keys.push(data)
      return true
    }
    if (this.top) {
      this.top.handleInput(data)
      return true
    }
    return false
  }

  /** Shows a picker in place of the chat (or `over` the one showing); its close() comes back. */
  #show(load: () => Promise<Overlay>, over = false): void {
    if ((this.top && !over) || this.#keys) return
    const keys: string[] = []
    this.#keys = keys
    load().then(
      (overlay) => {
        this.#keys = undefined
        this.#stack.push(overlay)
        for (const k of keys) overlay.handleInput(k)
        this.#o.tui.requestRender(true)
      },
      (err) => {
        this.#keys = undefined
        this.#o.say(`could not open: ${errorText(err)}`, 'error')
      },
    )
  }

  #close = (): void => {
    this.#stack.pop()
    this.#o.tui.requestRender(true)
  }

  #pickerBase() {
    return {
      theme: this.#o.theme,
      rows: this.#o.rows,
      requestRender: () => this.#o.tui.requestRender(),
      close: this.#close,
    }
  }

  /** The session picker; its module and its data load when it opens, not at start. */
  pickSession(): void {
    const link = this.#o.link
    this.#show(() =>
      import('./session-picker.ts').then(
        ({ SessionPicker }) =>
          new SessionPicker({
            ...this.#pickerBase(),
            client: link.client,
            current: () => link.id,
            open: async (id, note) => {
              this.#close()
              this.#o.toBottom()
              await link.open(id)
              if (note) this.#o.say(note)
            },
            deletedCurrent: async () => link.startNew(this.#o.workspace),
          }),
      ),
    )
  }

  pickModel(): void {
    const link = this.#o.link
    this.#show(() =>
      import('./model-picker.ts').then(
        ({ ModelPicker }) =>
          new ModelPicker({
            ...this.#pickerBase(),
            client: link.client,
            session: () => link.session,
            configure: (patch) => link.configure(patch),
            signIn: (provider) => this.openLogin({ provider, start: true }, true),
          }),
      ),
    )
  }

  /**
   * The login screen; resolves when it closes, true when a sign-in completed there. `over`
   * shows it over the screen showing (the model picker) rather than only over the chat.
   */
  openLogin(r: LoginRequest = {}, over = false): Promise<boolean> {
    const link = this.#o.link
    return new Promise((resolve) => {
      if (this.top && !over) return resolve(false)
      this.#show(
        () =>
          import('./login-screen.ts').then(
            ({ LoginScreen }) =>
              new LoginScreen({
                ...this.#pickerBase(),
                ...r,
                client: link.client,
                close: (signedIn) => {
                  this.#close()
                  if (signedIn) this.#o.say(r.reason ? 'signed in; send the message again' : 'signed in')
                  resolve(signedIn)
                },
              }),
          ),
        over,
      )
    })
  }

  /** The run answering a message sent from here failed with `run /login`: the login screen for the session's provider. */
  loginAfterFailure(problem: { title?: string; detail?: string | null }): void {
    const link = this.#o.link
    if (!advisesLogin(problem) || this.top || this.#keys) return
    const profile = link.session?.provider_profile
    const extension = profile
      ? extensionOfProfile(link.client(), profile).catch(() => undefined)
      : Promise.resolve(undefined)
    void extension.then((provider) =>
      this.openLogin({ provider, reason: `the turn failed: ${problem.detail ?? problem.title ?? ''}` }),
    )
  }

  /** The changes screen of /diff, /undo or /redo on the open session; it loads when it opens. */
  openChanges(mode: ChangesMode): void {
    const link = this.#o.link
    const session = link.session
    if (!session) {
      this.#o.say(`/${mode}: no session yet (it starts with your first message)`, 'warn')
      return
    }
    this.#show(() =>
      import('./changes-screen.ts').then(
        ({ ChangesScreen }) =>
          new ChangesScreen({
            ...this.#pickerBase(),
            client: link.client,
            mode,
            sessionId: session.id,
            workspace: session.workspace,
            say: this.#o.say,
          }),
      ),
    )
  }

  /**
   * Keeps the question screen in step with the session's blocking reason: an MCP server's
   * question opens it (over whatever shows), and one answered elsewhere or expired closes it.
   */
  syncQuestion(reason: { kind: string; request_id: string } | null | undefined): void {
    const shown = this.#stack.find((o) => 'requestId' in o) as
      | (Overlay & { requestId: string; answering: boolean })
      | undefined
    if (shown && shown.requestId !== reason?.request_id && !shown.answering) {
      this.#stack.splice(this.#stack.indexOf(shown), 1)
      this.#o.say('the MCP server’s question was answered elsewhere or expired', 'warn')
      this.#o.tui.requestRender(true)
    }
    if (reason?.kind !== 'elicitation' || this.#keys) return
    if (this.#stack.some((o) => (o as { requestId?: string }).requestId === reason.request_id)) return
    const link = this.#o.link
    const question = reason as unknown as Question
    this.#show(
      () =>
        import('./elicitation-screen.ts').then(
          ({ ElicitationScreen }) =>
            new ElicitationScreen({
              ...this.#pickerBase(),
              question,
              answer: (a) => link.answerQuestion(question.request_id, a),
              close: (said) => {
                const at = this.#stack.findIndex(
                  (o) => (o as { requestId?: string }).requestId === question.request_id,
                )
                if (at >= 0) this.#stack.splice(at, 1)
                this.#o.say(said)
                this.#o.tui.requestRender(true)
              },
            }),
        ),
      true,
    )
  }

  /** The quota screen; its module and readings load when it opens. */
  openQuota(): void {
    const link = this.#o.link
    this.#show(() =>
      import('./quota-screen.ts').then(
        ({ QuotaScreen }) => new QuotaScreen({ ...this.#pickerBase(), client: link.client }),
      ),
    )
  }
}

/** What an error says in the chat: its message, else its text. */
export function errorText(err: unknown): string {
  const e = err as { code?: string; message?: string }
  return e?.message ?? String(err)
}
