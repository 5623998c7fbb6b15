// A session: its transcript, live through the session stream (resumed after a dropped
// connection with no gap and no repeat), older history read in as the reader scrolls up,
// what runs now (streaming text, running tool calls), a waiting approval answered in place,
// the queue of waiting messages, interrupt, and the message box.
import { useEffect, useRef, useState } from 'preact/hooks'
import { type ApiClient, ProblemError } from '../../api/client.ts'
import { followSession, type LinkState } from '../../api/stream.ts'
import { useRenderSoon } from '../../ui/render-soon.ts'
import { StreamingMarkdown } from '../../ui/streaming-markdown.tsx'
import { ApprovalCard } from './approval-card.tsx'
import { Composer } from './composer.tsx'
import { ConfigurationPanel } from './configuration-panel.tsx'
import { EntryView } from './entry-view.tsx'
import { QuestionCard } from './question-card.tsx'
import { SessionActions } from './session-actions.tsx'
import { type Entry, SessionState } from './session-store.ts'
import { SignInNotice } from './sign-in-notice.tsx'
import { useTranscriptWindow } from './transcript-window.ts'

const PAGE = 50

function useSession(client: ApiClient, sessionId: string) {
  const render = useRenderSoon()
  const [state] = useState(() => new SessionState())
  const [link, setLink] = useState<LinkState>('connecting')
  const [failure, setFailure] = useState<string>()
  useEffect(() => {
    const stop = new AbortController()
    followSession({
      client,
      sessionId,
      signal: stop.signal,
      tail: PAGE,
      onFrame: (f) => {
        state.apply(f)
        render()
      },
      onLink: setLink,
    }).catch((err) => setFailure(err instanceof ProblemError ? err.problem.detail : String(err)))
    return () => stop.abort()
  }, [client, sessionId])
  return { state, link, failure, render }
}

/** Reads the page of entries before the first held when the top of the transcript shows. */
function useOlderPages(client: ApiClient, sessionId: string, state: SessionState, render: () => void) {
  const sentinel = useRef<HTMLDivElement>(null)
  const loading = useRef(false)
  useEffect(() => {
    const el = sentinel.current
    if (!el) return
    const load = async () => {
      if (loading.current || !state.hasOlder || state.entries.length === 0) return
      loading.current = true
      try {
        const { body } = await client.call('history.list', {
          params: { session_id: sessionId },
          query: { before: state.entries[0].position, limit: PAGE },
        })
        state.prepend(body.items as Entry[], body.older !== null)
        render()
      } finally {
        loading.current = false
      }
      // The observer speaks only when the top comes into view: if it is in view again once
      // the page is drawn (a short page, or the reader went back up at once), read on.
      afterDraw(() => {
        if (inView(el)) void load()
      })
    }
    const observer = new IntersectionObserver(([seen]) => {
      if (seen.isIntersecting) void load()
    })
    observer.observe(el)
    return () => observer.disconnect()
  }, [sessionId])
  return sentinel
}

/** Runs after the next two frames: the render that render() asked for is drawn by then. */
function afterDraw(then: () => void): void {
  requestAnimationFrame(() => requestAnimationFrame(then))
}

/** Whether an element shows in its scrolled parent. */
function inView(el: HTMLElement): boolean {
  const parent = el.parentElement
  if (!el.isConnected || !parent) return false
  const box = el.getBoundingClientRect()
  const view = parent.getBoundingClientRect()
  return box.bottom > view.top && box.top < view.bottom
}

function Interrupt({
  client,
  state,
  sessionId,
}: {
  client: ApiClient
  state: SessionState
  sessionId: string
}) {
  const busy = state.phase === 'running' || state.phase === 'blocked' || state.phase === 'queued'
  if (!busy) return null
  return (
    <button
      type="button"
      class="interrupt"
      disabled={state.interruptRequested}
      onClick={() =>
        void client.call('sessions.interrupt', {
          params: { session_id: sessionId },
          body: { run_id: state.runId, through_input_order: state.inputOrder },
        })
      }
    >
      {state.interruptRequested ? 'Interrupting…' : 'Interrupt'}
    </button>
  )
}

