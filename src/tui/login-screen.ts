// The login screen (/login): the sign-in providers of GET /auth with their chooser label,
// account state and detail (policy warnings included), then one sign-in through the
// shared client flow (src/client/login.ts): the URL shown whole (and opened in the browser
// unless HEARTH_NO_BROWSER), a line for the pasted callback address or code (a device
// login shows its code instead and finishes by itself), the progress, and the result. A
// provider with a `cli` flow also offers it (key g: the token of its signed-in tool). It also opens by itself, for the provider concerned, when a run from the
// open chat fails with `run /login`, and when the model picker's chosen profile is signed out.

import { createHash } from 'node:crypto'
import type { Static } from 'typebox'
import type { HearthClient } from '../client/client.ts'
import { defaultFlow, LoginFlow, openBrowser, signedInAs, userCodeOf } from '../client/login.ts'
import type { AuthProvider, Login } from '../schemas/auth.ts'
import { type Component, type Focusable, matchesKey, truncateToWidth, wrapTextWithAnsi } from './pi.ts'
import type { Theme } from './theme.ts'

type Provider = Static<typeof AuthProvider>
type FooterKind = 'info' | 'warn' | 'error' | 'ok'

export interface LoginScreenOptions {
  theme: Theme
  rows: () => number
  requestRender: () => void
  /** Leave the screen; `signedIn` when a sign-in completed here. */
  close: (signedIn: boolean) => void
  client: () => HearthClient
  /** The provider (extension) to choose at first. */
  provider?: string
  /** Start the sign-in to `provider` at once. */
  start?: boolean
  /** Why the screen opened by itself, shown above the list. */
  reason?: string
  env?: NodeJS.ProcessEnv
}

export class LoginScreen implements Component, Focusable {
  focused = false
  readonly #o: LoginScreenOptions
  #providers: Provider[] = []
  #selected = 0
  #loading = true
  #flow: LoginFlow | undefined
  #login: Login | undefined
  #browser: 'opened' | 'not opened' | undefined
  #pasted = ''
  #footer = ''
  #footerKind: FooterKind = 'info'
  #signedIn = false
  #closed = false
  /** A sign-in is being started (a second Enter starts no second one). */
  #starting = false

  constructor(o: LoginScreenOptions) {
    this.#o = o
    void this.#load()
  }

