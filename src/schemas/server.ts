// Group `server`: the daemon resource and its shutdown.
import type { Static } from 'typebox'
import * as Type from 'typebox'
import { Continuation, Limit, Nullable, Timestamp } from './common.ts'
import { defineOps } from './op.ts'

export const Notice = Type.Object(
  {
    id: Type.String({ description: 'Stable id; put it in ui.dismissed_notices to dismiss' }),
    kind: Type.Literal('credentials_migrated'),
    source: Type.String({ description: 'The file whose secrets moved into creds.json' }),
    backup: Nullable(
      Type.String({
        description:
          'Where the legacy file was moved, relative to the home; null for config.json, which stays',
      }),
    ),
    profiles: Type.Array(Type.String(), {
      description: 'For config.json: the profiles whose hand-written apiKey moved',
    }),
    migrated_at: Timestamp,
  },
  { additionalProperties: false, $id: 'Notice' },
)
export type Notice = Static<typeof Notice>

export const QuotaReading = Type.Object(
  {
    account: Type.String({
      description: 'Non-secret account label: an e-mail, an account id, a short hash or a profile name',
    }),
    provider: Type.String({ description: 'The usage feed provider id, e.g. codex' }),
    plan: Nullable(Type.String({ description: 'What 100 percent means changes with the plan' })),
    limit_id: Type.String({ description: 'Empty for a failed poll that reported no limits' }),
    limit_label: Nullable(Type.String()),
    used_percent: Nullable(Type.Number({ description: 'Null when unknown, never 0 for unknown' })),
    window_label: Nullable(Type.String()),
    window_seconds: Nullable(Type.Integer({ minimum: 0 })),
    reset_at_ms: Nullable(Type.Integer({ description: 'When the limit resets, epoch milliseconds' })),
    scope: Nullable(Type.String()),
    status: Nullable(Type.String()),
    error: Nullable(Type.String({ description: "The report's error text when the poll failed" })),
    observed_at: Timestamp,
    source: Type.Literal('poll'),
  },
  { additionalProperties: false, $id: 'QuotaReading' },
)
export type QuotaReading = Static<typeof QuotaReading>

export const QuotaHistoryPage = Type.Object(
  {
    items: Type.Array(QuotaReading, { description: 'Stored readings, newest first' }),
    next: Nullable(Continuation),
  },
  { additionalProperties: false, $id: 'QuotaHistoryPage' },
)
export type QuotaHistoryPage = Static<typeof QuotaHistoryPage>

export const ServerQuery = Type.Object(
  {
    include: Type.Optional(Type.Literal('quota_history', { description: 'Add quota_history' })),
    quota_provider: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    quota_account: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    quota_limit: Type.Optional(Type.String({ maxLength: 256 })),
    quota_since: Type.Optional(
      Type.String({
        format: 'date-time',
        pattern: '[Zz]$',
        description: 'Readings observed at or after this time: RFC 3339 in UTC (ending in Z)',
      }),
    ),
    limit: Type.Optional(Limit(200, 50)),
    next: Type.Optional(Continuation),
  },
  { additionalProperties: false },
)
export type ServerQuery = Static<typeof ServerQuery>

export const Server = Type.Object(
  {
    instance_id: Type.String({ description: 'New for every daemon start' }),
    protocol: Type.Literal(3),
    state: Type.Union([Type.Literal('ready'), Type.Literal('draining')]),
    capabilities: Type.Record(Type.String(), Type.Integer({ minimum: 1 }), {
      description: 'Capability name to integer version; lists only what this daemon implements',
    }),
    build: Type.String({ description: 'Package version and source commit, e.g. 0.1.0+g1a2b3c4' }),
    digest: Type.Null(),
    extensions: Type.Array(
      Type.Object({ name: Type.String(), version: Type.Integer() }, { additionalProperties: false }),
    ),
    quota: Nullable(
      Type.Array(QuotaReading, {
        maxItems: 200,
        description:
          'The latest reading per account and limit, ordered by provider, account, then limit id; null while no reading is stored',
      }),
    ),
    quota_history: Type.Optional(QuotaHistoryPage),
    notices: Type.Array(Notice),
    sandbox: Type.Object(
      {
        available: Nullable(
          Type.Boolean({
            description:
              'Whether commands of tools can run inside bubblewrap here; null until the first kernel process probed it (within a second of start)',
          }),
        ),
        kind: Nullable(Type.Enum(['bubblewrap'])),
        reason: Nullable(Type.String({ description: 'Why not (bwrap missing, user namespaces refused…)' })),
      },
      {
        additionalProperties: false,
        description: 'Where tool commands run; without a sandbox they run directly, and sessions say so',
      },
    ),
  },
  { additionalProperties: false, $id: 'Server' },
)
export type Server = Static<typeof Server>

export const ShutdownRequest = Type.Object(
  { instance_id: Type.String({ minLength: 1, maxLength: 128 }) },
  { additionalProperties: false, $id: 'ShutdownRequest' },
)
export type ShutdownRequest = Static<typeof ShutdownRequest>

export const Shutdown = Type.Object(
  { instance_id: Type.String(), state: Type.Literal('draining') },
  { additionalProperties: false, $id: 'Shutdown' },
)
export type Shutdown = Static<typeof Shutdown>

export const OpenApiDocument = Type.Object(
  { openapi: Type.Literal('3.1.0'), info: Type.Object({ version: Type.Literal('3.0.0') }) },
  { additionalProperties: true, $id: 'OpenApiDocument', description: 'This document' },
)

export const serverOps = defineOps({
  'server.openapi': {
    method: 'GET',
    path: '/openapi.json',
    summary: 'Read the OpenAPI 3.1 description of this API',
    description:
      'The document this daemon was built with (docs/openapi.json holds the same): every operation with its schemas, problem codes and the capability or extension it needs.',
    tags: ['server'],
    responses: { 200: { description: 'The OpenAPI document', schema: OpenApiDocument } },
    problems: [],
  },
  'server.get': {
    method: 'GET',
    path: '/server',
    summary: 'Read the daemon resource',
    description:
      'quota holds the latest reading of each limit (a failed poll with no limits, limit id "", until a later reading of a real limit of that account). include=quota_history adds stored quota readings, newest first, in pages (keyset; limit up to 200). quota_provider, quota_account and quota_limit filter to one limit trail and go together; quota_since (RFC 3339 UTC) needs them. A continuation is bound to the query that minted it.',
    tags: ['server'],
    query: ServerQuery,
    responses: { 200: { description: 'The daemon', schema: Server, headers: ['Vary'] } },
    problems: ['invalid_continuation'],
  },
  'server.shutdown': {
    method: 'POST',
    path: '/server/shutdown',
    summary: 'Drain and stop the identified daemon',
    description:
      'Stops admitting requests, drains in-flight requests and streams within a deadline, closes the database and exits 0. Not replayed after transport loss.',
    tags: ['server'],
    body: ShutdownRequest,
    responses: { 202: { description: 'The daemon is draining', schema: Shutdown } },
    problems: ['instance_mismatch'],
  },
})
