// Group `server`: the daemon resource and its shutdown.
import type { Static } from 'typebox'
import * as Type from 'typebox'
import { Nullable, Timestamp } from './common.ts'
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
    quota: Type.Null({ description: 'Latest quota readings; null until quota recording is enabled' }),
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
    tags: ['server'],
    responses: { 200: { description: 'The OpenAPI document', schema: OpenApiDocument } },
    problems: [],
  },
  'server.get': {
    method: 'GET',
    path: '/server',
    summary: 'Read the daemon resource',
    tags: ['server'],
    responses: { 200: { description: 'The daemon', schema: Server, headers: ['Vary'] } },
    problems: [],
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
