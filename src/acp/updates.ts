// The daemon's events and history entries as ACP session/update notifications. Pure
// functions over a small per-session state (which output is text or reasoning, what each
// tool call is), used for live events and for a replayed history alike.
import type { SessionUpdate } from '@agentclientprotocol/sdk'

/** What the mapping remembers of a session between events. */
export interface MappingState {
  /** The session's workspace: tool paths are relative to it, ACP paths are absolute. */
  workspace: string
  /** Output content ids and whether each is text or reasoning. */
  outputs: Map<string, 'text' | 'reasoning'>
  /** Tool calls by call id: name and arguments, and the output streamed so far. */
  calls: Map<string, { name: string; args: Record<string, unknown>; output: string }>
}

export const newMappingState = (workspace: string): MappingState => ({
  workspace,
  outputs: new Map(),
  calls: new Map(),
})

/** One event of the session stream (the frame's data). */
export interface SessionEvent {
  kind: string
  payload: Record<string, any>
}

/** One history entry (HistoryEntry of the API). */
export interface Entry {
  id: string
  kind: string
  content: Record<string, any>
}

export function updatesOfEvent(_event: SessionEvent, _state: MappingState): SessionUpdate[] {
  return []
}

export function updatesOfEntry(_entry: Entry, _state: MappingState): SessionUpdate[] {
  return []
}
