// Row and event shapes of the sessions domain (plain values; no HTTP here).

export interface SelectionMaps {
  extensions: Record<string, boolean>
  skills: Record<string, boolean>
  instructions: Record<string, boolean>
  mcp: Record<string, boolean>
}

export interface WorkspaceChangeValue {
  workspace: string
  requested_at: string
  state: 'waiting_for_idle'
}

export interface SessionRow {
  rowid: number
  id: string
  parent_id: string | null
  root_id: string
  depth: number
  name: string
  automatic_name: string
  workspace: string
  provider_profile: string
  model: string
  effort: string | null
  pinned: number
  pin_order: number | null
  archived: number
  opens: number
  selection: string
  catalog_revision: string | null
  revision: number
  desired_revision: number
  loaded_revision: number | null
  creation: string
  created_at: string
  activity_ms: number
  phase: string
  workspace_change: string | null
  preview_text: string
  /** 1 when preview_text is a cut of a longer text. */
  preview_truncated: number
  transcript_count: number
  generation: number
  seq: number
  input_order: number
  run_id: string | null
  run_count: number
  interrupt_requested: number
  latest_input: string | null
  latest_answer: string | null
  usage: string | null
  /** `read-only`, `ask` or `auto`; null follows the `tools` settings. */
  approval_policy: string | null
  /** JSON: what the session allowed for its rest (docs/tools.md, approvals). */
  tool_allows: string
  /** 1 when tools and commands may write the repositories' `.git` (docs/tools.md). */
  allow_git_writes: number
  /** JSON: the read's `last_change` (docs/checkpoints.md), or null. */
  last_change: string | null
  /** JSON: what the run waits for (an approval), or null. */
  blocking_reason: string | null
  /** JSON: the compaction strategy the session chose ({strategy, keep_turns}); null follows the settings. */
  compaction_strategy: string | null
  /** Joined from families. */
  family_revision: number
}

export interface LogEvent {
  session_id: string
  generation: number
  seq: number
  kind: string
  at: string
  payload: unknown
}

export type InvalidationReason = 'created' | 'changed' | 'deleted'

/** A change to the session collection, for collection-stream subscribers. */
export interface CollectionChange {
  session_id: string
  reason: InvalidationReason
  /** The row before and after the change (undefined when created / deleted). */
  before: SessionRow | undefined
  after: SessionRow | undefined
}

export const EMPTY_SELECTION: SelectionMaps = { extensions: {}, skills: {}, instructions: {}, mcp: {} }
