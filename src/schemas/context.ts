// Group `context`: what a session's next request would hold (summary, one section's text
// under a snapshot, the requests actually sent), and compaction (docs/context.md).
import type { Static } from 'typebox'
import * as Type from 'typebox'
import { Continuation, Limit, Nullable, Timestamp } from './common.ts'
import { Problem } from './problems.ts'
import { InstructionSource } from './session-read.ts'
import { CompactionStrategySchema, KeepTurns } from './settings-simple.ts'

const Tokens = Type.Integer({ minimum: 0, description: 'Estimated tokens' })
const Position = Nullable(Type.Integer({ minimum: 1 }))
const SectionId = Type.Enum(['instructions', 'tools', 'compaction', 'history'])

export const ContextQuery = Type.Object(
  {
    view: Type.Optional(Type.Enum(['summary', 'section', 'requests'])),
    snapshot_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'From the summary (view=section)' }),
    ),
    section_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'view=section' })),
    page: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'view=section, from 0' }),
    ),
    after: Type.Optional(
      Type.Integer({ minimum: 0, description: 'view=requests: records after this request id' }),
    ),
    limit: Type.Optional(Limit(200, 50)),
    next: Type.Optional(Continuation),
  },
  { additionalProperties: false },
)
export type ContextQuery = Static<typeof ContextQuery>

const HistoryParts = Type.Object(
  { user: Tokens, assistant: Tokens, tool_results: Tokens, images: Tokens, framing: Tokens },
  { additionalProperties: false },
)

const Chars = Type.Integer({ minimum: 0, description: 'Characters' })
const SystemParts = Type.Object(
  { own: Chars, files: Chars, skills: Chars, environment: Chars },
  {
    additionalProperties: false,
    description:
      "The instructions section's parts in send order: hearth's own instructions (with the settings' addition), the instruction files, the skills listing, the environment block",
  },
)

const Section = Type.Object(
  {
    id: SectionId,
    title: Type.String(),
    tokens: Tokens,
    chars: Type.Optional(Type.Integer({ minimum: 0 })),
    files: Type.Optional(Type.Integer({ minimum: 0 })),
    count: Type.Optional(Type.Integer({ minimum: 0 })),
    compaction_id: Type.Optional(Type.String()),
    position: Type.Optional(Type.Integer({ minimum: 1 })),
    parts: Type.Optional(HistoryParts),
    system_parts: Type.Optional(SystemParts),
    messages: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
)

export const ContextSummary = Type.Object(
  {
    view: Type.Literal('summary'),
    snapshot_id: Type.String({ description: 'Names this state of the context for view=section' }),
    provider_profile: Type.String(),
    model: Type.String(),
    window_tokens: Nullable(Type.Integer({ minimum: 1, description: 'The model window, when known' })),
    estimated_tokens: Type.Integer({ minimum: 0, description: 'The sum of the sections’ tokens' }),
    percent_of_window: Nullable(Type.Number()),
    estimator: Type.String({ description: 'How tokens are estimated' }),
    sections: Type.Array(Section),
    instructions: Type.Array(InstructionSource, {
      description: 'The instruction files found, as the session read lists them',
    }),
    tools: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          source: Type.String({ description: '`builtin`, or the source that offers it' }),
          effect: Type.String(),
          tokens: Tokens,
        },
        { additionalProperties: false },
      ),
    ),
    history: Type.Object(
      {
        high_water: Type.Integer({ minimum: 0 }),
        from_position: Position,
        to_position: Position,
        entries: Type.Integer({ minimum: 0 }),
        turns: Type.Integer({ minimum: 0 }),
        compacted_through: Position,
        compacted_turns: Type.Integer({ minimum: 0 }),
      },
      { additionalProperties: false },
    ),
    compaction: Type.Object(
      {
        auto: Type.Boolean(),
        threshold_percent: Type.Integer(),
        strategy: CompactionStrategySchema,
        keep_turns: Type.Integer({ minimum: 0 }),
        strategy_source: Type.Enum(['session', 'settings']),
        would_compact: Type.Boolean({
          description: 'The next request passes the threshold: it would be compacted first',
        }),
        latest: Nullable(
          Type.Object(
            {
              compaction_id: Type.String(),
              position: Type.Integer({ minimum: 1 }),
              created_at: Timestamp,
              strategy: CompactionStrategySchema,
              trigger: Type.Enum(['manual', 'auto']),
              through_position: Type.Integer({ minimum: 0 }),
            },
            { additionalProperties: false },
          ),
        ),
      },
      { additionalProperties: false },
    ),
    last_request: Nullable(
      Type.Object(
        { prompt_tokens: Type.Integer({ minimum: 0 }), observed_at: Nullable(Timestamp) },
        { additionalProperties: false, description: 'Prompt tokens the provider reported for the last step' },
      ),
    ),
  },
  { additionalProperties: false },
)

