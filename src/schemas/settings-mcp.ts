// Settings group `mcp`: the MCP servers, local (a command to run) or remote (a URL), with
// their write-only secrets (environment variables, headers, a bearer token), as a read returns
// them and as a PATCH's merge patch changes them.
import type { Static } from 'typebox'
import * as Type from 'typebox'
import { NAME_PATTERN, Nullable } from './common.ts'
import { EnvName, HeaderName, MapOf, Removable, Saved, SecretPatch, Text, Url } from './settings-fields.ts'

const serverFields = {
  command: Nullable(Text(4096, 'Local server: the program to run')),
  args: Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 256 }),
  cwd: Nullable(Text(4096)),
  url: Nullable(Url),
  enabled: Type.Boolean(),
  startup_timeout_ms: Nullable(Type.Integer({ minimum: 100, maximum: 600_000 })),
  tool_timeout_ms: Nullable(Type.Integer({ minimum: 100, maximum: 3_600_000 })),
  enabled_tools: Nullable(Type.Array(Text(256), { maxItems: 1024, description: 'null: every tool' })),
  disabled_tools: Type.Array(Text(256), { maxItems: 1024 }),
}
const McpServerRead = Type.Object(
  {
    ...serverFields,
    env: Type.Record(Type.String(), Saved, { description: 'Names of the saved environment variables' }),
    headers: Type.Record(Type.String(), Saved, { description: 'Names of the saved headers' }),
    bearerToken: Nullable(Saved),
  },
  { additionalProperties: false },
)
const McpServerPatch = Type.Object(
  {
    ...Object.fromEntries(Object.entries(serverFields).map(([k, v]) => [k, Removable(v)])),
    env: Type.Optional(Nullable(MapOf(EnvName, SecretPatch(32_768), { maxProperties: 128 }))),
    headers: Type.Optional(Nullable(MapOf(HeaderName, SecretPatch(8192), { maxProperties: 64 }))),
    bearerToken: Type.Optional(SecretPatch(8192)),
  },
  { additionalProperties: false },
)
export const McpRead = Type.Object(
  { servers: Type.Record(Type.String(), McpServerRead) },
  { additionalProperties: false },
)
export const McpPatch = Type.Object(
  {
    servers: Type.Optional(
      MapOf(NAME_PATTERN, Nullable(McpServerPatch), {
        maxProperties: 256,
        description: 'null removes a server',
      }),
    ),
  },
  { additionalProperties: false },
)
export type McpPatch = Static<typeof McpPatch>
