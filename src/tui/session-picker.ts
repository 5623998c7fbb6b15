// The session picker (/sessions, Ctrl-O): the sessions of GET /sessions, searched as you
// type (the `search` query), children under their parents, pinned first, archived hidden
// until Tab shows them. Pages of 200 are read as the selection nears the end of those read
// (the list's `next`, for a search too). Enter opens the chosen one in the chat (with its
// history, live when busy; opening counts a visit); Ctrl-P pins or unpins, Ctrl-R renames,
// Ctrl-A archives or brings back, Ctrl-F forks, Ctrl-D deletes after a y. Every call goes
// through the typed client.

import { v7 as uuidv7 } from 'uuid'
import type { HearthClient } from '../client/client.ts'
import { createSessionOnce } from '../client/create-session.ts'
import type { SessionChangeRequest } from '../schemas/session-configuration.ts'
import type { SessionSummary } from '../schemas/session-read.ts'
import { ListPicker, type ListPickerOptions, type PickerRow } from './list-picker.ts'
import { matchesKey } from './pi.ts'
import { type SessionRow, sessionRows, sessionTitle } from './session-list.ts'

const PAGE = 200
/** Pages of pinned sessions read ahead of the rest (1,000 pinned sessions is plenty). */
const PINNED_PAGES = 5

