// A session as reads show it: the summary of lists and collection frames, and the full read
// of GET /sessions/{id} (history tail, composition, kernel, usage).
import type { Static } from 'typebox'
import * as Type from 'typebox'
import { Continuation, Nullable, Timestamp } from './common.ts'
import { ElicitationBlockingReason } from './elicitation.ts'
import { ConfigurationResource, Preferences, Selection } from './session-configuration.ts'

export const Cursor = Type.Object(
  {
    generation: Type.Integer({
      minimum: 1,
      description: 'Log generation; a new one starts when the log is rewritten',
    }),
    sequence: Type.Integer({ minimum: 0, description: 'Last event sequence number in that generation' }),
  },
  { additionalProperties: false },
)

/** An MCP server of a session, as its kernel loaded it. */
/** Whether a server left out needs a sign-in (docs/mcp.md, "Signed-in servers in a session"). */
const SignIn = Nullable(
  Type.Enum(['required'], {
    description:
      '`required`: the server refused hearth (HTTP 401) and no usable token exists; `hearth mcp login NAME` signs in, and the next run or reload starts it again',
  }),
)

export const McpAvailability = Type.Object(
  {
    kind: Type.Literal('mcp'),
    name: Type.String({ description: 'The server, as named in settings group mcp' }),
    transport: Type.Enum(['stdio', 'http']),
    state: Type.Enum(['starting', 'ready', 'failed', 'exited']),
    reason: Nullable(Type.String({ description: 'Why it failed or exited; never one of its secrets' })),
    since: Timestamp,
    tools: Type.Array(Type.String(), { description: 'The names its tools are offered to the model under' }),
    sign_in: SignIn,
  },
  { additionalProperties: false, $id: 'McpAvailability' },
)

/** Something the session's composition depends on (docs/catalog.md, "Dependencies"). */
export const Dependency = Type.Object(
  {
    kind: Type.Enum(['extension', 'mcp']),
    name: Type.String(),
    reason: Type.String({ description: 'Why the session depends on it' }),
    state: Type.Enum(['ok', 'off', 'disabled', 'unknown'], {
      description:
        '`ok`: usable; `off`: the session’s selection turns it off (its runs are refused); `disabled`: settings turn it off; `unknown`: no such extension, or an MCP entry with neither command nor url',
    }),
  },
  { additionalProperties: false },
)

/** A server left out of the session (it failed to start or exited); the session goes on without it. */
export const Quarantined = Type.Object(
  {
    kind: Type.Literal('mcp'),
    name: Type.String(),
    state: Type.Enum(['failed', 'exited']),
    reason: Type.String(),
    since: Timestamp,
    sign_in: SignIn,
  },
  { additionalProperties: false, $id: 'Quarantined' },
)

export const ApprovalBlockingReason = Type.Object(
  {
    kind: Type.Literal('approval'),
    request_id: Type.String({ description: 'Answer it with an input of kind approval naming this id' }),
    tool: Type.String(),
    summary: Type.String({
      description: 'One line: what the call would do (`write src/a.ts`, `shell: npm test`)',
    }),
    effect: Type.Enum(['read', 'write', 'exec']),
    run_id: Type.String({ description: 'The run whose call waits' }),
    call_id: Type.String({ description: 'The waiting call (its `tool_call` entry, `tool.*` events)' }),
  },
  { additionalProperties: false, $id: 'ApprovalBlockingReason' },
)

export const BlockingReason = Type.Union([ApprovalBlockingReason, ElicitationBlockingReason], {
  $id: 'BlockingReason',
  discriminator: { propertyName: 'kind' },
})

export const Status = Type.Object(
  {
    phase: Type.Enum(['idle', 'queued', 'running', 'blocked', 'interrupting', 'deleting'], {
      description:
        '`blocked`: the run waits for what blocking_reason names (an approval, or an answer to an MCP server’s question)',
    }),
    run_id: Nullable(Type.String()),
    interrupt_requested: Type.Boolean(),
    blocking_reason: Nullable(BlockingReason),
  },
  { additionalProperties: false },
)

export const Location = Type.Object(
  {
    host: Nullable(Type.String()),
    user: Nullable(Type.String()),
    path: Type.String(),
    label: Nullable(Type.String()),
  },
  { additionalProperties: false },
)

/** A tool call that runs now, with the end of its output so far (tool.progress has all). */
export const RunningToolCall = Type.Object(
  {
    run_id: Type.String(),
    call_id: Type.String(),
    name: Type.String(),
    summary: Type.String(),
    effect: Type.Enum(['read', 'write', 'exec']),
    started_at: Timestamp,
    lines: Type.Array(Type.String(), {
      maxItems: 3,
      description: 'The last lines of its output so far, the last 1,024 characters of each',
    }),
    output_utf8_bytes: Type.Integer({ minimum: 0, description: 'UTF-8 bytes of its output streamed so far' }),
  },
  { additionalProperties: false, $id: 'RunningToolCall' },
)

