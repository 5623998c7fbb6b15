// What an MCP server asks the person (docs/mcp.md "Servers that ask the person"): the
// session's blocking reason while it waits, and the answer an input of kind `elicitation`
// gives. Shared by session reads, events and inputs.
import * as Type from 'typebox'
import { Nullable } from './common.ts'

const Count = Nullable(Type.Number())

export const ElicitationField = Type.Object(
  {
    name: Type.String({ description: 'The key of the answer’s content' }),
    title: Nullable(Type.String()),
    description: Nullable(Type.String()),
    type: Type.Enum(['string', 'number', 'integer', 'boolean', 'array'], {
      description: '`array`: several of `options`; a string with `options` is one of them',
    }),
    required: Type.Boolean(),
    default: Nullable(Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Array(Type.String())])),
    format: Nullable(Type.Enum(['email', 'uri', 'date', 'date-time'])),
    min_length: Count,
    max_length: Count,
    minimum: Count,
    maximum: Count,
    min_items: Count,
    max_items: Count,
    options: Nullable(
      Type.Array(
        Type.Object({ value: Type.String(), title: Type.String() }, { additionalProperties: false }),
      ),
    ),
  },
  { additionalProperties: false, $id: 'ElicitationField' },
)

export const ElicitationReasonFields = {
  kind: Type.Literal('elicitation'),
  request_id: Type.String({ description: 'Answer it with an input of kind elicitation naming this id' }),
  server: Type.String({ description: 'The MCP server that asks' }),
  mode: Type.Enum(['form', 'url'], {
    description: '`form`: fill in `fields`; `url`: open `url` (out of band), then say whether you did',
  }),
  message: Type.String({ description: 'What the server says it needs, in its own words' }),
  fields: Nullable(Type.Array(ElicitationField, { description: 'The form (mode form)' })),
  url: Nullable(Type.String({ description: 'The page to open (mode url): https, or http on this machine' })),
  elicitation_id: Nullable(
    Type.String({ description: 'The server’s id of a URL interaction (its completion names it)' }),
  ),
}

export const ElicitationBlockingReason = Type.Object(ElicitationReasonFields, {
  additionalProperties: false,
  $id: 'ElicitationBlockingReason',
})

export const ElicitationContent = Type.Record(
  Type.String(),
  Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Array(Type.String())]),
  { description: 'The form’s values by field name (accept of a form only), checked against its fields' },
)

export const ElicitationAnswerFields = {
  request_id: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'The elicitation request (status.blocking_reason.request_id) this answers',
  }),
  action: Type.Enum(['accept', 'decline', 'cancel'], {
    description:
      '`accept`: the form is filled in (or the URL opened); `decline`: the person said no; `cancel`: dismissed without a choice',
  }),
  content: Type.Optional(ElicitationContent),
}