/** How long ago a timestamp was, shortly: 5s, 3m, 2h, 4d. */
function age(at: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(at)) / 1000))
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m`
  if (s < 86_400) return `${Math.floor(s / 3600)}h`
  return `${Math.floor(s / 86_400)}d`
}

export interface SessionPickerOptions extends ListPickerOptions {
  client: () => HearthClient
  /** The open session's id, marked in the list. */
  current: () => string | undefined
  /** Open a session in the chat (the picker closes), with a line for its transcript. */
  open: (id: string, note?: string) => Promise<void>
  /** The open session was deleted: open another. */
  deletedCurrent: () => Promise<void>
}

type Mode =
  | { kind: 'list' }
  | { kind: 'rename'; id: string; search: string }
  | { kind: 'delete'; id: string; title: string }

/** A configuration merge patch of any session, with its current ETag. */
export async function configureSession(
  client: HearthClient,
  id: string,
  patch: SessionChangeRequest,
): Promise<void> {
  await client.call('sessions.configure', {
    params: { session_id: id },
    query: { view: 'configuration' },
    headers: { 'if-match': await configurationEtag(client, id) },
    body: patch,
  })
}

/** The ETag of a session's configuration, which a change or a deletion must match. */
async function configurationEtag(client: HearthClient, id: string): Promise<string> {
  const { body } = await client.call('sessions.get', {
    params: { session_id: id },
    query: { view: 'configuration' },
  })
  const etag = 'etag' in body ? body.etag : undefined
  if (typeof etag !== 'string') throw new Error('the daemon sent no configuration ETag')
  return etag
}

export class SessionPicker extends ListPicker {
  readonly #s: SessionPickerOptions
  #all: SessionSummary[] = []
  #rows: SessionRow[] = []
  #archived = false
  #loading = true
  /** The continuation of the list after the pages read, null when all are read. */
  #next: string | null = null
  #loadingMore = false
  #mode: Mode = { kind: 'list' }
  /** Only the answer to the latest list request is shown. */
  #request = 0

  constructor(o: SessionPickerOptions) {
    super(o)
    this.#s = o
    void this.reload()
  }

  protected title(): string {
    const n = this.#rows.length
    return `Sessions${this.#archived ? ' (archived shown)' : ''} · ${this.#loading ? 'loading…' : `${n}${this.#next !== null ? '+' : ''}`}`
  }

  protected hint(): string {
    switch (this.#mode.kind) {
      case 'rename':
        return 'Enter rename · Esc cancel'
      case 'delete':
        return 'y delete · any other key cancels'
      default:
        return 'Enter open · Ctrl-P pin · Ctrl-R rename · Ctrl-A archive · Ctrl-F fork · Ctrl-D delete · Tab archived · Esc back'
    }
  }

  protected items(): PickerRow[] {
    const current = this.#s.current()
    return this.#rows.map(({ session: s, depth }) => {
      const marks = [
        s.preferences.pinned ? '*' : '',
        s.preferences.archived ? '[archived]' : '',
        s.status.phase !== 'idle' ? `[${s.status.phase}]` : '',
        s.id === current ? '(open)' : '',
      ].filter(Boolean)
      return {
        text: `${'  '.repeat(depth)}${depth ? '└ ' : ''}${sessionTitle(s)}  ${marks.join(' ')}  · ${s.model} · ${age(s.activity_at)}`,
        dim: s.preferences.archived,
      }
    })
  }

  get #chosen(): SessionSummary | undefined {
    return this.#rows[this.selected]?.session
  }

  #query(next?: string, pinned?: boolean) {
    return {
      scope: 'all' as const,
      search: this.text || undefined,
      archived: this.#archived ? undefined : false,
      pinned,
      limit: PAGE,
      next,
    }
  }

  /**
   * The pinned sessions of the listing, every page of them (up to PINNED_PAGES): they come
   * first whatever page of the rest they would fall on.
   */
  async #pinned(): Promise<SessionSummary[]> {
    const found: SessionSummary[] = []
    let next: string | undefined
    for (let page = 0; page < PINNED_PAGES; page++) {
      const { body } = await this.#s.client().call('sessions.list', { query: this.#query(next, true) })
      found.push(...body.items)
      if (body.next === null) break
      next = body.next
    }
    return found
  }

  /** Reads the list again for the typed search. */
  async reload(): Promise<void> {
    if (this.#mode.kind === 'rename') return
    const request = ++this.#request
    this.#loading = true
    try {
      const [pinned, { body }] = await Promise.all([
        this.#pinned(),
        this.#s.client().call('sessions.list', { query: this.#query() }),
      ])
      if (request !== this.#request) return
      const held = new Set(pinned.map((x) => x.id))
      this.#all = [...pinned, ...body.items.filter((x) => !held.has(x.id))]
      this.#next = body.next
      this.#sort()
    } catch (err) {
      if (request === this.#request) this.say(`could not list sessions: ${(err as Error).message}`, 'error')
    } finally {
      if (request === this.#request) this.#loading = false
      this.render_()
    }
  }

  /** Rows from the sessions read; the chosen session stays chosen. */
  #sort(): void {
    const chosen = this.#chosen?.id
    this.#rows = sessionRows(this.#all, { archived: this.#archived })
    const i = this.#rows.findIndex((r) => r.session.id === chosen)
    if (i >= 0) this.selected = i
  }

  /** Near the end of the rows read, the next page of the same listing. */
  protected moved(): void {
    if (this.#next === null || this.#loadingMore || this.#loading) return
    if (this.selected < this.#rows.length - this.pageRows()) return
    void this.#readMore(this.#next)
  }

  async #readMore(next: string): Promise<void> {
    const request = this.#request
    this.#loadingMore = true
    try {
      const { body } = await this.#s.client().call('sessions.list', { query: this.#query(next) })
      if (request !== this.#request) return
      const held = new Set(this.#all.map((x) => x.id))
      this.#all.push(...body.items.filter((x) => !held.has(x.id)))
      this.#next = body.next
      this.#sort()
    } catch (err) {
      if (request === this.#request)
        this.say(`could not list more sessions: ${(err as Error).message}`, 'error')
    } finally {
      this.#loadingMore = false
      this.render_()
    }
  }

  protected textChanged(): void {
    if (this.#mode.kind === 'list') void this.reload()
  }

  protected choose(index: number): void {
    if (this.#mode.kind === 'rename') {
      this.#rename(this.#mode.id)
      return
    }
    const s = this.#rows[index]?.session
    if (s) this.#act(`opening ${sessionTitle(s)}…`, () => this.#s.open(s.id))
  }

  protected back(): boolean {
    if (this.#mode.kind === 'list') return false
    this.#leaveMode()
    return true
  }

  protected onKey(data: string): boolean {
    const mode = this.#mode
    if (mode.kind === 'delete') {
      this.#mode = { kind: 'list' }
      if (data === 'y' || data === 'Y') this.#delete(mode.id, mode.title)
      else this.say('not deleted')
      return true
    }
    if (mode.kind === 'rename') return false
    const s = this.#chosen
    if (matchesKey(data, 'tab')) {
      this.#archived = !this.#archived
      void this.reload()
      return true
    }
    if (!s) return false
    if (matchesKey(data, 'ctrl+r')) {
      this.#mode = { kind: 'rename', id: s.id, search: this.text }
      this.textLabel = 'new name'
      this.text = s.name
      this.say(`rename ${sessionTitle(s)}`)
      return true
    }
    if (matchesKey(data, 'ctrl+p')) {
      this.#pin(s)
      return true
    }
    if (matchesKey(data, 'ctrl+a')) {
      const archived = !s.preferences.archived
      this.#act(archived ? 'archiving…' : 'bringing back…', async () => {
        await configureSession(this.#s.client(), s.id, { preferences: { archived } })
        this.say(`${archived ? 'archived' : 'brought back'} ${sessionTitle(s)}`)
        await this.reload()
      })
      return true
    }
    if (matchesKey(data, 'ctrl+f')) {
      this.#act('forking…', async () => {
        const fork = await createSessionOnce(
          uuidv7(),
          { kind: 'forked', source_id: s.id },
          { client: this.#s.client },
        )
        await this.#s.open(fork.id, `forked ${s.id} into ${fork.id}`)
      })
      return true
    }
    if (matchesKey(data, 'ctrl+d')) {
      this.#mode = { kind: 'delete', id: s.id, title: sessionTitle(s) }
      this.say(`delete ${sessionTitle(s)}? y to delete, any other key to keep it`, 'warn')
      return true
    }
    return false
  }

  /** Pins a session after the others pinned (the largest pin order plus one), or unpins it. */
  #pin(s: SessionSummary): void {
    const pinned = !s.preferences.pinned
    const orders = this.#all.map((x) => (x.preferences.pinned ? (x.preferences.pin_order ?? 0) : 0))
    const pin_order = pinned ? Math.max(0, ...orders) + 1 : null
    this.#act(pinned ? 'pinning…' : 'unpinning…', async () => {
      await configureSession(this.#s.client(), s.id, { preferences: { pinned, pin_order } })
      this.say(`${pinned ? 'pinned' : 'unpinned'} ${sessionTitle(s)}`)
      await this.reload()
    })
  }

  #leaveMode(): void {
    const mode = this.#mode
    this.#mode = { kind: 'list' }
    this.textLabel = 'search'
    if (mode.kind === 'rename') this.text = mode.search
    this.say('')
  }

  #rename(id: string): void {
    const name = this.text.trim()
    if (!name) {
      this.say('a name cannot be empty', 'warn')
      return
    }
    this.#leaveMode()
    this.#act('renaming…', async () => {
      await configureSession(this.#s.client(), id, { name })
      this.say(`renamed to ${name}`)
      await this.reload()
    })
  }

  #delete(id: string, title: string): void {
    this.#act('deleting…', async () => {
      const client = this.#s.client()
      await client.call('sessions.delete', {
        params: { session_id: id },
        query: { view: 'configuration' },
        headers: { 'if-match': await configurationEtag(client, id) },
      })
      this.say(`deleted ${title}`)
      if (id === this.#s.current()) await this.#s.deletedCurrent()
      await this.reload()
    })
  }

  #act(doing: string, what: () => Promise<void>): void {
    this.say(doing)
    what().catch((err) => this.say((err as Error).message, 'error'))
  }
}