/** The input accepted last: its start, for lists that show what was asked. */
export const LatestInput = Type.Object(
  {
    id: Type.String(),
    acceptance_order: Type.Integer({ minimum: 1 }),
    client_id: Type.String(),
    text: Type.String({ maxLength: 256, description: 'The first 256 characters of its text' }),
  },
  { additionalProperties: false, $id: 'LatestInput' },
)

/** How the last run ended, with the start of its answer. */
export const LatestAnswer = Type.Object(
  {
    run_id: Type.String(),
    outcome: Type.Enum(['completed', 'interrupted', 'failed']),
    text: Type.String({
      maxLength: 256,
      description: 'The first 256 characters of its answer; empty when it gave none',
    }),
    transcript_position: Nullable(
      Type.Integer({ minimum: 1, description: 'The position of its answer entry; null without an answer' }),
    ),
    completed_at: Timestamp,
  },
  { additionalProperties: false, $id: 'LatestAnswer' },
)

export const SessionSummary = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    automatic_name: Type.String(),
    workspace: Type.String(),
    location: Location,
    parent_id: Nullable(Type.String()),
    root_id: Type.String(),
    address: Type.Null(),
    depth: Type.Integer({ minimum: 0 }),
    closed: Type.Boolean(),
    created_at: Timestamp,
    activity_at: Timestamp,
    provider_profile: Type.String(),
    model: Type.String(),
    effort: Nullable(Type.String()),
    status: Status,
    preview: Type.Object(
      { text: Type.String(), transcript_count: Type.Integer({ minimum: 0 }), truncated: Type.Boolean() },
      { additionalProperties: false },
    ),
    preferences: Preferences,
    current_progress: Type.Array(RunningToolCall, {
      description: 'The tool calls running now, in the order they started; empty when none runs',
    }),
    active_output: Type.Array(Type.Unknown()),
    activity: Type.Object(
      {
        lines: Type.Array(Type.String()),
        output_scalars: Type.Integer({ minimum: 0 }),
        output_utf8_bytes: Type.Integer({ minimum: 0 }),
        observed_at: Timestamp,
      },
      { additionalProperties: false },
    ),
    latest_input: Nullable(LatestInput),
    latest_answer: Nullable(LatestAnswer),
    cursor: Cursor,
  },
  { additionalProperties: false, $id: 'SessionSummary' },
)
export type SessionSummary = Static<typeof SessionSummary>

const NullableNumber = Nullable(Type.Number())
export const Usage = Type.Object(
  {
    model: Nullable(Type.String()),
    observed_at: Nullable(Timestamp),
    prompt_tokens: NullableNumber,
    cached_prompt_tokens: NullableNumber,
    cache_write_tokens: NullableNumber,
    completion_tokens: NullableNumber,
    total_tokens: NullableNumber,
    elapsed_ms: NullableNumber,
    tokens_per_second: NullableNumber,
    context_window_tokens: NullableNumber,
    cache_ttl_seconds: Nullable(
      Type.Number({
        description:
          "Lifetime of the prompt cache the last step read or wrote, from its extension's cache policy (explicit policies only; null: unknown or none)",
      }),
    ),
    cache_fade: Type.Array(
      Type.Object(
        {
          tokens: Type.Integer({ minimum: 1, description: 'Prompt tokens the last step left cached' }),
          expires_at: { ...Timestamp, description: 'When they go cold unless a step reads them first' },
        },
        { additionalProperties: false },
      ),
      { description: 'When the cached prompt of the last step expires (empty: no lifetime is known)' },
    ),
  },
  { additionalProperties: false },
)

export const SubmittedCreation = Type.Object(
  {
    kind: Type.Enum(['new', 'forked', 'child']),
    workspace: Nullable(Type.String()),
    name: Nullable(Type.String()),
    provider_profile: Nullable(Type.String()),
    model: Nullable(Type.String()),
    effort: Nullable(Type.String()),
    source_id: Nullable(Type.String()),
    through_entry: Nullable(Type.Integer()),
    parent_id: Nullable(Type.String()),
  },
  { additionalProperties: false },
)

