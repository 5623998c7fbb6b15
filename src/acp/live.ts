// The live followers: one SSE follower per session this process serves, from the session's
// cursor on, resuming by cursor after a dropped stream or a daemon restart (through
// src/client/session-follow.ts, which reads the endpoint anew before each connection). Every
// event is mapped (./updates.ts) and sent to the editor as session/update, in order, then
// handed to the session's approvals (./permission.ts: asked of the editor, whoever's run
// waits) and to the watchers (a prompt waiting for its run's events).
import { type AgentContext, methods, type SessionUpdate } from '@agentclientprotocol/sdk'
import type { HearthClient } from '../client/client.ts'
import { followSession, type StreamFrame } from '../client/session-follow.ts'
import type { LiveSessions } from './context.ts'
import { configurationUpdates } from './models.ts'
import { type ApprovalRequested, SessionPermissions } from './permission.ts'
import {
  type MappingState,
  newMappingState,
  type SessionEvent,
  updatesOfEvent,
  usageUpdates,
} from './updates.ts'

/** Sees every event of a session after its updates were queued for the editor. */
export type Watcher = (event: SessionEvent) => void

interface Followed {
  ready: Promise<void>
  state: MappingState
  permissions: SessionPermissions
  watchers: Set<Watcher>
  /** Input ids this process sent: their user entries are not echoed to the editor. */
  ownInputs: Set<string>
  stop: AbortController
}

export interface LiveOptions {
  conn: () => AgentContext
  client: () => HearthClient
  log: (line: string) => void
}

export class Live implements LiveSessions {
  readonly #sessions = new Map<string, Followed>()
  readonly #o: LiveOptions
  /** The last notification written: each next one goes after it. */
  #sent: Promise<void> = Promise.resolve()

  constructor(o: LiveOptions) {
    this.#o = o
  }

  follow(sessionId: string, after?: { generation: number; sequence: number }): Promise<void> {
    const known = this.#sessions.get(sessionId)
    if (known) return known.ready
    const state = newMappingState('')
    const f: Followed = {
      ready: Promise.resolve(),
      state,
      permissions: new SessionPermissions(this.#asking(), sessionId, state),
      watchers: new Set(),
      ownInputs: new Set(),
      stop: new AbortController(),
    }
    f.ready = this.#start(sessionId, f, after)
    this.#sessions.set(sessionId, f)
    f.ready.catch(() => this.#sessions.delete(sessionId))
    return f.ready
  }

  /** Reads the session's workspace (and its cursor unless given), then follows it. */
  async #start(sessionId: string, f: Followed, after?: { generation: number; sequence: number }) {
    const { body } = await this.#o
      .client()
      .call('sessions.get', { params: { session_id: sessionId }, query: { tail: 0 } })
    const read = body as { workspace: string; cursor: { generation: number; sequence: number } }
    f.state.workspace = read.workspace
    const from = after ?? read.cursor
    void followSession({
      client: this.#o.client,
      sessionId,
      signal: f.stop.signal,
      after: { generation: from.generation, seq: from.sequence },
      onFrame: (frame) => this.#onFrame(sessionId, f, frame),
      onNotice: (m) => this.#o.log(`hearth acp: session ${sessionId}: ${m}`),
    })
      .then((end) => {
        if (end.reason === 'deleted') this.#o.log(`hearth acp: session ${sessionId} was deleted`)
      })
      .catch((err) => this.#o.log(`hearth acp: stopped following session ${sessionId}: ${err.message}`))
      .finally(() => {
        if (this.#sessions.get(sessionId) === f) this.#sessions.delete(sessionId)
        f.permissions.close()
        for (const w of f.watchers) w({ kind: 'follow.ended', payload: {} })
      })
  }

  #onFrame(sessionId: string, f: Followed, frame: StreamFrame): void {
    if (frame.event === 'snapshot' || frame.event === 'reset' || frame.event === 'overflow') return
    let event: SessionEvent
    try {
      event = JSON.parse(frame.data) as SessionEvent
    } catch {
      return
    }
    if (event.payload === undefined || event.payload === null) return
    const updates = updatesOfEvent(event, f.state)
    if (updates.length > 0 && !this.#echo(f, event)) void this.send(sessionId, updates)
    if (event.kind === 'session.configured') this.#configured(sessionId, event)
    if (event.kind === 'run.ended' && event.payload.usage) this.#usage(sessionId)
    f.permissions.onEvent(event)
    for (const w of f.watchers) w(event)
  }

  /** After a run: how full the context is, as the session read counts it against the model's window. */
  #usage(sessionId: string): void {
    void this.#o
      .client()
      .call('sessions.get', { params: { session_id: sessionId }, query: { tail: 0 } })
      .then(({ body }) =>
        this.send(sessionId, usageUpdates((body as { usage: Record<string, unknown> }).usage)),
      )
      .catch(() => {
        // the next run says it again
      })
  }

  /** A configuration change (from any client): the mode and options as they are now. */
  #configured(sessionId: string, event: SessionEvent): void {
    void configurationUpdates(this.#o.client(), sessionId, event.payload.changes)
      .then((updates) => this.send(sessionId, updates))
      .catch((err) => this.#o.log(`hearth acp: session ${sessionId}: ${err.message}`))
  }

  /** The user entry of a message this process sent: the editor shows it already. */
  #echo(f: Followed, event: SessionEvent): boolean {
    if (event.kind !== 'entry.added') return false
    const entry = event.payload.entry
    return entry?.kind === 'user' && f.ownInputs.has(entry.content?.input_id)
  }

  send(sessionId: string, updates: SessionUpdate[]): Promise<void> {
    const conn = this.#o.conn()
    for (const update of updates) {
      this.#sent = conn.notify(methods.client.session.update, { sessionId, update }).catch(() => {
        // the editor is gone: nothing more to tell it
      })
    }
    return this.#sent
  }

  /** Resolves once every update queued so far was written. */
  flushed(): Promise<void> {
    return this.#sent
  }

  stop(sessionId: string): void {
    this.#sessions.get(sessionId)?.stop.abort()
    this.#sessions.get(sessionId)?.permissions.close()
    this.#sessions.delete(sessionId)
  }

  /** The editor, the daemon and the log as they are when a question is asked. */
  #asking() {
    const o = this.#o
    return {
      get conn() {
        return o.conn()
      },
      get client() {
        return o.client()
      },
      log: o.log,
    }
  }

  /** Hands the session's next events to `watcher` until the returned function is called. */
  watch(sessionId: string, watcher: Watcher): () => void {
    const f = this.#sessions.get(sessionId)
    if (!f) throw new Error(`session ${sessionId} is not followed`)
    f.watchers.add(watcher)
    return () => f.watchers.delete(watcher)
  }

  /** Marks an input as this process's own (its user entry is not echoed). */
  own(sessionId: string, inputId: string): void {
    this.#sessions.get(sessionId)?.ownInputs.add(inputId)
  }

  askApproval(sessionId: string, request: ApprovalRequested): void {
    this.#sessions.get(sessionId)?.permissions.onEvent({ kind: 'approval.requested', payload: request })
  }

  /** The mapping state of a followed session (for a permission request's tool call). */
  stateOf(sessionId: string): MappingState | undefined {
    return this.#sessions.get(sessionId)?.state
  }

  close(): void {
    for (const f of this.#sessions.values()) {
      f.stop.abort()
      f.permissions.close()
    }
    this.#sessions.clear()
  }
}