  async #load(): Promise<void> {
    try {
      const { body } = await this.#o.client().call('auth.get')
      this.#providers = body.providers
      const wanted = this.#providers.findIndex((p) => p.extension === this.#o.provider)
      if (wanted >= 0) this.#selected = wanted
      else if (this.#o.provider) this.#say(`${this.#o.provider} has no sign-in here`, 'warn')
      if (this.#providers.length === 0) this.#say('no provider signs in here', 'warn')
      if (this.#o.start && wanted >= 0) void this.#start(this.#providers[wanted])
    } catch (err) {
      this.#say(`could not read the providers: ${(err as Error).message}`, 'error')
    } finally {
      this.#loading = false
      this.#o.requestRender()
    }
  }

  #say(text: string, kind: FooterKind = 'info'): void {
    this.#footer = text
    this.#footerKind = kind
    this.#o.requestRender()
  }

  async #start(p: Provider, kind: Login['flow'] = defaultFlow(p)): Promise<void> {
    if (this.#starting) return
    this.#starting = true
    try {
      await this.#run(p, kind)
    } finally {
      this.#starting = false
    }
  }

  async #run(p: Provider, kind: Login['flow']): Promise<void> {
    this.#pasted = ''
    this.#browser = undefined
    this.#say(`starting the sign-in to ${p.label}…`)
    let flow: LoginFlow
    try {
      flow = await LoginFlow.start(this.#o.client(), p.extension, kind)
    } catch (err) {
      this.#say(`could not start: ${(err as Error).message}`, 'error')
      return
    }
    if (this.#closed) {
      void flow.cancel().catch(() => {})
      return
    }
    this.#flow = flow
    this.#login = flow.login
    if (flow.login.state === 'waiting' && flow.login.url !== '')
      this.#browser = openBrowser(flow.login.url, this.#o.env) ? 'opened' : 'not opened'
    this.#say('')
    this.#starting = false
    const last = await flow
      .follow((l) => this.#update(l))
      .catch((err: Error) => {
        this.#say(`lost the sign-in: ${err.message}`, 'error')
        return undefined
      })
    if (last && this.#flow === flow) this.#update(last)
  }

  #update(l: Login): void {
    if (this.#login?.id !== l.id) return
    this.#login = l
    if (l.state === 'complete') {
      this.#signedIn = true
      const who = signedInAs(l)
      this.#say(`signed in${who ? ` as ${who}` : ''}`, 'ok')
    } else if (l.state === 'failed')
      this.#say(`the sign-in failed${l.failure ? `: ${l.failure}` : ''}`, 'error')
    else if (l.state === 'cancelled') this.#say('the sign-in was cancelled', 'warn')
    this.#o.requestRender()
  }

  #send(): void {
    const flow = this.#flow
    const text = this.#pasted.trim()
    if (!flow || text === '' || flow.done) return
    this.#pasted = ''
    this.#say('sending…')
    flow.answer(text).then(
      (l) => {
        this.#say('')
        this.#update(l)
      },
      (err) =>
        this.#say(
          (err as { problem?: { detail?: string } }).problem?.detail ?? (err as Error).message,
          'error',
        ),
    )
  }

  /** Back from a sign-in to the list (cancelling it when unfinished), or out of the screen. */
  #back(): void {
    const flow = this.#flow
    if (flow) {
      this.#flow = undefined
      this.#login = undefined
      if (!flow.done) {
        void flow.cancel().catch(() => {})
        this.#say('cancelled', 'warn')
      }
      // Opened to sign in to one provider at once (the model picker, /login PROVIDER): back
      // where it came from; opened on the list: back to the list, unless signed in.
      if (!this.#o.start && !this.#signedIn) {
        void this.#reloadStates()
        return
      }
    }
    this.#closed = true
    this.#o.close(this.#signedIn)
  }

