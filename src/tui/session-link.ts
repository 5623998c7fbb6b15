// The open session as the client sees it: its state from the stream's snapshot and events,
// its transcript, and the calls the screens make on it (send, interrupt, answer an
// approval, configure, read older history). Talks to the daemon only through the typed
// client in src/client/.

import { v7 as uuidv7 } from 'uuid'
import { type HearthClient, ProblemError } from '../client/client.ts'
import { createSessionOnce } from '../client/create-session.ts'
import { followSession, type StreamFrame } from '../client/session-follow.ts'
import type { InputRequest } from '../schemas/inputs.ts'
import type { SessionChangeRequest } from '../schemas/session-configuration.ts'
import type { SessionRead } from '../schemas/session-read.ts'
import type { ApprovalBlock } from './blocks.ts'
import { type HistoryEntry, problemLine, type Transcript } from './transcript.ts'

/** History entries the first page of an opened session holds; older ones are read on demand. */
const FIRST_PAGE = 50
/** Entries per page read as the transcript scrolls (the transcript holds KEEP_PAGES of them). */
const PAGE = 50
/** Pauses before retrying an input PUT whose answer did not arrive (same id: never sent twice). */
const RETRY_DELAYS_MS = [200, 500, 1000, 2000]

export type ApprovalRemember = 'once' | 'session'

interface ActiveOutput {
  content_id: string
  run_id: string
  kind: 'text' | 'reasoning'
  snapshot: string
}

export class SessionLink {
  readonly client: () => HearthClient
  readonly transcript: Transcript
  readonly clientId = `tui-${process.pid}`
  session: SessionRead | undefined
  #stop: AbortController | undefined
  #loadingOlder = false
  #loadingNewer = false
  /** Deltas of outputs whose text so far is still being read (a busy session opened). */
  readonly #catchingUp = new Map<string, string[]>()
  onChange: () => void = () => {}
  /** A run serving a message sent from here ended with a problem (the login screen reads it). */
  onOwnRunFailed: (problem: { code?: string; title?: string; detail?: string | null }) => void = () => {}
  /** The messages of a session just opened, oldest first (the editor recalls them with Up). */
  onOpenedMessages: (texts: string[]) => void = () => {}
  /** Told when any run ends (the status line's quota is read again). */
  onRunEnded: () => void = () => {}
  /** Inputs sent from here, and the runs serving them. */
  readonly #sent = new Set<string>()
  readonly #ownRuns = new Set<string>()
  /** Settles when the first session is open (messages typed before wait for it). */
  ready: Promise<void> = Promise.resolve()
  #draft: string | undefined
  #creating: Promise<void> | undefined
  /** The status line's view of the new session not created yet (SessionLink.startNew). */
  draftView: SessionRead | undefined

  constructor(client: () => HearthClient, transcript: Transcript) {
    this.client = client
    this.transcript = transcript
    transcript.readWhole = (entryId) => this.#wholeText(entryId)
    transcript.redraw = () => this.onChange()
  }

  get id(): string | undefined {
    return this.session?.id
  }

  get phase(): string {
    return this.session?.status.phase ?? 'idle'
  }

  /** Creates a session in `workspace` and follows it. */
  async create(workspace: string): Promise<void> {
    const created = await createSessionOnce(uuidv7(), { kind: 'new', workspace }, { client: this.client })
    await this.open(created.id)
  }

  /**
   * A new session in `workspace`, shown at once and created when its first message is sent
   * (or it is configured), so a client left before then leaves no empty session.
   */
  startNew(workspace: string): void {
    this.close()
    this.transcript.clear()
    this.session = undefined
    this.#draft = workspace
    this.draftView = undefined
    this.onChange()
    void this.#readDraftView(workspace)
  }

  /** The workspace of the new session not created yet, if that is what shows. */
  get draft(): string | undefined {
    return this.#draft
  }

  /**
   * What the status line shows of the new session before it exists: the workspace, and the
   * profile and model the daemon gives a session that names none (the default profile, else
   * the first, with its model).
   */
  async #readDraftView(workspace: string): Promise<void> {
    try {
      const { body } = await this.client().call('settings.get', { query: { group: 'providers' } })
      const { default_profile, profiles } = (
        body as {
          settings: { default_profile: string | null; profiles: Record<string, { model?: string | null }> }
        }
      ).settings
      const profile = default_profile ?? Object.keys(profiles)[0] ?? ''
      if (this.#draft !== workspace || this.session) return
      this.draftView = {
        workspace,
        provider_profile: profile,
        model: profiles[profile]?.model ?? '',
        effort: null,
        status: { phase: 'idle', run_id: null },
        usage: { total_tokens: null, prompt_tokens: null, context_window_tokens: null },
      } as unknown as SessionRead
      this.onChange()
    } catch {
      // Without them the status line says `opening…` until the session exists.
    }
  }

