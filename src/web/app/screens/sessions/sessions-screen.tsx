// The sessions: the tree of parents and children, search as you type, pinned first, archived
// apart, sessions that need a reload marked, kept live by the collection stream (after each
// `ready`, and after each change, the list is read again). Keyboard: ↑/↓ choose, Enter
// opens, `/` searches, Esc leaves the search.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import type { SessionSummary } from '../../../../schemas/session-read.ts'
import { type ApiClient, ProblemError } from '../../api/client.ts'
import { followCollection, type LinkState } from '../../api/stream.ts'
import { navigate } from '../../router.ts'
import { NewSessionForm } from '../session/session-actions.tsx'
import { splitArchived, title, treeRows } from './session-tree.ts'

/** Pages of 200 read at most: a list past 1,000 sessions is narrowed with the search. */
const MAX_PAGES = 5

async function readAll(client: ApiClient, search: string): Promise<SessionSummary[]> {
  const out: SessionSummary[] = []
  let next: string | undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    const { body } = await client.call('sessions.list', {
      query: { scope: 'all', limit: 200, ...(search ? { search } : {}), ...(next ? { next } : {}) },
    })
    out.push(...body.items)
    if (!body.next) break
    next = body.next
  }
  return out
}

/**
 * The sessions that ran with settings that changed since: the daemon's needs_reload, less the
 * sessions that never ran (they load the settings as they are at their first run).
 */
async function needingReload(client: ApiClient): Promise<Set<string>> {
  const { body } = await client.call('sessions.list', {
    query: { scope: 'all', needs_reload: true, limit: 200 },
  })
  return new Set(body.items.filter((s) => s.preview.transcript_count > 0).map((s) => s.id))
}

function useSessionList(client: ApiClient, search: string) {
  const [sessions, setSessions] = useState<SessionSummary[] | undefined>()
  const [reload, setReload] = useState<Set<string>>(new Set())
  const [link, setLink] = useState<LinkState>('connecting')
  const [error, setError] = useState<string>()
  const searchRef = useRef(search)
  searchRef.current = search
  const generation = useRef(0)
  const read = useMemo(
    () => async () => {
      const mine = ++generation.current
      try {
        const [list, stale] = await Promise.all([readAll(client, searchRef.current), needingReload(client)])
        if (mine !== generation.current) return // a newer read started meanwhile
        setSessions(list)
        setReload(stale)
        setError(undefined)
      } catch (err) {
        if (mine === generation.current)
          setError(err instanceof ProblemError ? err.problem.detail : String(err))
      }
    },
    [client],
  )
  useEffect(() => {
    const stop = new AbortController()
    let soon: number | undefined
    followCollection({
      client,
      query: { scope: 'all' },
      signal: stop.signal,
      onReady: () => void read(),
      // A burst of changes (a run's events) is read once.
      onInvalidated: () => {
        clearTimeout(soon)
        soon = window.setTimeout(() => void read(), 150)
      },
      onLink: setLink,
    }).catch((err) => setError(err instanceof ProblemError ? err.problem.detail : String(err)))
    return () => {
      clearTimeout(soon)
      stop.abort()
    }
  }, [client])
  useEffect(() => {
    const t = setTimeout(() => void read(), 120)
    return () => clearTimeout(t)
  }, [search])
  return { sessions, reload, link, error }
}

function Row(props: {
  s: SessionSummary
  depth: number
  selected: boolean
  needsReload: boolean
  open: boolean
}) {
  const { s } = props
  return (
    <li
      class={`session-row${props.selected ? ' selected' : ''}${props.open ? ' open' : ''}`}
      data-id={s.id}
      style={{ '--depth': props.depth }}
      aria-current={props.selected ? 'true' : undefined}
    >
      <a href={`#/s/${s.id}`} tabIndex={-1}>
        <span class="name">
          {props.depth > 0 ? <span class="branch">↳ </span> : null}
          {s.preferences.pinned ? (
            <span class="pin" title="pinned">
              ★{' '}
            </span>
          ) : null}
          {title(s)}
        </span>
        <span class="row-meta">
          {s.status.phase !== 'idle' ? (
            <span class={`phase phase-${s.status.phase}`}>{s.status.phase}</span>
          ) : null}
          {props.needsReload ? (
            <span class="badge" title="its settings changed: reload it to use them">
              needs reload
            </span>
          ) : null}
          <span class="when">{new Date(s.activity_at).toLocaleString()}</span>
        </span>
        {s.preview.text ? <span class="preview">{s.preview.text}</span> : null}
      </a>
    </li>
  )
}

