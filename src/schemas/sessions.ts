// Group `sessions`: the session tree, its configuration, visits, deletion and streams.
import type { Static } from 'typebox'
import * as Type from 'typebox'
import {
  ApprovalPolicyOf,
  Continuation,
  Effort,
  Limit,
  ModelId,
  Nullable,
  ProfileName,
  SessionName,
  Timestamp,
  UuidV7,
  WorkspacePath,
} from './common.ts'

const Str = (max = 4096) => Type.String({ maxLength: max })

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
export const McpAvailability = Type.Object(
  {
    kind: Type.Literal('mcp'),
    name: Type.String({ description: 'The server, as named in settings group mcp' }),
    transport: Type.Enum(['stdio', 'http']),
    state: Type.Enum(['starting', 'ready', 'failed', 'exited']),
    reason: Nullable(Type.String({ description: 'Why it failed or exited; never one of its secrets' })),
    since: Timestamp,
    tools: Type.Array(Type.String(), { description: 'The names its tools are offered to the model under' }),
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
        '`ok`: usable; `off`: the session’s selection turns it off (its turns are refused); `disabled`: settings turn it off; `unknown`: no such extension, or an MCP entry with neither command nor url',
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
  },
  { additionalProperties: false, $id: 'Quarantined' },
)

export const BlockingReason = Type.Object(
  {
    kind: Type.Literal('approval'),
    request_id: Type.String({ description: 'Answer it with an input of kind approval naming this id' }),
    tool: Type.String(),
    summary: Type.String({
      description: 'One line: what the call would do (`write src/a.ts`, `shell: npm test`)',
    }),
    effect: Type.Enum(['read', 'write', 'exec']),
  },
  { additionalProperties: false, $id: 'BlockingReason' },
)

export const Status = Type.Object(
  {
    phase: Type.Enum(['idle', 'queued', 'running', 'blocked', 'interrupting', 'deleting'], {
      description: '`blocked`: the run waits for what blocking_reason names (an approval)',
    }),
    run_id: Nullable(Type.String()),
    interrupt_requested: Type.Boolean(),
    blocking_reason: Nullable(BlockingReason),
  },
  { additionalProperties: false },
)

export const Preferences = Type.Object(
  {
    pinned: Type.Boolean(),
    pin_order: Nullable(Type.Integer()),
    archived: Type.Boolean(),
    opens: Type.Integer({ minimum: 0, description: 'Distinct visits (PUT visits); reads never count' }),
  },
  { additionalProperties: false },
)

const SelectionMap = Type.Record(Type.String({ maxLength: 256 }), Type.Boolean())
export const Selection = Type.Object(
  { extensions: SelectionMap, skills: SelectionMap, instructions: SelectionMap, mcp: SelectionMap },
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

export const WorkspaceChange = Type.Object(
  {
    workspace: Type.String(),
    requested_at: Timestamp,
    state: Type.Enum(['waiting_for_idle']),
  },
  { additionalProperties: false, description: 'A committed family move this busy session follows once idle' },
)

const AllowGitWrites = Type.Boolean({
  description:
    "Whether tools and commands may write the repositories' .git (hooks, config); false keeps it read-only (docs/tools.md)",
})

export const ConfigurationValue = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    workspace: Type.String(),
    provider_profile: Type.String(),
    model: Type.String(),
    effort: Nullable(Type.String()),
    preferences: Preferences,
    selection: Selection,
    catalog_revision: Nullable(Type.String()),
    approval_policy: Nullable(
      Type.Enum(['read-only', 'ask', 'auto'], {
        description:
          "Which tool calls run without asking (docs/tools.md); null follows the settings' tools.approval_policy",
      }),
    ),
    allow_git_writes: AllowGitWrites,
    revision: Type.Integer({ minimum: 1 }),
    family_revision: Type.Integer({ minimum: 1 }),
    workspace_change: Nullable(WorkspaceChange),
  },
  { additionalProperties: false },
)

