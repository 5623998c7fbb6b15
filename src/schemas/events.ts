// Stream frames. Log events are `noun.past_verb`; the kind list only grows, a changed
// payload gets a new kind, because logs replay. Each SSE frame is `event: <kind>`,
// `id: <generation>:<sequence>` (log events and snapshots), `data: <JSON below>`.
import type { TSchema } from 'typebox'
import * as Type from 'typebox'
import { Nullable, Timestamp } from './common.ts'
import { ElicitationContent, ElicitationReasonFields } from './elicitation.ts'
import { HistoryEntry } from './history.ts'
import { PendingInput } from './inputs.ts'
import { Problem } from './problems.ts'
import { Cursor, McpAvailability, Quarantined, SessionRead } from './session-read.ts'

const Envelope = (kind: string, payload: TSchema) =>
  Type.Object(
    {
      kind: Type.Literal(kind),
      generation: Type.Integer(),
      sequence: Type.Integer(),
      at: Timestamp,
      payload,
    },
    { additionalProperties: false },
  )

const Any = Type.Record(Type.String(), Type.Unknown())

/** The data of a frame whose JSON would pass 1 MiB: read the content through the JSON resource. */
const Omitted = Type.Object(
  { omitted: Type.Literal(true), reason: Type.Literal('frame_too_large'), bytes: Type.Integer() },
  { additionalProperties: false },
)

