// The open session as its stream shows it: the state from the stream's snapshot and
// events, the transcript they fill, and the output of a run in progress caught up when a busy
// session opens. What the screens ask of the session (create, send, interrupt, approve,
// configure, read history pages) is ./session-link.ts, which builds on this: the stream
// changes the session by itself, event by event, while those calls are made one at a time.
// Talks to the daemon only through the typed client in src/client/.

import { v7 as uuidv7 } from 'uuid'
import type { HearthClient } from '../client/client.ts'
import { followSession, type StreamFrame } from '../client/session-follow.ts'
import type { SessionRead } from '../schemas/session-read.ts'
import { SignInNotices } from './mcp-sign-in.ts'
import { WaitingQuestions } from './questions.ts'
import { type HistoryEntry, problemLine, type Transcript } from './transcript.ts'

/** History entries the first page of an opened session holds; older ones are read on demand. */
const FIRST_PAGE = 50

interface ActiveOutput {
  content_id: string
  run_id: string
  kind: 'text' | 'reasoning'
  snapshot: string
}

export class SessionStream {
  readonly client: () => HearthClient
  readonly transcript: Transcript
  session: SessionRead | undefined
  #stop: AbortController | undefined
  /** Deltas of outputs whose text so far is still being read (a busy session opened). */
  readonly #catchingUp = new Map<string, string[]>()
  /** MCP servers' questions waiting, oldest first (the one shown is the blocking reason). */
  readonly #questions = new WaitingQuestions()
  onChange: () => void = () => {}
  /** A run serving a message sent from here ended with a problem (the login screen reads it). */
  onOwnRunFailed: (problem: { code?: string; title?: string; detail?: string | null }) => void = () => {}
  /** The messages of a session just opened, oldest first (the editor recalls them with Up). */
  onOpenedMessages: (texts: string[]) => void = () => {}
  /** Told when any run ends (the status line's quota is read again). */
  onRunEnded: () => void = () => {}
  /** Inputs sent from here, and the runs serving them. */
  protected readonly sent = new Set<string>()
  readonly #ownRuns = new Set<string>()
  /** MCP servers that need a sign-in, each said once. */
  readonly #signIns = new SignInNotices()

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

  /**
   * Follows `sessionId`: the stream's snapshot brings the state and the newest entries; the
   * promise resolves once that snapshot arrived, and the stream goes on until close().
   */
  async open(sessionId: string): Promise<void> {
    this.close()
    this.transcript.clear()
    this.session = undefined
    this.#signIns.clear()
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
      this.#questions.reset(data.session.status.blocking_reason)
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
      this.#sayNeededSignIns(data.session.composition.quarantine)
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
   * The output of a run in progress when the session opens: its block is made now, its text up to
   * the snapshot is read from the active-output resource, and deltas that arrive meanwhile
   * wait behind it, so the run streams on live without a gap or a repeat.
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
          if (this.sent.delete(id)) this.#ownRuns.add(p.run_id)
        break
      case 'approval.requested':
        s.status = { ...s.status, phase: 'blocked' }
        break
      case 'approval.decided':
        if (s.status.phase === 'blocked') s.status = { ...s.status, phase: 'running' }
        break
      // An MCP server's question is the session's state: the chat opens its screen from it.
      case 'elicitation.requested':
        this.#questions.asked(p)
        s.status = { ...s.status, phase: 'blocked', blocking_reason: this.#questions.oldest }
        break
      case 'elicitation.answered':
      case 'elicitation.expired': {
        this.#questions.closed(p.request_id)
        const next = this.#questions.oldest
        if (s.status.blocking_reason?.kind === 'elicitation')
          s.status = { ...s.status, phase: next ? 'blocked' : 'running', blocking_reason: next }
        break
      }
      case 'run.interrupt_requested':
        s.status = { ...s.status, phase: 'interrupting' }
        break
      case 'run.ended':
        s.status = { ...s.status, phase: 'idle', run_id: null, blocking_reason: null }
        this.#questions.clear()
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
      case 'composition.changed':
        s.composition = { ...s.composition, quarantine: p.quarantine, availability: p.availability }
        this.#sayNeededSignIns(p.quarantine)
        break
      case 'session.configured':
        Object.assign(s, configuredFields(p.changes))
        if (p.changes && 'approval_policy' in p.changes)
          (s.configuration_resource.value as Record<string, unknown>).approval_policy =
            p.changes.approval_policy
        break
    }
  }

  #sayNeededSignIns(quarantine: SessionRead['composition']['quarantine'] | undefined): void {
    for (const text of this.#signIns.next(quarantine ?? []))
      this.transcript.notice(text, this.transcript.theme.warn)
  }

  /** Reads the session again (usage figures, phase) after a run. */
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
}

/** The fields of a `session.configured` event's changes that the session read shows. */
function configuredFields(changes: unknown): Partial<SessionRead> {
  const c = (changes ?? {}) as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const k of ['name', 'provider_profile', 'model', 'effort', 'approval_policy'])
    if (k in c) out[k] = c[k]
  return out as Partial<SessionRead>
}