  async #reloadStates(): Promise<void> {
    try {
      const { body } = await this.#o.client().call('auth.get')
      this.#providers = body.providers
    } catch {
      // the list stays as it was
    }
    this.#o.requestRender()
  }

  handleInput(data: string): void {
    if (matchesKey(data, 'escape') || matchesKey(data, 'ctrl+c')) {
      this.#back()
      return
    }
    if (this.#flow) {
      this.#flowKey(data)
      return
    }
    if (matchesKey(data, 'up') || matchesKey(data, 'down')) {
      const by = matchesKey(data, 'up') ? -1 : 1
      this.#selected = Math.max(0, Math.min(this.#providers.length - 1, this.#selected + by))
      this.#o.requestRender()
      return
    }
    const p = this.#providers[this.#selected]
    if (p && matchesKey(data, 'enter')) void this.#start(p)
    else if (p?.flows.includes('cli') && data === 'g') void this.#start(p, 'cli')
  }

  #flowKey(data: string): void {
    if (this.#flow?.done) {
      if (matchesKey(data, 'enter')) this.#back()
      return
    }
    if (this.#login?.flow === 'device' || this.#login?.flow === 'cli') return // nothing to paste
    if (matchesKey(data, 'enter')) {
      this.#send()
      return
    }
    if (matchesKey(data, 'backspace')) this.#pasted = this.#pasted.slice(0, -1)
    else if (matchesKey(data, 'ctrl+u')) this.#pasted = ''
    else {
      // Typed or pasted text; a paste's brackets and line breaks dropped.
      const pasted = data.startsWith('\x1b[200~')
      const text = data.replace(/\x1b\[20[01]~/g, '').replace(/[\x00-\x1f\x7f]/g, '')
      if (text === '' || (!pasted && data.startsWith('\x1b'))) return
      this.#pasted += text
    }
    this.#o.requestRender()
  }

  invalidate(): void {}

  render(width: number): string[] {
    const t = this.#o.theme
    const rows = Math.max(5, this.#o.rows())
    const body = this.#login ? this.#flowLines(this.#login, width) : this.#listLines(width)
    const footer =
      this.#footerKind === 'error'
        ? t.error(this.#footer)
        : this.#footerKind === 'warn'
          ? t.warn(this.#footer)
          : this.#footerKind === 'ok'
            ? t.ok(this.#footer)
            : this.#footer
    const hint = this.#login
      ? this.#flow?.done
        ? 'Enter or Esc back'
        : this.#login.flow === 'device' || this.#login.flow === 'cli'
          ? 'this finishes by itself · Esc cancel'
          : 'paste the address the browser ends on (or the code), Enter send · Esc cancel'
      : this.#providers[this.#selected]?.flows.includes('cli')
        ? 'Up/Down choose · Enter sign in · g use the signed-in command-line tool · Esc back'
        : 'Up/Down choose · Enter sign in · Esc back'
    const foot = [t.dim('─'.repeat(width)), ...wrapTextWithAnsi(footer, width), t.dim(hint)]
    const height = Math.max(1, rows - foot.length)
    const lines = body.slice(0, height)
    while (lines.length < height) lines.push('')
    return [...lines, ...foot].map((l) => truncateToWidth(l, width, '…'))
  }

  #listLines(width: number): string[] {
    const t = this.#o.theme
    const out = [t.bold(`Sign in${this.#loading ? ' · loading…' : ''}`)]
    if (this.#o.reason) out.push(...wrapTextWithAnsi(t.warn(this.#o.reason), width))
    out.push(t.dim('─'.repeat(width)))
    this.#providers.forEach((p, i) => {
      const state = p.status === 'signed in' ? t.ok(p.status) : t.warn(p.status)
      const line = `${i === this.#selected ? '› ' : '  '}${p.label} (${p.extension})  ${state}`
      out.push(i === this.#selected ? t.inverse(truncateToWidth(line, width)) : line)
      for (const l of wrapTextWithAnsi(p.detail, Math.max(1, width - 4))) out.push(`    ${t.dim(l)}`)
      if (p.flows.includes('cli'))
        out.push(`    ${t.dim('g: take the token of the signed-in command-line tool (gh auth token)')}`)
    })
    if (!this.#loading && this.#providers.length === 0) out.push(t.dim('  (none)'))
    return out
  }

  #flowLines(l: Login, width: number): string[] {
    const t = this.#o.theme
    const p = this.#providers.find((x) => x.extension === l.provider)
    const out = [t.bold(`Sign in to ${p?.label ?? l.provider}`), t.dim('─'.repeat(width))]
    out.push(...wrapTextWithAnsi(l.instructions, width), '')
    if (l.url !== '') out.push(...urlRows(l.url, width), '')
    const code = l.state === 'waiting' ? userCodeOf(l) : null
    if (code) out.push(`${t.dim('code:')} ${t.bold(code)}`, '')
    if (this.#browser === 'opened') out.push(t.dim('opened in the browser'))
    else if (this.#browser === 'not opened')
      out.push(...wrapTextWithAnsi(t.dim('HEARTH_NO_BROWSER is set: open the address yourself'), width))
    const progress = l.progress ? ` · ${l.progress}` : ''
    out.push(...wrapTextWithAnsi(`${t.dim('state:')} ${l.state}${progress}`, width))
    if (!this.#flow?.done && (l.flow === 'browser' || l.flow === 'manual')) {
      // A long paste shows its end, where the typing goes on.
      const room = Math.max(1, width - 9)
      const shown = this.#pasted.length > room ? `…${this.#pasted.slice(-(room - 1))}` : this.#pasted
      out.push(`${t.dim('paste:')} ${shown}${t.inverse(' ')}`)
    }
    return out
  }
}

/**
 * A URL as rows of the screen's width, every character shown (never truncated), each row
 * one piece of a single OSC 8 hyperlink to the whole URL: the rows carry the same link id,
 * so a terminal that supports links treats them as one link (a click or "copy link" gives
 * the whole address); others show the plain text.
 */
export function urlRows(url: string, width: number): string[] {
  const id = `hearth-${createHash('sha256').update(url).digest('hex').slice(0, 12)}`
  const rows: string[] = []
  for (let i = 0; i < url.length; i += width)
    rows.push(`\x1b]8;id=${id};${url}\x1b\\${url.slice(i, i + width)}\x1b]8;;\x1b\\`)
  return rows
}