/** Log event kinds and their payloads. */
export const LOG_EVENTS = {
  'session.created': Type.Object({ creation: Any }, { additionalProperties: false }),
  'session.configured': Type.Object(
    { revision: Type.Integer(), changes: Any },
    { additionalProperties: false, description: 'Changed configuration fields with their new values' },
  ),
  'session.reload_needed': Type.Object(
    {
      desired_revision: Type.Integer(),
      reason: Type.Enum(['settings']),
      group: Type.String({ description: 'The settings group whose change affects this session' }),
    },
    { additionalProperties: false, description: 'The composition the session runs with changed' },
  ),
  'session.visited': Type.Object(
    { visit_id: Type.String(), opens: Type.Integer() },
    { additionalProperties: false },
  ),
  'session.workspace_moved': Type.Object(
    { workspace: Type.String(), family_revision: Type.Integer() },
    { additionalProperties: false },
  ),
  'session.workspace_change_pending': Type.Object(
    { workspace: Type.String(), requested_at: Type.String(), state: Type.Literal('waiting_for_idle') },
    { additionalProperties: false },
  ),
  'session.child_added': Type.Object({ child_id: Type.String() }, { additionalProperties: false }),
  'session.child_removed': Type.Object({ child_id: Type.String() }, { additionalProperties: false }),
  'input.accepted': Type.Object({ input: PendingInput }, { additionalProperties: false }),
  'input.cancelled': Type.Object(
    { input_id: Type.String(), acceptance_order: Type.Integer() },
    { additionalProperties: false },
  ),
  'run.started': Type.Object(
    { run_id: Type.String(), input_ids: Type.Array(Type.String()), group: Type.Integer() },
    {
      additionalProperties: false,
      description: 'A run took these waiting inputs; their user entries follow',
    },
  ),
  'entry.added': Type.Object(
    { entry: HistoryEntry },
    { additionalProperties: false, description: 'An entry was committed to the history' },
  ),
  'output.started': Type.Object(
    {
      run_id: Type.String(),
      content_id: Type.String(),
      kind: Type.Enum(['text', 'reasoning']),
      index: Type.Integer({ minimum: 0 }),
    },
    { additionalProperties: false, description: 'The run in progress began a new piece of output' },
  ),
  'output.delta': Type.Object(
    { content_id: Type.String(), delta: Type.String() },
    { additionalProperties: false, description: 'Text appended to an active output' },
  ),
  'run.interrupt_requested': Type.Object({ run_id: Type.String() }, { additionalProperties: false }),
  'run.ended': Type.Object(
    {
      run_id: Type.String(),
      outcome: Type.Enum(['completed', 'interrupted', 'failed']),
      problem: Type.Union([Problem, Type.Null()]),
      usage: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
    },
    {
      additionalProperties: false,
      description: 'The run ended; its output entries were added just before; the session is idle or queued',
    },
  ),
  'workspace.changed': Type.Object(
    {
      run_id: Type.String(),
      files: Type.Integer({
        minimum: 0,
        description: 'Files the run changed (GET .../runs/{run_id}/changes)',
      }),
      approximate: Type.Boolean({ description: 'Recorded when the daemon started again after a crash' }),
    },
    {
      additionalProperties: false,
      description:
        'The run’s after snapshot was recorded (after its run.ended): what it changed in the files',
    },
  ),
  'workspace.restored': Type.Object(
    {
      restore_id: Type.String(),
      run_id: Nullable(Type.String()),
      undoes_restore_id: Nullable(Type.String()),
      files: Type.Integer({ minimum: 0, description: 'Files written or deleted' }),
      recovered: Type.Boolean(),
    },
    { additionalProperties: false, description: 'A restore put files back (GET .../restores/{restore_id})' },
  ),
  'tool.started': Type.Object(
    {
      run_id: Type.String(),
      call_id: Type.String(),
      name: Type.String(),
      summary: Type.String(),
      effect: Type.Enum(['read', 'write', 'exec']),
    },
    {
      additionalProperties: false,
      description: 'A tool call began to run (its tool_call entry was added when its step ended)',
    },
  ),
  'tool.progress': Type.Object(
    { call_id: Type.String(), stream: Type.Enum(['stdout', 'stderr']), text: Type.String() },
    { additionalProperties: false, description: 'Output of a running call (a command), in order' },
  ),
  'tool.ended': Type.Object(
    {
      run_id: Type.String(),
      call_id: Type.String(),
      outcome: Type.Enum(['ok', 'error', 'interrupted', 'timeout', 'denied']),
      output: Type.String({ description: 'The first 4,096 characters of what the model got back' }),
      output_truncated: Type.Boolean(),
      meta: Type.Record(Type.String(), Type.Unknown()),
    },
    {
      additionalProperties: false,
      description: 'A call ended; its tool_result entry is added in the same commit',
    },
  ),
  'approval.requested': Type.Object(
    {
      kind: Type.Literal('approval'),
      request_id: Type.String(),
      tool: Type.String(),
      summary: Type.String(),
      effect: Type.Enum(['read', 'write', 'exec']),
      run_id: Type.String(),
      call_id: Type.String(),
      arguments: Type.String({ description: 'The arguments as the model wrote them (JSON text)' }),
    },
    {
      additionalProperties: false,
      description:
        'A call waits for a person: answer with an input of kind approval (status.blocking_reason)',
    },
  ),
  'approval.decided': Type.Object(
    {
      request_id: Type.String(),
      run_id: Type.String(),
      call_id: Type.String(),
      decision: Type.Enum(['allow', 'deny']),
      remember: Type.Enum(['once', 'session']),
      input_id: Type.String(),
    },
    { additionalProperties: false, description: 'An approval input decided the request' },
  ),
  'elicitation.requested': Type.Object(
    { ...ElicitationReasonFields, run_id: Type.String(), call_id: Type.String() },
    {
      additionalProperties: false,
      description:
        'An MCP server asks the person during the call: answer with an input of kind elicitation (status.blocking_reason)',
    },
  ),
  'elicitation.answered': Type.Object(
    {
      request_id: Type.String(),
      run_id: Type.String(),
      call_id: Type.String(),
      server: Type.String(),
      action: Type.Enum(['accept', 'decline', 'cancel']),
      content: Nullable(ElicitationContent),
      input_id: Type.String(),
    },
    {
      additionalProperties: false,
      description: 'An elicitation input answered the request; the answer goes on to the server',
    },
  ),
  'elicitation.expired': Type.Object(
    {
      request_id: Type.String(),
      run_id: Type.String(),
      call_id: Type.String(),
      server: Type.String(),
      reason: Type.Enum(['run_ended', 'call_ended', 'withdrawn'], {
        description:
          '`run_ended`: its run ended first (the server got cancel); `call_ended`: the call ended while it waited; `withdrawn`: the server withdrew the question (`notifications/cancelled`) while its call goes on',
      }),
    },
    { additionalProperties: false, description: 'A question nobody answered expired' },
  ),
  'elicitation.completed': Type.Object(
    {
      server: Type.String(),
      elicitation_id: Type.String(),
      request_id: Nullable(Type.String({ description: 'The URL request of this session it names, if any' })),
    },
    {
      additionalProperties: false,
      description: 'The server says a URL interaction it asked for is complete (it only informs)',
    },
  ),
  'composition.changed': Type.Object(
    {
      quarantine: Type.Array(Quarantined),
      availability: Type.Record(Type.String(), McpAvailability),
    },
    {
      additionalProperties: false,
      description: 'The MCP servers the session runs with changed: loaded, failed to start, or exited',
    },
  ),
  'compaction.started': Type.Object(
    {
      compaction_id: Type.String(),
      trigger: Type.Enum(['manual', 'auto']),
      strategy: Type.Enum(['summarize', 'truncate']),
      keep_turns: Type.Integer({ minimum: 0 }),
    },
    {
      additionalProperties: false,
      description: 'A compaction began (POST .../compaction, or before a request that would overflow)',
    },
  ),
  'compaction.ended': Type.Object(
    {
      compaction_id: Type.String(),
      trigger: Type.Enum(['manual', 'auto']),
      strategy: Type.Enum(['summarize', 'truncate']),
      outcome: Type.Enum(['completed', 'unchanged', 'failed']),
      problem: Type.Union([Problem, Type.Null()]),
      position: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
        description: 'The compaction entry added to the history (completed only)',
      }),
    },
    {
      additionalProperties: false,
      description:
        'A compaction ended: completed (its entry was added just before), unchanged (nothing old enough to compact) or failed (the history is unchanged)',
    },
  ),
  'kernel.jobs_changed': Type.Object(
    {
      live_job_count: Type.Integer({ minimum: 0 }),
      running: Type.Array(Type.String(), { description: 'Ids of the jobs that run now' }),
    },
    {
      additionalProperties: false,
      description: 'A background job started or ended (kernel.running_jobs of a read has the details)',
    },
  ),
  'kernel.staleness_changed': Type.Object(
    {
      stale: Type.Boolean(),
      staleness_reasons: Type.Array(Type.String()),
    },
    {
      additionalProperties: false,
      description:
        "The kernel bundle on disk changed (an update) and the session's kernel runs an older one: an upgrade would help (kernel.stale of a read follows)",
    },
  ),
  'kernel.stage_changed': Type.Object(
    {
      stage: Type.Union([Type.Enum(['staging', 'validating', 'swapping']), Type.Null()], {
        description: 'The stage an upgrade is in now; null once it ended',
      }),
      outcome: Type.Union([Type.Enum(['upgraded', 'failed']), Type.Null()], {
        description: 'How the upgrade ended (with stage null)',
      }),
      instance_id: Type.Union([Type.String(), Type.Null()], {
        description: "The session's kernel instance now",
      }),
    },
    {
      additionalProperties: false,
      description:
        'A kernel upgrade (POST .../kernel/upgrade) moved to a stage, or ended (kernel.stage of a read follows)',
    },
  ),
} as const