  /** The open session's id; the new session that shows is created first if it is not yet. */
  async ensure(): Promise<string> {
    await this.#created()
    if (!this.id) throw new Error('no session is open')
    return this.id
  }

  /** Creates the new session that shows, once however many messages wait for it. */
  async #created(): Promise<void> {
    await this.ready
    const workspace = this.#draft
    if (this.id || workspace === undefined) return
    this.#creating ??= this.create(workspace).finally(() => {
      this.#creating = undefined
    })
    await this.#creating
  }

  /** A fork of the open session (its whole history), opened in its place. */
  async fork(): Promise<string> {
    if (!this.id) throw new Error('no session is open')
    const created = await createSessionOnce(
      uuidv7(),
      { kind: 'forked', source_id: this.id },
      { client: this.client },
    )
    await this.open(created.id)
    return created.id
  }

  /**
   * Follows `sessionId`: the stream's snapshot brings the state and the newest entries; the
   * promise resolves once that snapshot arrived, and the stream goes on until close().
   */
  async open(sessionId: string): Promise<void> {
    this.close()
    this.transcript.clear()
    this.session = undefined
    this.#draft = undefined
    this.draftView = undefined
    const stop = new AbortController()
    this.#stop = stop
    let ready!: () => void
    let failed!: (err: unknown) => void
    const opened = new Promise<void>((res, rej) => {
      ready = res
      failed = rej
    })
    const following = followSession({
      client: this.client,
      sessionId,
      signal: stop.signal,
      tail: FIRST_PAGE,
      onFrame: (f) => {
        this.#frame(f)
        if (f.event === 'snapshot') ready()
      },
      onNotice: (m) => {
        this.transcript.notice(m, this.transcript.theme.warn)
        this.onChange()
      },
    })
    following.then(
      (end) => {
        // A stream left for another session says nothing in the new one's transcript.
        if (end.reason === 'deleted' && this.#stop === stop) {
          this.transcript.notice('the session was deleted', this.transcript.theme.error)
          this.onChange()
        }
      },
      (err) => {
        failed(err)
        if (!stop.signal.aborted) {
          this.transcript.notice(`the stream ended: ${(err as Error).message}`, this.transcript.theme.error)
          this.onChange()
        }
      },
    )
    await opened
    // Opening counts a visit.
    await this.client()
      .call('sessions.visit', { params: { session_id: sessionId, visit_id: uuidv7() } })
      .catch(() => {})
  }

  close(): void {
    this.#stop?.abort()
    this.#stop = undefined
  }

  #frame(f: StreamFrame): void {
    const data = JSON.parse(f.data) as { payload?: Record<string, any>; session?: SessionRead }
    if (f.event === 'snapshot' && data.session) {
      const first = this.session === undefined
      this.session = data.session
      this.transcript.workspace = data.session.workspace
      const blocking = data.session.status.blocking_reason as Record<string, unknown> | null
      // A snapshot after a gap in the stream: requests it no longer names were settled meanwhile.
      if (!first) this.transcript.settleApprovals(blocking?.request_id as string | undefined)
      if (first) {
        const entries = data.session.history.items as HistoryEntry[]
        this.transcript.prependHistory(entries, data.session.history.older !== null)
        this.onOpenedMessages(
          entries.filter((e) => e.kind === 'user').map((e) => String(e.content.text ?? '')),
        )
        for (const item of data.session.active_output as ActiveOutput[]) this.#catchUp(data.session.id, item)
        // A session waiting for an approval when it opens asks it here.
        if (blocking && blocking.kind === 'approval') this.transcript.apply('approval.requested', blocking)
      }
      this.onChange()
      return
    }
    const p = data.payload ?? {}
    const held = f.event === 'output.delta' ? this.#catchingUp.get(p.content_id) : undefined
    if (held) {
      held.push(String(p.delta))
      return
    }
    const s = this.session
    if (s) this.#track(s, f.event, p)
    this.transcript.apply(f.event, p)
    this.onChange()
  }

  /**
   * A running turn's output when the session opens: its block is made now, its text up to
   * the snapshot is read from the active-output resource, and deltas that arrive meanwhile
   * wait behind it, so the turn streams on live without a gap or a repeat.
   */
  #catchUp(sessionId: string, item: ActiveOutput): void {
    this.transcript.apply('output.started', {
      run_id: item.run_id,
      content_id: item.content_id,
      kind: item.kind,
    })
    const held: string[] = []
    this.#catchingUp.set(item.content_id, held)
    const read = async () => {
      let next: string | undefined
      do {
        const { body } = await this.client().call('sessions.active_output', {
          params: { session_id: sessionId, content_id: item.content_id },
          query: { snapshot: item.snapshot, next },
        })
        this.transcript.apply('output.delta', { content_id: item.content_id, delta: body.text })
        next = body.next ?? undefined
      } while (next)
    }
    read()
      .catch(() => {
        // The run ended meanwhile (snapshot_stale): its entry brings the whole text.
      })
      .finally(() => {
        this.#catchingUp.delete(item.content_id)
        for (const delta of held)
          this.transcript.apply('output.delta', { content_id: item.content_id, delta })
        this.onChange()
      })
  }

  /** Keeps the state the status line shows in step with the events. */
  #track(s: SessionRead, event: string, p: Record<string, any>): void {
    switch (event) {
      case 'input.accepted':
        s.input_order = Math.max(s.input_order, Number(p.input?.acceptance_order ?? 0))
        if (s.status.phase === 'idle') s.status.phase = 'queued'
        break
      case 'run.started':
        s.status = { ...s.status, phase: 'running', run_id: p.run_id }
        // A run serving a message sent from here is ours; its inputs are then forgotten.
        for (const id of (p.input_ids as string[] | undefined) ?? [])
          if (this.#sent.delete(id)) this.#ownRuns.add(p.run_id)
        break
      case 'approval.requested':
        s.status = { ...s.status, phase: 'blocked' }
        break
      case 'approval.decided':
        if (s.status.phase === 'blocked') s.status = { ...s.status, phase: 'running' }
        break
      case 'run.interrupt_requested':
        s.status = { ...s.status, phase: 'interrupting' }
        break
      case 'run.ended':
        s.status = { ...s.status, phase: 'idle', run_id: null }
        // The run's `error` entry (added just before) says the problem; else it is said here.
        if (p.problem && !this.transcript.failureShown(p.run_id))
          this.transcript.notice(problemLine(p.problem), this.transcript.theme.error)
        if (this.#ownRuns.delete(p.run_id) && p.problem) this.onOwnRunFailed(p.problem)
        this.onRunEnded()
        void this.refresh()
        break
      case 'kernel.staleness_changed':
        s.kernel = { ...s.kernel, stale: p.stale, staleness_reasons: p.staleness_reasons }
        break
      case 'kernel.stage_changed':
        s.kernel = { ...s.kernel, stage: p.stage ?? null }
        // Ended: the session's kernel (and whether it is stale) is read again.
        if (p.stage === null) void this.refresh()
        break
      case 'session.configured':
        Object.assign(s, configuredFields(p.changes))
        if (p.changes && 'approval_policy' in p.changes)
          (s.configuration_resource.value as Record<string, unknown>).approval_policy =
            p.changes.approval_policy
        break
    }
  }

  /** Reads the session again (usage figures, phase) after a turn. */
  async refresh(): Promise<void> {
    if (!this.id) return
    try {
      const { body } = await this.client().call('sessions.get', {
        params: { session_id: this.id },
        query: { tail: 0 },
      })
      const read = body as SessionRead
      if (this.session && read.id === this.session.id) {
        this.session = { ...read, history: this.session.history }
        this.onChange()
      }
    } catch {
      // the next event brings the state anyway
    }
  }

  /** Whether a page of history is being read. */
  get loading(): boolean {
    return this.#loadingOlder || this.#loadingNewer
  }

  /** Reads the page of entries before the first held; false when there is none. */
  async loadOlder(): Promise<boolean> {
    const t = this.transcript
    if (!this.id || !t.hasOlder || this.#loadingOlder) return false
    this.#loadingOlder = true
    try {
      const sessionId = this.id
      const { body } = await this.client().call('history.list', {
        params: { session_id: sessionId },
        query: { before: t.firstPosition, limit: PAGE },
      })
      if (this.id !== sessionId) return false
      t.prependHistory(body.items as HistoryEntry[], body.older !== null)
      this.onChange()
      return true
    } finally {
      this.#loadingOlder = false
    }
  }

  /**
   * Reads the page of entries after the last held (they were dropped while reading older
   * ones); once it reaches the newest entry the transcript is live again.
   */
  async loadNewer(): Promise<boolean> {
    const t = this.transcript
    if (!this.id || t.atEnd || this.#loadingNewer) return false
    this.#loadingNewer = true
    t.readingEnd()
    try {
      const sessionId = this.id
      const { body } = await this.client().call('history.list', {
        params: { session_id: sessionId },
        query: { after: t.lastPosition, limit: PAGE },
      })
      if (this.id !== sessionId) return false
      t.appendHistory(body.items as HistoryEntry[], body.newer === null)
      this.onChange()
      return true
    } catch (err) {
      t.readFailed()
      throw err
    } finally {
      this.#loadingNewer = false
    }
  }

  /** Shows the newest entries again (a message is sent while reading far back). */
  async toEnd(): Promise<void> {
    const t = this.transcript
    if (!this.id || t.atEnd) return
    t.readingEnd()
    try {
      const { body } = await this.client().call('history.list', {
        params: { session_id: this.id },
        query: { limit: PAGE },
      })
      t.showNewest(body.items as HistoryEntry[], body.older !== null)
      this.onChange()
    } catch (err) {
      t.readFailed()
      throw err
    }
  }

  /** Submits a message; shown at once, confirmed when its entry arrives. */
  async send(text: string): Promise<void> {
    await this.ensure()
    await this.toEnd()
    const inputId = uuidv7()
    this.#sent.add(inputId)
    this.transcript.sent(inputId, text)
    this.onChange()
    await this.#put(inputId, { kind: 'message', text, client_id: this.clientId })
  }

  /**
   * Answers the approval `block` asks with an input of kind `approval`. The block waits for
   * its `approval.decided` event; a request no longer pending (decided elsewhere, expired)
   * closes it, and a lost connection lets it be answered again.
   */
  async approve(block: ApprovalBlock, decision: 'allow' | 'deny', remember: ApprovalRemember): Promise<void> {
    block.answering()
    this.onChange()
    try {
      await this.#put(uuidv7(), {
        kind: 'approval',
        request_id: block.requestId,
        decision,
        remember,
        client_id: this.clientId,
      })
    } catch (err) {
      if (err instanceof ProblemError && err.status === 409)
        block.close(`not answered: ${err.problem.detail ?? err.problem.title}`)
      else block.unanswered()
      this.onChange()
      throw err
    }
  }

  /** An entry's whole text, read piece by piece from its content pages. */
  async #wholeText(entryId: string): Promise<string> {
    const sessionId = this.id
    if (!sessionId) throw new Error('no session is open')
    let text = ''
    let next: string | undefined
    do {
      const { body } = await this.client().call('history.entry', {
        params: { session_id: sessionId, entry_id: entryId },
        query: { next },
      })
      text += body.text
      next = body.next ?? undefined
    } while (next !== undefined)
    return text
  }

  async #put(inputId: string, body: InputRequest): Promise<void> {
    const sessionId = this.id as string
    for (let attempt = 0; ; attempt++) {
      try {
        await this.client().call('inputs.put', {
          params: { session_id: sessionId, input_id: inputId },
          body,
        })
        return
      } catch (err) {
        // A problem is an answer; only a lost connection leaves the outcome unknown.
        if (err instanceof ProblemError || attempt >= RETRY_DELAYS_MS.length) throw err
        await new Promise((r) => setTimeout(r, RETRY_DELAYS_MS[attempt]))
      }
    }
  }

  /**
   * Interrupts the running turn: the run this client saw and the input order read now, so
   * the request can never stop a later run. False when nothing runs.
   */
  async interrupt(): Promise<boolean> {
    const s = this.session
    if (!s?.status.run_id) return false
    // Shown at once; the run's end (or a read after a refusal) sets the phase again.
    s.status = { ...s.status, phase: 'interrupting' }
    this.onChange()
    const { body } = await this.client().call('sessions.get', {
      params: { session_id: s.id },
      query: { tail: 0 },
    })
    await this.client().call('sessions.interrupt', {
      params: { session_id: s.id },
      body: { run_id: s.status.run_id, through_input_order: (body as SessionRead).input_order },
    })
    return true
  }

  /** A configuration merge patch with the configuration's current ETag. */
  async configure(patch: SessionChangeRequest): Promise<void> {
    const id = await this.ensure()
    const { body } = await this.client().call('sessions.get', {
      params: { session_id: id },
      query: { view: 'configuration' },
    })
    const etag = (body as unknown as { etag: string }).etag
    await this.client().call('sessions.configure', {
      params: { session_id: id },
      query: { view: 'configuration' },
      headers: { 'if-match': etag },
      body: patch,
    })
  }
}

/** The fields of a `session.configured` event's changes that the session read shows. */
function configuredFields(changes: unknown): Partial<SessionRead> {
  const c = (changes ?? {}) as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const k of ['name', 'provider_profile', 'model', 'effort', 'approval_policy'])
    if (k in c) out[k] = c[k]
  return out as Partial<SessionRead>
}