export const InstructionSource = Type.Object(
  {
    path: Type.String({
      description: 'Absolute path of the file (the key that turns it off in selection.instructions)',
    }),
    scope: Type.Enum(['global', 'workspace'], {
      description:
        "`global`: AGENTS.md in hearth's home; `workspace`: a directory from the root down to the workspace",
    }),
    state: Type.Enum(['loaded', 'off', 'skipped'], {
      description:
        '`loaded`: sent with each step; `off`: turned off in selection.instructions; `skipped`: see reason',
    }),
    reason: Nullable(
      Type.Enum([
        'not_a_file',
        'unreadable',
        'not_text',
        'empty',
        'untrusted_owner',
        'writable_by_others',
        'duplicate',
        'over_total_budget',
      ]),
    ),
    bytes: Type.Integer({ minimum: 0, description: 'Size of the file on disk' }),
    sent_bytes: Type.Integer({ minimum: 0, description: "Bytes of the file's text a step sends" }),
    truncated: Type.Boolean({
      description: "Only the file's beginning is sent (32 KiB per file, 64 KiB in all)",
    }),
  },
  { additionalProperties: false, $id: 'InstructionSource' },
)

export const SessionRead = Type.Object(
  {
    ...SessionSummary.properties,
    creation: Type.Object(
      {
        submitted: SubmittedCreation,
        resolved: Type.Object(
          {
            workspace: Type.String(),
            provider_profile: Type.String(),
            model: Type.String(),
            effort: Nullable(Type.String()),
            revision: Type.Integer(),
            family_revision: Type.Integer(),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
    configuration_resource: ConfigurationResource,
    selection: Type.Object({ overrides: Selection, effective: Selection }, { additionalProperties: false }),
    composition: Type.Object(
      {
        desired_revision: Type.Integer({ minimum: 1 }),
        loaded_revision: Nullable(Type.Integer()),
        needs_reload: Type.Boolean(),
        dependencies: Type.Record(Type.String(), Dependency, {
          description:
            'By `extension:<name>` and `mcp:<name>`: the extensions the session’s profile needs (transitively) and the MCP servers it loads',
        }),
        quarantine: Type.Array(Quarantined, {
          description:
            'What the session runs without, and why (an MCP server that failed to start or exited)',
        }),
        availability: Type.Record(Type.String(), McpAvailability, {
          description: "What the session's kernel loaded, by `mcp:<server>`; empty while it has no kernel",
        }),
      },
      { additionalProperties: false },
    ),
    kernel: Type.Object(
      {
        instance_id: Nullable(Type.String()),
        state: Type.String({ description: '`none` until the first input starts a kernel' }),
        stage: Nullable(Type.String()),
        build: Nullable(Type.String()),
        stale: Type.Boolean(),
        staleness_reasons: Type.Array(Type.String()),
        live_job_count: Type.Integer({ minimum: 0 }),
        running_jobs: Type.Array(
          Type.Object(
            {
              id: Type.String(),
              command: Type.String(),
              started_at: Timestamp,
              output_bytes: Type.Integer({ minimum: 0 }),
              run_id: Type.String({ description: 'The run that started it' }),
            },
            { additionalProperties: false },
          ),
          { description: 'Background jobs that still run (started by the job_start tool)' },
        ),
        sandbox: Type.Object(
          {
            isolated: Type.Boolean({ description: 'Whether its commands run inside the sandbox' }),
            kind: Nullable(Type.Enum(['bubblewrap'])),
            network: Type.Boolean({ description: 'Whether its commands may use the network' }),
            reason: Nullable(Type.String({ description: 'Why commands are not isolated' })),
            hidden_paths: Type.Array(Type.String(), {
              description:
                "The user's credentials hidden from commands and file tools (docs/tools.md, hidden paths)",
            }),
            git_writable: Type.Boolean({
              description: "Whether tools and commands may write the repositories' .git (allow_git_writes)",
            }),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
    pending_inputs: Type.Array(Type.Unknown()),
    input_order: Type.Integer({ minimum: 0 }),
    usage: Usage,
    history: Type.Object(
      {
        items: Type.Array(Type.Unknown()),
        older: Nullable(Continuation),
        newer: Nullable(Continuation),
        high_water: Type.Integer({ minimum: 0 }),
      },
      { additionalProperties: false },
    ),
    glances: Type.Array(Type.Unknown()),
    instructions: Type.Array(InstructionSource, {
      description:
        'The instruction files (AGENTS.md) a step of the session sends, as they are at this read, in send order: docs/instructions.md',
    }),
    last_change: Nullable(
      Type.Object(
        {
          run_id: Nullable(Type.String({ description: 'The run that changed files (null: a restore)' })),
          restore_id: Nullable(Type.String({ description: 'The restore that changed files (null: a run)' })),
          files: Type.Integer({ minimum: 0 }),
          at: Timestamp,
        },
        {
          additionalProperties: false,
          description:
            'The last change to the workspace’s files the session made: a run’s (GET .../runs/{run_id}/changes) or a restore’s; null when none was recorded (docs/checkpoints.md)',
        },
      ),
    ),
  },
  { additionalProperties: false, $id: 'SessionRead' },
)
export type SessionRead = Static<typeof SessionRead>