export const ContextSection = Type.Object(
  {
    view: Type.Literal('section'),
    snapshot_id: Type.String(),
    section_id: SectionId,
    page: Type.Integer({ minimum: 0 }),
    pages: Type.Integer({ minimum: 1 }),
    next_page: Nullable(Type.Integer({ minimum: 1 })),
    tokens: Tokens,
    text: Type.String({ description: 'At most 65,536 characters of the section’s text' }),
  },
  { additionalProperties: false },
)

const RequestEstimate = Type.Object(
  {
    instructions: Tokens,
    tools: Tokens,
    compaction: Tokens,
    history: Type.Object(
      {
        user: Tokens,
        assistant: Tokens,
        tool_results: Tokens,
        images: Tokens,
        framing: Tokens,
        tokens: Tokens,
      },
      { additionalProperties: false },
    ),
    total: Tokens,
  },
  { additionalProperties: false },
)

export const RequestRecord = Type.Object(
  {
    id: Type.Integer({ minimum: 1, description: 'Counter within the session; `after` takes it' }),
    run_id: Nullable(Type.String()),
    purpose: Type.Enum(['turn', 'compaction']),
    step: Nullable(Type.Integer({ minimum: 1 })),
    sent_at: Timestamp,
    provider_profile: Type.String(),
    extension: Type.String(),
    model: Type.String(),
    effort: Nullable(Type.String()),
    window_tokens: Nullable(Type.Integer()),
    compaction_id: Nullable(Type.String()),
    history: Type.Object(
      { from_position: Position, to_position: Position, messages: Type.Integer({ minimum: 0 }) },
      { additionalProperties: false },
    ),
    tools: Type.Array(Type.String()),
    estimate: RequestEstimate,
    usage: Nullable(
      Type.Object(
        {
          prompt_tokens: Nullable(Type.Integer()),
          cached_prompt_tokens: Nullable(Type.Integer()),
          cache_write_tokens: Nullable(Type.Integer()),
          completion_tokens: Nullable(Type.Integer()),
          total_tokens: Nullable(Type.Integer()),
        },
        { additionalProperties: false, description: 'What the provider reported for this request' },
      ),
    ),
  },
  { additionalProperties: false },
)

export const ContextRequests = Type.Object(
  {
    view: Type.Literal('requests'),
    items: Type.Array(RequestRecord),
    next: Nullable(Continuation),
  },
  { additionalProperties: false },
)

export const ContextRead = Type.Union([ContextSummary, ContextSection, ContextRequests], {
  $id: 'ContextRead',
})

export const CompactionRequest = Type.Object(
  {
    strategy: Type.Optional(CompactionStrategySchema),
    keep_turns: Type.Optional(KeepTurns),
    focus: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description: 'What the summary should keep in particular',
      }),
    ),
  },
  { additionalProperties: false, $id: 'CompactionRequest' },
)

export const CompactionResult = Type.Object(
  {
    selection: Type.Object(
      {
        outcome: Type.Enum(['selected', 'unchanged', 'rejected'], {
          description:
            '`selected`: the request chose a strategy and the session keeps it; `unchanged`: the session compacts as before; `rejected`: the strategy cannot serve this session (problem), nothing was compacted',
        }),
        strategy: CompactionStrategySchema,
        keep_turns: Type.Integer({ minimum: 0 }),
        source: Type.Enum(['request', 'session', 'settings']),
        problem: Nullable(Problem),
      },
      { additionalProperties: false },
    ),
    compaction: Type.Object(
      {
        outcome: Type.Enum(['completed', 'unchanged', 'failed', 'not_run'], {
          description:
            '`completed`: a compaction entry was added; `unchanged`: no run lies before the kept ones; `failed`: the history is unchanged (problem); `not_run`: the selection was rejected',
        }),
        compaction_id: Nullable(Type.String()),
        problem: Nullable(Problem),
        entry: Nullable(
          Type.Object(
            {
              position: Type.Integer({ minimum: 1, description: 'The compaction entry in the history' }),
              created_at: Timestamp,
              through_position: Type.Integer({ minimum: 0 }),
              kept_from_position: Type.Integer({ minimum: 1 }),
              compacted_turns: Type.Integer({ minimum: 0 }),
              tokens_before: Tokens,
              tokens_after: Tokens,
              model: Nullable(Type.String()),
            },
            { additionalProperties: false },
          ),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, $id: 'CompactionResult' },
)
