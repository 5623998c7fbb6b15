// What every ACP request handler gets: the editor's side of the connection (to send
// session/update and session/request_permission), a client of the daemon as it is now, what
// the editor declared at initialize, the live followers of the sessions this process serves,
// and a log that writes to stderr (stdout carries nothing but protocol).
import type { AgentContext, ClientCapabilities, SessionUpdate } from '@agentclientprotocol/sdk'
import type { HearthClient } from '../client/client.ts'
import type { ApprovalRequested } from './permission.ts'
import type { MappingState, SessionEvent } from './updates.ts'

/** The follow loops of this process: one live follower (SSE) per ACP session. */
export interface LiveSessions {
  /**
   * Follows the session from its current cursor (or from `after`, a replay's cursor) until the
   * process ends, forwarding every event as session/update; resumes by cursor after a dropped
   * stream or a daemon restart. A second call for the same session keeps the one follower.
   * Resolves once the follower knows its starting cursor.
   */
  follow(sessionId: string, after?: { generation: number; sequence: number }): Promise<void>
  /** Sends updates to the editor for a session, in order after the ones already sent. */
  send(sessionId: string, updates: SessionUpdate[]): Promise<void>
  /** Stops following a session (session/close). */
  stop(sessionId: string): void
  /** Resolves once every update queued so far was written. */
  flushed(): Promise<void>
  /** Hands the session's next events to `watcher` until the returned function is called. */
  watch(sessionId: string, watcher: (event: SessionEvent) => void): () => void
  /** Marks an input as this process's own: its user entry is not echoed to the editor. */
  own(sessionId: string, inputId: string): void
  /** The mapping state of a followed session (its workspace, the calls in flight). */
  stateOf(sessionId: string): MappingState | undefined
  /** Asks the editor about an approval of a followed session that waited before it was followed. */
  askApproval(sessionId: string, request: ApprovalRequested): void
}

export interface AcpContext {
  /** The editor: `conn.notify(methods.client.session.update, …)`, `conn.request(…)`. */
  conn: AgentContext
  /** A client of the daemon as it is now (re-read after a restart moved it to a new port). */
  readonly client: HearthClient
  /** What the editor declared at initialize (undefined before it). */
  clientCapabilities: ClientCapabilities | undefined
  live: LiveSessions
  /** One line on stderr. */
  log: (line: string) => void
}