function Live({ state }: { state: SessionState }) {
  return (
    <>
      {[...state.tools.values()].map((t) => (
        <article class="entry running-tool" key={t.callId}>
          <div class="tool-head">
            <span class={`effect effect-${t.effect}`}>{t.effect}</span> {t.summary || t.name}{' '}
            <span class="spinner">running</span>
          </div>
          {t.output ? <pre class="output">{t.output.slice(-4096)}</pre> : null}
        </article>
      ))}
      {[...state.active.values()].map((a) =>
        a.kind === 'reasoning' ? (
          <article class="entry entry-reasoning active" key={a.contentId}>
            <div class="text plain">{a.text}</div>
          </article>
        ) : (
          <article class="entry entry-assistant active" key={a.contentId} data-streaming="true">
            <StreamingMarkdown text={a.text} />
          </article>
        ),
      )}
    </>
  )
}

function Queue({ state }: { state: SessionState }) {
  if (state.pending.length === 0) return null
  return (
    <section class="queue" aria-label="waiting messages">
      <div class="note">
        {state.pending.length} waiting message{state.pending.length === 1 ? '' : 's'}
      </div>
      <ol>
        {state.pending.map((p) => (
          <li key={p.id}>{p.text}</li>
        ))}
      </ol>
    </section>
  )
}

export function SessionScreen({ client, sessionId }: { client: ApiClient; sessionId: string }) {
  const { state, link, failure, render } = useSession(client, sessionId)
  const scroller = useRef<HTMLElement>(null)
  const sentinel = useOlderPages(client, sessionId, state, render)
  const { range, list } = useTranscriptWindow(scroller, state.entries)
  const s = state.session
  if (failure)
    return (
      <main class="session-screen">
        <p class="error-text">{failure}</p>
      </main>
    )
  return (
    <main
      class="session-screen"
      data-link={link}
      data-phase={state.phase}
      data-frames={state.counters.frames}
      data-deltas={state.counters.deltas}
      data-last-id={state.counters.lastId}
    >
      <header class="session-head">
        <a href="#/" class="back" aria-label="back to sessions">
          ←
        </a>
        <div class="title">
          <h2>{s ? s.name || s.automatic_name || 'new session' : '…'}</h2>
          {s ? (
            <div class="meta">
              {s.provider_profile} · {s.model}
              {s.effort ? ` · ${s.effort}` : ''} ·{' '}
              <span class={`phase phase-${state.phase}`}>{state.phase}</span>
              {link !== 'live' ? <span class="link"> · {link}</span> : null}
            </div>
          ) : null}
        </div>
        <Interrupt client={client} state={state} sessionId={sessionId} />
      </header>
      <SessionActions client={client} sessionId={sessionId} />
      <ConfigurationPanel client={client} sessionId={sessionId} />
      <SignInNotice client={client} quarantine={state.quarantine} />
      <section
        class="transcript"
        ref={scroller}
        aria-label="transcript"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolled region takes focus so that the keys scroll it
        tabIndex={0}
      >
        <div ref={sentinel} class="older">
          {state.hasOlder ? 'older entries…' : state.session ? 'start of the session' : ''}
        </div>
        <div
          class="entries"
          ref={list}
          data-held={state.entries.length}
          data-first={state.entries[0]?.position}
          data-mounted={range.end - range.start}
        >
          <div class="spacer" style={{ height: `${range.before}px` }} />
          {state.entries.slice(range.start, range.end).map((e) => (
            <EntryView key={e.position} entry={e} sessionId={sessionId} client={client} />
          ))}
          <div class="spacer" style={{ height: `${range.after}px` }} />
        </div>
        <Live state={state} />
        {state.lastRunProblem ? <p class="error-text">{state.lastRunProblem}</p> : null}
        {state.deleted ? <p class="note">This session was deleted.</p> : null}
      </section>
      {state.approval ? <ApprovalCard ask={state.approval} sessionId={sessionId} client={client} /> : null}
      <QuestionCard question={state.question} sessionId={sessionId} client={client} />
      <Queue state={state} />
      <Composer client={client} sessionId={sessionId} disabled={state.deleted} />
    </main>
  )
}