export const ConfigurationResource = Type.Object(
  { url: Type.String(), etag: Type.String(), value: ConfigurationValue },
  { additionalProperties: false, $id: 'SessionConfiguration' },
)
export type ConfigurationResource = Static<typeof ConfigurationResource>

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
          "Lifetime of the prompt cache the last turn read or wrote, from its extension's cache policy (explicit policies only; null: unknown or none)",
      }),
    ),
    cache_fade: Type.Array(
      Type.Object(
        {
          tokens: Type.Integer({ minimum: 1, description: 'Prompt tokens the last turn left cached' }),
          expires_at: { ...Timestamp, description: 'When they go cold unless a turn reads them first' },
        },
        { additionalProperties: false },
      ),
      { description: 'When the cached prompt of the last turn expires (empty: no lifetime is known)' },
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
        '`loaded`: sent with each turn; `off`: turned off in selection.instructions; `skipped`: see reason',
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
    sent_bytes: Type.Integer({ minimum: 0, description: "Bytes of the file's text a turn sends" }),
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
        'The instruction files (AGENTS.md) a turn of the session sends, as they are at this read, in send order: docs/instructions.md',
    }),
  },
  { additionalProperties: false, $id: 'SessionRead' },
)
export type SessionRead = Static<typeof SessionRead>

// ---- Creation -------------------------------------------------------------------------

const CommonCreate = {
  name: Type.Optional(SessionName),
  provider_profile: Type.Optional(ProfileName),
  model: Type.Optional(ModelId),
  effort: Type.Optional(Nullable(Effort)),
}

export const CreateNew = Type.Object(
  { kind: Type.Literal('new'), workspace: WorkspacePath, ...CommonCreate },
  { additionalProperties: false, $id: 'SessionCreateNew' },
)
const ForkFields = {
  source_id: UuidV7,
  through_entry: Type.Optional(
    Nullable(
      Type.Integer({ minimum: 0, description: 'Last history position copied; null or absent copies all' }),
    ),
  ),
  workspace: Type.Optional(WorkspacePath),
  ...CommonCreate,
}
export const CreateForked = Type.Object(
  { kind: Type.Literal('forked'), ...ForkFields },
  { additionalProperties: false, $id: 'SessionCreateForked' },
)
export const CreateChild = Type.Object(
  {
    kind: Type.Literal('child'),
    parent_id: UuidV7,
    workspace: Type.Optional(WorkspacePath),
    ...CommonCreate,
  },
  { additionalProperties: false, $id: 'SessionCreateChild' },
)
export const SessionCreationRequest = Type.Union([CreateNew, CreateForked, CreateChild], {
  $id: 'SessionCreationRequest',
  discriminator: { propertyName: 'kind' },
})
export type SessionCreationRequest = Static<typeof SessionCreationRequest>

// ---- Configuration change --------------------------------------------------------------

/** Entries a selection map may hold, so a configuration stays far below the 1 MiB frame limit. */
export const MAX_SELECTION_ENTRIES = 4096
/** Bytes of JSON the four maps may take together: a read shows them three times. */
export const MAX_SELECTION_BYTES = 64 * 1024
const PatchMap = Type.Record(Type.String({ minLength: 1, maxLength: 256 }), Nullable(Type.Boolean()), {
  maxProperties: MAX_SELECTION_ENTRIES,
})
export const SessionChangeRequest = Type.Object(
  {
    name: Type.Optional(SessionName),
    provider_profile: Type.Optional(
      Type.String({
        ...ProfileName,
        description:
          "Another provider profile; without model in the same change the session takes that profile's model",
      }),
    ),
    model: Type.Optional(
      Type.String({ ...ModelId, description: 'The model every turn of the session is sent to' }),
    ),
    effort: Type.Optional(Nullable(Effort)),
    preferences: Type.Optional(
      Type.Object(
        {
          pinned: Type.Optional(Type.Boolean()),
          pin_order: Type.Optional(Nullable(Type.Integer())),
          archived: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
    selection: Type.Optional(
      Type.Object(
        {
          extensions: Type.Optional(PatchMap),
          skills: Type.Optional(PatchMap),
          instructions: Type.Optional(PatchMap),
          mcp: Type.Optional(PatchMap),
        },
        { additionalProperties: false },
      ),
    ),
    catalog_revision: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 256,
          description:
            'A catalog page’s catalog_revision: when the sections it names have changed since, the change is 409 catalog_changed and nothing is written',
        }),
      ),
    ),
    approval_policy: Type.Optional(
      Nullable(
        ApprovalPolicyOf(
          'Which tool calls run without asking; null follows the settings (tools.approval_policy)',
        ),
      ),
    ),
    allow_git_writes: Type.Optional(AllowGitWrites),
    workspace: Type.Optional(WorkspacePath),
    family_revision: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false, $id: 'SessionChangeRequest' },
)
export type SessionChangeRequest = Static<typeof SessionChangeRequest>

