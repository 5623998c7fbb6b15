// Group `inputs`: durable admission of messages, their delivery and cancellation; also the
// body and answer of the session interrupt (operation sessions.interrupt). Delivery values and transitions are documented in docs/inputs.md.
import type { Static } from 'typebox'
import * as Type from 'typebox'
import { EmptyRequest, INPUT_BODY_LIMIT, Nullable, Timestamp, UuidV7 } from './common.ts'
import { ElicitationAnswerFields } from './elicitation.ts'
import { defineOps } from './op.ts'
import { Problem } from './problems.ts'

export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const
export const MAX_IMAGES = 16
/** Text of one message: 1 MiB of UTF-8 at most (the rest of the 72 MB body is for images). */
export const MAX_TEXT_BYTES = 1024 * 1024

export const InputImage = Type.Object(
  {
    media_type: Type.Enum([...IMAGE_MEDIA_TYPES]),
    data: Type.String({
      minLength: 4,
      contentEncoding: 'base64',
      description: 'The image bytes in standard base64 (RFC 4648 §4); the bytes must match media_type',
    }),
  },
  { additionalProperties: false, $id: 'InputImage' },
)

export const MessageRequest = Type.Object(
  {
    kind: Type.Literal('message'),
    text: Type.String({
      maxLength: MAX_TEXT_BYTES,
      'x-max-utf8-bytes': MAX_TEXT_BYTES,
      description: 'The message text; may be empty only when images are attached',
    }),
    client_id: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'The client-chosen draft identifier, echoed back',
    }),
    images: Type.Optional(Type.Array(InputImage, { maxItems: MAX_IMAGES })),
  },
  { additionalProperties: false, $id: 'MessageRequest' },
)
export type MessageRequest = Static<typeof MessageRequest>

const ApprovalFields = {
  request_id: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'The approval request (status.blocking_reason.request_id) this answers',
  }),
  decision: Type.Enum(['allow', 'deny']),
  remember: Type.Enum(['once', 'session'], {
    description:
      '`session` also allows later calls of the same tool in this session (for a command, the same command line); docs/tools.md',
  }),
}

export const ApprovalRequest = Type.Object(
  {
    kind: Type.Literal('approval'),
    ...ApprovalFields,
    client_id: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'The client that decided, echoed back',
    }),
  },
  {
    additionalProperties: false,
    $id: 'ApprovalRequest',
    description:
      'Decides a waiting approval at once: never queued behind messages and not counted among the 32 waiting inputs',
  },
)
export type ApprovalRequest = Static<typeof ApprovalRequest>

export const ElicitationRequest = Type.Object(
  {
    kind: Type.Literal('elicitation'),
    ...ElicitationAnswerFields,
    client_id: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'The client that answered, echoed back',
    }),
  },
  {
    additionalProperties: false,
    $id: 'ElicitationRequest',
    description:
      'Answers an MCP server’s waiting question at once, like an approval: never queued and not counted among the 32 waiting inputs',
  },
)
export type ElicitationRequest = Static<typeof ElicitationRequest>

export const InputRequest = Type.Union([MessageRequest, ApprovalRequest, ElicitationRequest], {
  $id: 'InputRequest',
  discriminator: { propertyName: 'kind' },
})
export type InputRequest = Static<typeof InputRequest>

export const DELIVERY = ['pending', 'running', 'completed', 'interrupted', 'failed', 'cancelled'] as const
export type Delivery = (typeof DELIVERY)[number]

export const Input = Type.Object(
  {
    id: Type.String(),
    session_id: Type.String(),
    kind: Type.Enum(['message', 'approval', 'elicitation']),
    admission: Type.Enum(['accepted', 'rejected']),
    http_status: Type.Integer({ description: 'The original admission status: 202 or 429' }),
    problem: Nullable(Problem),
    accepted_at: Nullable(Timestamp),
    acceptance_order: Nullable(Type.Integer({ minimum: 1 })),
    delivery: Nullable(Type.Enum([...DELIVERY])),
    blocking_reason: Nullable(Type.String()),
    transcript_position: Nullable(Type.Integer({ minimum: 1 })),
    turn: Nullable(Type.String({ description: 'The run that took this input' })),
    client_id: Type.String(),
    approval: Type.Optional(
      Type.Object(ApprovalFields, {
        additionalProperties: false,
        description: 'What an input of kind approval decided (its delivery is completed once applied)',
      }),
    ),
    elicitation: Type.Optional(
      Type.Object(ElicitationAnswerFields, {
        additionalProperties: false,
        description: 'What an input of kind elicitation answered (its delivery is completed once applied)',
      }),
    ),
  },
  { additionalProperties: false, $id: 'Input' },
)
export type Input = Static<typeof Input>

