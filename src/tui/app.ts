// The full-screen client: a pi-tui TUI on the alternate screen holding the chat screen,
// which shows the pickers and the login and quota screens in its place. The first frame is
// drawn before the session is open, so the prompt takes keys at once; a message typed
// meanwhile waits for the session.

import type { HearthClient } from '../client/client.ts'
import { ChatScreen } from './chat-screen.ts'
import { loadHighlighter } from './highlight.ts'
import { loadMarkdown } from './markdown.ts'
import { MOUSE_OFF, MOUSE_ON, mouseWanted } from './mouse.ts'
import { ProcessTerminal, TuiMainScreen } from './pi.ts'
import { QuotaStatus } from './quota-status.ts'
import { SessionLink } from './session-link.ts'
import type { Theme } from './theme.ts'
import { Transcript } from './transcript.ts'

export interface AppOptions {
  client: () => HearthClient
  theme: Theme
  workspace: string
  /** The session to open; a new one in `workspace` (created with its first message) when absent. */
  sessionId?: string
}

const ALT_SCREEN_ON = '\x1b[?1049h'
const ALT_SCREEN_OFF = '\x1b[?1049l'

/** Runs the client until the user quits; resolves with the exit code and the session open then. */
export function runApp(o: AppOptions): Promise<{ code: number; sessionId: string | undefined }> {
  const terminal = new ProcessTerminal()
  const tui = new TuiMainScreen(terminal)
  const transcript = new Transcript(o.theme)
  const link = new SessionLink(o.client, transcript)
  const quota = new QuotaStatus(o.client, () => tui.requestRender())
  let done!: (end: { code: number; sessionId: string | undefined }) => void
  const finished = new Promise<{ code: number; sessionId: string | undefined }>((r) => {
    done = r
  })
  const mouse = mouseWanted()
  let quitting = false
  const quit = (code = 0) => {
    if (quitting) return
    quitting = true
    link.close()
    tui.stop()
    process.stdout.write((mouse ? MOUSE_OFF : '') + ALT_SCREEN_OFF)
    done({ code, sessionId: link.id })
  }
  const chat = new ChatScreen({
    tui,
    link,
    theme: o.theme,
    workspace: o.workspace,
    rows: () => terminal.rows,
    quit: () => quit(0),
    quota: () => quota.text,
  })
  // The quota item is read again for another session or profile, and after each run.
  let quotaOf: string | undefined
  // The command templates are read again for another session.
  let templatesOf: string | undefined
  link.onChange = () => {
    tui.requestRender()
    chat.sessionChanged()
    const s = link.session
    if (s && s.id !== templatesOf) {
      templatesOf = s.id
      chat.refreshTemplates()
    }
    // A new session not created yet shows the quota of the profile it will get.
    const shown = s ?? link.draftView
    const key = shown && `${shown.id ?? 'new'} ${shown.provider_profile}`
    if (shown && key !== quotaOf) {
      quotaOf = key
      void quota.refresh(shown)
    }
  }
  link.onRunEnded = () => void quota.refresh(link.session)
  process.stdout.write(ALT_SCREEN_ON + (mouse ? MOUSE_ON : ''))
  tui.addChild(chat)
  tui.setFocus(chat)
  // A typed key is drawn at once: pi-tui draws the frame after a key reaches the focused
  // component without waiting for its 16 ms frame interval (a streaming answer's frames do).
  tui.start()
  // The first frame is drawn on the next tick, before anything else: opening the session
  // loads Node's fetch and the grammars take tens of milliseconds, so both wait for it.
  tui.requestRender(true)
  const opening = new Promise<void>((resolve, reject) =>
    setImmediate(() => {
      // A new session is created with its first message (SessionLink.startNew).
      const open = o.sessionId ? link.open(o.sessionId) : Promise.resolve(link.startNew(o.workspace))
      open.then(resolve, reject)
      // A session opened with its history needs Markdown at once; a new one shows none until
      // its first answer, so its opening goes first.
      ;(o.sessionId ? Promise.resolve() : open.catch(() => {}))
        .then(() => loadMarkdown())
        .then(() => {
          transcript.invalidate()
          tui.requestRender()
        })
    }),
  )
  link.ready = opening
  opening.catch((err) => {
    transcript.notice(`could not open the session: ${(err as Error).message}`, o.theme.error)
    tui.requestRender()
  })
  // Code blocks drawn before the grammars are there are drawn again once they are.
  opening
    .catch(() => {})
    .then(() =>
      loadHighlighter(() => {
        transcript.invalidate()
        tui.requestRender()
      }),
    )
  process.once('SIGTERM', () => quit(143))
  process.once('SIGHUP', () => quit(129))
  return finished
}