export function SessionsScreen({ client, openId }: { client: ApiClient; openId?: string }) {
  const [search, setSearch] = useState('')
  const { sessions, reload, link, error } = useSessionList(client, search)
  const [selected, setSelected] = useState(0)
  const [showArchived, setShowArchived] = useState(false)
  const searchBox = useRef<HTMLInputElement>(null)
  const { current, archived } = splitArchived(sessions ?? [])
  const rows = [...treeRows(current), ...(showArchived ? treeRows(archived) : [])]
  const chosen = Math.min(selected, Math.max(0, rows.length - 1))
  // The rows and the choice as last drawn: the key handler is registered once, and a key may
  // come before an effect of the latest render has run.
  const shown = useRef({ rows, chosen })
  shown.current = { rows, chosen }

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const typing =
        e.target instanceof HTMLTextAreaElement ||
        (e.target instanceof HTMLInputElement && e.target !== searchBox.current)
      if (typing) return
      // A focused control (a button, a choice, a link of another screen) keeps its arrows and
      // Enter, and so does whatever has the focus in another pane (the open transcript scrolls).
      const control =
        e.target instanceof HTMLSelectElement ||
        e.target instanceof HTMLButtonElement ||
        e.target instanceof HTMLAnchorElement ||
        (e.target instanceof Element && e.target !== document.body && !e.target.closest('.sessions-screen'))
      if (control && e.key !== '/' && e.key !== 'Escape') return
      const { rows: now, chosen: at } = shown.current
      const last = Math.max(0, now.length - 1)
      if (e.key === '/' && document.activeElement !== searchBox.current) {
        e.preventDefault()
        searchBox.current?.focus()
      } else if (e.key === 'ArrowDown') {
        e.preventDefault()
        setSelected((n) => Math.min(Math.min(n, last) + 1, last))
      } else if (e.key === 'ArrowUp') {
        e.preventDefault()
        setSelected((n) => Math.max(Math.min(n, last) - 1, 0))
      } else if (e.key === 'Enter' && now[at]) {
        e.preventDefault()
        navigate(`/s/${now[at].session.id}`)
      } else if (e.key === 'Escape' && document.activeElement === searchBox.current) {
        setSearch('')
        searchBox.current?.blur()
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [])
  useEffect(() => {
    document.querySelector('.session-row.selected')?.scrollIntoView({ block: 'nearest' })
  }, [chosen])

  const currentRows = rows.slice(0, rows.length - (showArchived ? treeRows(archived).length : 0))
  const archivedRows = rows.slice(currentRows.length)
  const row = (r: (typeof rows)[number], i: number) => (
    <Row
      key={r.session.id}
      s={r.session}
      depth={r.depth}
      selected={i === chosen}
      needsReload={reload.has(r.session.id)}
      open={r.session.id === openId}
    />
  )
  return (
    <nav class="sessions-screen" aria-label="sessions" data-link={link} data-count={sessions?.length ?? -1}>
      <div class="search">
        <input
          ref={searchBox}
          type="search"
          placeholder="Search sessions ( / )"
          aria-label="search sessions"
          value={search}
          onInput={(e) => {
            setSearch((e.target as HTMLInputElement).value)
            setSelected(0)
          }}
        />
      </div>
      <NewSessionForm client={client} />
      {error ? <p class="error-text">{error}</p> : null}
      {sessions === undefined ? <p class="note">Loading…</p> : null}
      {sessions?.length === 0 ? (
        <p class="note">{search ? 'No session matches.' : 'No sessions yet: start one with hearth chat.'}</p>
      ) : null}
      <ul class="session-list">{currentRows.map((r, i) => row(r, i))}</ul>
      {archived.length > 0 ? (
        <section class="archived">
          <button type="button" class="link-button" onClick={() => setShowArchived(!showArchived)}>
            {showArchived ? 'Hide' : 'Show'} archived ({archived.length})
          </button>
          {showArchived ? (
            <ul class="session-list">{archivedRows.map((r, i) => row(r, currentRows.length + i))}</ul>
          ) : null}
        </section>
      ) : null}
    </nav>
  )
}