export const InputParams = Type.Object(
  { session_id: UuidV7, input_id: UuidV7 },
  { additionalProperties: false },
)

export const InputCancellation = Type.Object(
  {
    input_id: Type.String(),
    outcome: Type.Enum(['cancelled', 'interrupted', 'shared_running', 'already_finished', 'not_admitted']),
    input: Input,
  },
  { additionalProperties: false, $id: 'InputCancellation' },
)
export type InputCancellation = Static<typeof InputCancellation>

export const InterruptRequest = Type.Object(
  {
    run_id: Nullable(
      Type.String({
        maxLength: 64,
        description: 'The run the client saw (status.run_id); only that run is stopped, null stops none',
      }),
    ),
    through_input_order: Type.Integer({
      minimum: 0,
      description: 'The input_order the client saw; waiting inputs up to it are cancelled, newer ones stay',
    }),
  },
  { additionalProperties: false, $id: 'InterruptRequest' },
)
export type InterruptRequest = Static<typeof InterruptRequest>

export const Interruption = Type.Object(
  {
    run_id: Nullable(Type.String()),
    run_outcome: Type.Enum(['interrupted', 'not_running', 'already_ended']),
    through_input_order: Type.Integer({ minimum: 0 }),
    cancelled_inputs: Type.Array(Type.String()),
  },
  { additionalProperties: false, $id: 'Interruption' },
)
export type Interruption = Static<typeof Interruption>

/** An input as the session shows it while it waits. */
export const PendingInput = Type.Object(
  {
    id: Type.String(),
    acceptance_order: Type.Integer({ minimum: 1 }),
    client_id: Type.String(),
    accepted_at: Timestamp,
    text: Type.String({ description: 'The first 256 characters of the text' }),
    image_count: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
)

export const inputsOps = defineOps({
  'inputs.put': {
    method: 'PUT',
    path: '/sessions/{session_id}/inputs/{input_id}',
    summary: 'Submit a message, an approval or an answer to an MCP server (durable, idempotent by input id)',
    description:
      'The input id is a client-generated UUIDv7. An input of kind `approval` decides a waiting approval request (status.blocking_reason) at once, in the admission commit: it is never queued and does not count toward the 32; one for an unknown request, one of another session or one no longer pending is 409 approval_not_pending and nothing is stored. An input of kind `elicitation` answers an MCP server’s waiting question the same way (409 elicitation_not_pending); an accepted form’s content is checked against the form’s fields first (422 elicitation_content_invalid, with `errors`: each field and what is wrong). A known id is looked up before anything else is validated: the same request returns the original decision (202, or 429 for a rejection) with the current delivery; a different request is 409 input_conflict. A new input is committed to disk before the 202. A session with 32 waiting inputs rejects with 429 queue_full and Retry-After; the rejection is kept as the decision. An unknown id older than seven days is 410.',
    tags: ['inputs'],
    params: InputParams,
    body: InputRequest,
    bodyLimit: INPUT_BODY_LIMIT,
    deferBodyCheck: true,
    responses: { 202: { description: 'Accepted (or the decision of a repeat)', schema: Input } },
    problems: [
      'session_not_found',
      'session_deleted',
      'input_conflict',
      'approval_not_pending',
      'elicitation_not_pending',
      'elicitation_content_invalid',
      'input_expired',
      'queue_full',
      'empty_message',
      'text_too_large',
      'invalid_image',
      'family_deleting',
    ],
  },
  'inputs.get': {
    method: 'GET',
    path: '/sessions/{session_id}/inputs/{input_id}',
    summary: 'Read an input’s decision and delivery',
    description: 'Readable after its session is deleted; terminal decisions are kept seven days.',
    tags: ['inputs'],
    params: InputParams,
    responses: { 200: { description: 'The input', schema: Input } },
    problems: ['session_not_found', 'session_deleted', 'input_not_found', 'input_expired'],
  },
  'inputs.cancel': {
    method: 'POST',
    path: '/sessions/{session_id}/inputs/{input_id}/cancel',
    summary: 'Cancel an input',
    description:
      'A waiting input is cancelled. A running input whose run serves it alone stops that run (outcome interrupted); one sharing its run with others leaves the run going (shared_running). A later unrelated run is never touched.',
    tags: ['inputs'],
    params: InputParams,
    body: EmptyRequest,
    responses: { 200: { description: 'What the cancel did', schema: InputCancellation } },
    problems: ['session_not_found', 'session_deleted', 'input_not_found', 'input_expired'],
  },
})