const frame = (event: string, data: TSchema, withId: boolean, description: string) =>
  Type.Object(
    {
      event: Type.Literal(event),
      ...(withId ? { id: Type.String({ description: '<generation>:<sequence>' }) } : {}),
      data,
    },
    { additionalProperties: false, description },
  )

export const SessionSSE = Type.Union(
  [
    frame(
      'snapshot',
      Type.Object({ session: SessionRead }, { additionalProperties: false }),
      true,
      'The session as of the frame id, with up to `tail` history entries; first frame of a fresh subscription',
    ),
    frame(
      'reset',
      Type.Object(
        { reason: Type.Enum(['generation_superseded', 'sequence_ahead']), cursor: Cursor },
        { additionalProperties: false },
      ),
      false,
      'The resume cursor is not in the current log generation; a snapshot follows',
    ),
    ...Object.entries(LOG_EVENTS).map(([kind, payload]) =>
      frame(kind, Type.Union([Envelope(kind, payload), Omitted]), true, `Log event ${kind}`),
    ),
    frame(
      'session.deleted',
      Type.Object({ session_id: Type.String() }, { additionalProperties: false }),
      false,
      'The session was deleted; the stream ends',
    ),
    frame(
      'overflow',
      Type.Object(
        { reason: Type.Literal('slow_reader'), queued_limit: Type.Integer() },
        { additionalProperties: false },
      ),
      false,
      'The client fell behind the bounded queue; the stream ends; resume from the last id',
    ),
  ],
  {
    $id: 'SessionSSE',
    description: 'Frames of the session stream. Comment lines (": heartbeat") every 15 s of silence.',
  },
)

export const CollectionSSE = Type.Union(
  [
    frame('ready', Type.Object({}, { additionalProperties: false }), false, 'Subscribed: read pages now'),
    frame(
      'session.invalidated',
      Type.Object(
        { session_id: Type.String(), reason: Type.Enum(['created', 'changed', 'deleted']) },
        { additionalProperties: false },
      ),
      false,
      'A session in scope (before or after the change) was created, changed or deleted',
    ),
    frame(
      'overflow',
      Type.Object(
        { reason: Type.Literal('slow_reader'), queued_limit: Type.Integer() },
        { additionalProperties: false },
      ),
      false,
      'The client fell behind; the stream ends; subscribe again and re-read pages',
    ),
  ],
  { $id: 'CollectionSSE', description: 'Frames of the collection stream. No ids, no replay.' },
)
