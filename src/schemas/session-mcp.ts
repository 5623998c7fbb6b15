// A session's own MCP servers: servers a client (an editor speaking ACP) hands the daemon for
// one session, beside the servers of settings group `mcp`. They live in the daemon's memory
// only (never in settings, the store or an event); a read shows their secrets by name only.
import type { Static } from 'typebox'
import * as Type from 'typebox'
import { NAME_PATTERN, Nullable } from './common.ts'
import { EnvName, HeaderName, MapOf, Saved, Text, Url } from './settings-fields.ts'

const Name = Type.String({ pattern: NAME_PATTERN, description: '1–64 of A-Z a-z 0-9 . _ -' })

const LocalServer = Type.Object(
  {
    name: Name,
    command: Text(4096, 'The program to run, in the session’s workspace'),
    args: Type.Optional(Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 256 })),
    env: Type.Optional(
      MapOf(EnvName, Type.String({ maxLength: 32_768 }), {
        maxProperties: 128,
        description: 'Secret: the server’s environment variables (shown by name only)',
      }),
    ),
  },
  { additionalProperties: false },
)
const RemoteServer = Type.Object(
  {
    name: Name,
    url: Url,
    headers: Type.Optional(
      MapOf(HeaderName, Type.String({ maxLength: 8192 }), {
        maxProperties: 64,
        description: 'Secret: headers sent with every request (shown by name only)',
      }),
    ),
  },
  { additionalProperties: false },
)

export const SessionMcpServer = Type.Union([LocalServer, RemoteServer])
export type SessionMcpServer = Static<typeof SessionMcpServer>

export const SessionMcpServersRequest = Type.Object(
  {
    servers: Type.Array(SessionMcpServer, {
      maxItems: 64,
      description:
        'Every server of the session’s own list (the list is replaced whole; an empty one removes them all)',
    }),
  },
  { additionalProperties: false, $id: 'SessionMcpServersRequest' },
)
export type SessionMcpServersRequest = Static<typeof SessionMcpServersRequest>

const SessionMcpServerRead = Type.Object(
  {
    name: Type.String(),
    transport: Type.Enum(['stdio', 'http']),
    command: Nullable(Type.String({ description: 'The program, never its arguments' })),
    url: Nullable(Type.String({ description: 'Without user info, query or fragment' })),
    env: Type.Record(Type.String(), Saved, { description: 'Names of the environment variables given' }),
    headers: Type.Record(Type.String(), Saved, { description: 'Names of the headers given' }),
  },
  { additionalProperties: false },
)

export const SessionMcpServers = Type.Object(
  { session_id: Type.String(), servers: Type.Array(SessionMcpServerRead) },
  { additionalProperties: false, $id: 'SessionMcpServers' },
)
export type SessionMcpServers = Static<typeof SessionMcpServers>
