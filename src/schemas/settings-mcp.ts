// Settings group `mcp`: the MCP servers, local (a command to run) or remote (a URL), with
// their write-only secrets (environment variables, headers, a bearer token), as a read returns
// them and as a PATCH's merge patch changes them.
import type { Static } from 'typebox'
import * as Type from 'typebox'
import { NAME_PATTERN, Nullable, Timestamp } from './common.ts'
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
/** A remote server's sign-in settings (config.json), as a read shows and a patch sets them. */
const oauthFields = {
  client_id: Nullable(
    Text(1024, "A client id registered beforehand with the server's authorization server (used first)"),
  ),
  client_metadata_url: Nullable(
    Type.String({
      format: 'uri',
      pattern: '^(https://|http://(127\\.0\\.0\\.1|localhost|\\[::1\\])[:/])',
      maxLength: 4096,
      description:
        'The https URL (http only on loopback) of a client id metadata document to sign in with, when the authorization server accepts those (used before dynamic registration)',
    }),
  ),
  scopes: Nullable(
    Type.Array(Text(256), {
      maxItems: 64,
      description: "The scopes to ask for (null: the server's 401 challenge, else its metadata)",
    }),
  ),
  callback_port: Nullable(
    Type.Integer({
      minimum: 1024,
      maximum: 65535,
      description: 'A fixed port for the loopback redirect (null: any free port)',
    }),
  ),
}
const McpOAuthRead = Type.Object(
  {
    ...oauthFields,
    client_secret: Nullable(Saved),
    signed_in: Type.Boolean({ description: 'Tokens of a sign-in are saved (never shown)' }),
    expires_at: Nullable(Timestamp),
    scope: Nullable(Type.String({ description: 'The scope the sign-in was granted' })),
  },
  { additionalProperties: false, description: 'Sign-in of a remote server (null for a local one)' },
)
const McpOAuthPatch = Type.Object(
  {
    ...Object.fromEntries(Object.entries(oauthFields).map(([k, v]) => [k, Removable(v)])),
    client_secret: Type.Optional(SecretPatch(4096)),
  },
  {
    additionalProperties: false,
    description:
      "null removes the sign-in settings and the client secret (a sign-in's tokens go with DELETE /auth/accounts/mcp:NAME)",
  },
)

const McpServerRead = Type.Object(
  {
    ...serverFields,
    env: Type.Record(Type.String(), Saved, { description: 'Names of the saved environment variables' }),
    headers: Type.Record(Type.String(), Saved, { description: 'Names of the saved headers' }),
    bearerToken: Nullable(Saved),
    oauth: Nullable(McpOAuthRead),
  },
  { additionalProperties: false },
)
const McpServerPatch = Type.Object(
  {
    ...Object.fromEntries(Object.entries(serverFields).map(([k, v]) => [k, Removable(v)])),
    env: Type.Optional(Nullable(MapOf(EnvName, SecretPatch(32_768), { maxProperties: 128 }))),
    headers: Type.Optional(Nullable(MapOf(HeaderName, SecretPatch(8192), { maxProperties: 64 }))),
    bearerToken: Type.Optional(SecretPatch(8192)),
    oauth: Type.Optional(Nullable(McpOAuthPatch)),
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
