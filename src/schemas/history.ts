// Group `history`: the committed transcript in pages, an entry's full text in pieces, its
// images as raw bytes, and the active output of the run in progress.
import type { Static } from 'typebox'
import * as Type from 'typebox'
import { Continuation, Limit, Nullable, SessionParams, UuidV7 } from './common.ts'
import { defineOps } from './op.ts'

export const EntryId = Type.String({
  pattern: '^[1-9][0-9]{0,14}$',
  description: 'An entry id: its position in the history, a decimal counter from 1',
  examples: ['1'],
  'x-problem': 'entry_not_found',
})

export const HistoryEntry = Type.Object(
  {
    id: Type.String(),
    position: Type.Integer({ minimum: 1 }),
    group: Type.Integer({ minimum: 0, description: 'Display group: the run the entry belongs to' }),
    kind: Type.String({
      description:
        '`user`, `assistant`, `reasoning`, `tool_call`, `tool_result`, `error`, `compaction` or `note` (docs/work.md)',
    }),
    created_at: Type.String(),
    content: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'user {text, images [{field, media_type, bytes}], input_id, client_id}; assistant {text, status, run_id, tool_calls, stop_reason (length or content_filter when the model cut the answer short)}; reasoning {text, status, run_id}; error {problem, run_id}; compaction {compaction_id, strategy, trigger, keep_turns, through_position, kept_from_position, compacted_turns, text (the summary), model, tokens_before, tokens_after}; note {text, source, queued_at}. A text over 16,384 characters is cut, with truncated true and text_bytes.',
    }),
  },
  { additionalProperties: false, $id: 'HistoryEntry' },
)

export const HistoryQuery = Type.Object(
  {
    view: Type.Optional(Type.Enum(['entries', 'checkpoints'])),
    before: Type.Optional(Type.Integer({ minimum: 1, description: 'Entries before this position' })),
    after: Type.Optional(Type.Integer({ minimum: 0, description: 'Entries after this position' })),
    next: Type.Optional(Continuation),
    limit: Type.Optional(Limit(200, 100)),
  },
  { additionalProperties: false },
)

export const Checkpoint = Type.Object(
  {
    group: Type.Integer({ minimum: 0 }),
    position: Type.Integer({ minimum: 1, description: 'The first entry of the group' }),
    created_at: Type.String(),
    text: Type.String({
      description:
        'The first 256 characters of the group’s first user message (of a compaction: its summary)',
    }),
    kind: Type.Enum(['turn', 'compaction'], {
      description: '`compaction`: the context was compacted here (docs/context.md)',
    }),
    changes: Type.Optional(
      Type.Array(
        Type.Object(
          { run_id: Type.String(), files: Type.Integer({ minimum: 1 }) },
          { additionalProperties: false },
        ),
        {
          description:
            "The group's runs that changed files, with how many (their changes: GET /sessions/{session_id}/runs/{run_id}/changes, docs/checkpoints.md); absent when none did",
        },
      ),
    ),
    compaction: Type.Optional(
      Type.Object(
        {
          compaction_id: Type.String(),
          strategy: Type.String(),
          trigger: Type.Enum(['manual', 'auto']),
          through_position: Type.Integer({
            minimum: 0,
            description: 'Later requests send the summary for entries up to here',
          }),
          compacted_turns: Type.Integer({ minimum: 0 }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
)

export const HistoryRead = Type.Object(
  {
    view: Type.Enum(['entries', 'checkpoints']),
    items: Type.Array(Type.Union([HistoryEntry, Checkpoint])),
    older: Nullable(Continuation),
    newer: Nullable(Continuation),
    high_water: Type.Integer({ minimum: 0, description: 'The last position in the history' }),
  },
  { additionalProperties: false, $id: 'HistoryRead' },
)
export type HistoryRead = Static<typeof HistoryRead>

export const EntryParams = Type.Object(
  { session_id: UuidV7, entry_id: EntryId },
  { additionalProperties: false },
)
export const EntryFieldParams = Type.Object(
  {
    session_id: UuidV7,
    entry_id: EntryId,
    field: Type.String({ minLength: 1, maxLength: 256, 'x-problem': 'field_not_found' }),
  },
  { additionalProperties: false },
)
export const NextQuery = Type.Object({ next: Type.Optional(Continuation) }, { additionalProperties: false })

export const EntryContentPage = Type.Object(
  {
    id: Type.String({ description: 'The entry id, or the active content id' }),
    field: Type.Literal('text'),
    offset: Type.Integer({ minimum: 0, description: 'UTF-8 byte offset of this piece' }),
    text: Type.String({ description: 'A piece of the text; pieces end on character boundaries' }),
    total_utf8_bytes: Type.Integer({ minimum: 0 }),
    next: Nullable(Continuation),
  },
  { additionalProperties: false, $id: 'EntryContentPage' },
)
export type EntryContentPage = Static<typeof EntryContentPage>

export const ActiveOutputParams = Type.Object(
  { session_id: UuidV7, content_id: UuidV7 },
  { additionalProperties: false },
)
export const ActiveOutputQuery = Type.Object(
  {
    snapshot: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'The snapshot token of the active_output item: it fixes the byte cutoff',
    }),
    next: Type.Optional(Continuation),
  },
  { additionalProperties: false },
)

export const ImageBytes = Type.String({
  $id: 'ImageBytes',
  description: 'Raw image bytes; Content-Type is image/png, image/jpeg or image/webp',
  contentMediaType: 'application/octet-stream',
})

export const historyOps = defineOps({
  'history.list': {
    method: 'GET',
    path: '/sessions/{session_id}/history',
    summary: 'Read the history in ascending pages',
    description:
      'view entries (default) or checkpoints (one item per display group). Without a position: the newest page. before, after and next are exclusive. Pages keep display groups whole, so a page may exceed limit by the rest of a group.',
    tags: ['history'],
    params: SessionParams,
    query: HistoryQuery,
    responses: { 200: { description: 'A page', schema: HistoryRead } },
    problems: ['session_not_found', 'session_deleted', 'invalid_history_range', 'invalid_continuation'],
  },
  'history.entry': {
    method: 'GET',
    path: '/sessions/{session_id}/history/{entry_id}',
    summary: 'Read an entry’s whole text in pieces',
    description: 'Follow next until it is null. Pieces are UTF-8 text that ends on character boundaries.',
    tags: ['history'],
    params: EntryParams,
    query: NextQuery,
    responses: { 200: { description: 'A piece', schema: EntryContentPage } },
    problems: ['session_not_found', 'session_deleted', 'entry_not_found', 'invalid_continuation'],
  },
  'history.image': {
    method: 'GET',
    path: '/sessions/{session_id}/history/{entry_id}/{field}',
    summary: 'Read an image of an entry as raw bytes',
    description: 'The body is the image itself (never base64, never content-coded), typed by its media type.',
    tags: ['history'],
    params: EntryFieldParams,
    responses: {
      200: { description: 'The image bytes', mediaType: 'image/*', schema: ImageBytes },
    },
    problems: ['session_not_found', 'session_deleted', 'entry_not_found', 'field_not_found'],
  },
})