export const SessionChange = Type.Object(
  {
    resource: ConfigurationResource,
    followers: Type.Array(Type.String(), {
      description: 'Busy descendants that will follow a committed workspace move once idle',
    }),
  },
  { additionalProperties: false, $id: 'SessionChange' },
)

// ---- Deletion --------------------------------------------------------------------------

export const SessionDeletion = Type.Object(
  {
    scope: Type.Enum(['leaf', 'subtree']),
    outcome: Type.Enum(['deleted', 'partial', 'failed']),
    members: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          depth: Type.Integer(),
          outcome: Type.Enum(['deleted', 'interrupted_then_deleted', 'failed']),
          code: Nullable(Type.String()),
          detail: Nullable(Type.String()),
        },
        { additionalProperties: false },
      ),
      { description: 'Every member, deepest first, with its own outcome' },
    ),
    family_revision: Nullable(Type.Integer()),
  },
  { additionalProperties: false, $id: 'SessionDeletion' },
)

// ---- Visits ----------------------------------------------------------------------------

export const Visit = Type.Object(
  {
    id: Type.String(),
    session_id: Type.String(),
    visited_at: Timestamp,
    opens: Type.Integer({ minimum: 1, description: 'The session open count right after this visit counted' }),
  },
  { additionalProperties: false, $id: 'Visit' },
)

// ---- Paths, queries --------------------------------------------------------------------

export const SessionParams = Type.Object({ session_id: UuidV7 }, { additionalProperties: false })
export const VisitParams = Type.Object(
  { session_id: UuidV7, visit_id: UuidV7 },
  { additionalProperties: false },
)

const Bool = Type.Boolean()
export const SessionListQuery = Type.Object(
  {
    scope: Type.Optional(Type.Enum(['roots', 'all'])),
    parent_id: Type.Optional(UuidV7),
    family_id: Type.Optional(UuidV7),
    workspace: Type.Optional(Str()),
    search: Type.Optional(Type.String({ maxLength: 256 })),
    archived: Type.Optional(Bool),
    pinned: Type.Optional(
      Type.Boolean({
        description:
          'Only pinned (true) or unpinned (false) sessions: a client shows the pinned first without reading every page',
      }),
    ),
    needs_reload: Type.Optional(Bool),
    sort: Type.Optional(Type.Enum(['activity', 'frequent'])),
    limit: Type.Optional(Limit(200, 50)),
    next: Type.Optional(Continuation),
  },
  { additionalProperties: false },
)
export type SessionListQuery = Static<typeof SessionListQuery>

export const SessionPage = Type.Object(
  { items: Type.Array(SessionSummary), next: Nullable(Continuation) },
  { additionalProperties: false, $id: 'SessionPage' },
)

export const SessionReadQuery = Type.Object(
  {
    view: Type.Optional(Type.Literal('configuration')),
    tail: Type.Optional(Type.Integer({ minimum: 0, maximum: 200, default: 100 })),
    after_generation: Type.Optional(Type.Integer({ minimum: 1 })),
    after_seq: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
)

export const ConfigurationQuery = Type.Object(
  { view: Type.Literal('configuration') },
  { additionalProperties: false },
)
export const DeletionQuery = Type.Object(
  {
    view: Type.Literal('configuration'),
    scope: Type.Optional(Type.Enum(['leaf', 'subtree'])),
    family_revision: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
)
