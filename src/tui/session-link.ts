// What the screens ask of the open session: create or fork it (a new one only once its
// first message is sent), send, interrupt, answer an approval, configure, and read the
// history pages the transcript scrolls to. Following the session's stream, and the state it
// brings, is ./session-stream.ts, which this builds on. Talks to the daemon only through
// the typed client in src/client/.

import { v7 as uuidv7 } from 'uuid'
import { ProblemError } from '../client/client.ts'
import { createSessionOnce } from '../client/create-session.ts'
import type { Answer } from '../client/elicitation-view.ts'
import type { InputRequest } from '../schemas/inputs.ts'
import type { SessionChangeRequest } from '../schemas/session-configuration.ts'
import type { SessionRead } from '../schemas/session-read.ts'
import type { ApprovalBlock } from './blocks.ts'
import { SessionStream } from './session-stream.ts'
import type { HistoryEntry } from './transcript.ts'

/** Entries per page read as the transcript scrolls (the transcript holds KEEP_PAGES of them). */
const PAGE = 50
/** Pauses before retrying an input PUT whose answer did not arrive (same id: never sent twice). */
const RETRY_DELAYS_MS = [200, 500, 1000, 2000]

export type ApprovalRemember = 'once' | 'session'

export class SessionLink extends SessionStream {
  readonly clientId = `tui-${process.pid}`
  #loadingOlder = false
  #loadingNewer = false
  /** Settles when the first session is open (messages typed before wait for it). */
  ready: Promise<void> = Promise.resolve()
  #draft: string | undefined
  #creating: Promise<void> | undefined
  /** The status line's view of the new session not created yet (SessionLink.startNew). */
  draftView: SessionRead | undefined

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

  /** Follows `sessionId` in place of the new session not created yet, if that showed. */
  override async open(sessionId: string): Promise<void> {
    this.#draft = undefined
    this.draftView = undefined
    await super.open(sessionId)
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
    this.sent.add(inputId)
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

  /** Answers an MCP server's question with an input of kind `elicitation` (its problem thrown). */
  async answerQuestion(requestId: string, a: Answer): Promise<void> {
    await this.#put(uuidv7(), { kind: 'elicitation', request_id: requestId, ...a, client_id: this.clientId })
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
   * Interrupts the run in progress: the run this client saw and the input order read now, so
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
