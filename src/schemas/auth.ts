// Group `auth`: provider sign-in (browser and device OAuth run by the daemon) and saved accounts,
// and the sign-in to remote MCP servers (provider and account `mcp:<server>`).
// Callback and PKCE material never appear here: not in a Login, not in a problem.
import type { Static } from 'typebox'
import * as Type from 'typebox'
import { Nullable, Timestamp, UuidV7 } from './common.ts'
import { defineOps } from './op.ts'

export const LOGIN_STATES = ['waiting', 'exchanging', 'complete', 'failed', 'cancelled'] as const
export type LoginState = (typeof LOGIN_STATES)[number]

export const AccountDescriptor = Type.Object(
  {
    id: Type.String({ description: 'Stable account id; equal ids are the same account' }),
    provider: Type.String({ description: 'The extension it signs in to, e.g. chatgpt' }),
    label: Nullable(Type.String()),
    email: Nullable(Type.String()),
    plan: Nullable(Type.String()),
    selected: Type.Boolean(),
    limited_until: Nullable(Timestamp),
    expires_at: Nullable(Timestamp),
    refreshable: Type.Boolean(),
  },
  { additionalProperties: false, $id: 'AccountDescriptor' },
)
export type AccountDescriptor = Static<typeof AccountDescriptor>

export const Login = Type.Object(
  {
    id: Type.String(),
    provider: Type.String(),
    flow: Type.Enum(['browser', 'manual', 'device', 'cli']),
    url: Type.String({
      description:
        'Open this in a browser to sign in (device: where the code is entered; empty for the cli flow)',
    }),
    expires_at: Timestamp,
    state: Type.Enum([...LOGIN_STATES]),
    instructions: Type.String(),
    progress: Type.String(),
    accounts: Type.Array(AccountDescriptor, { description: 'Accounts this login saved' }),
    failure: Nullable(
      Type.String({
        description:
          'Why it failed, e.g. daemon_restarted, timed_out, callback_port_busy, provider_refused, cli_missing; for an MCP server also resource_mismatch, issuer_mismatch, pkce_not_supported, no_authorization_server, client_id_required, registration_failed, discovery_failed, unreachable',
      }),
    ),
  },
  { additionalProperties: false, $id: 'Login' },
)
export type Login = Static<typeof Login>

export const LoginRequest = Type.Object(
  {
    provider: Type.String({
      minLength: 1,
      maxLength: 80,
      examples: ['chatgpt', 'mcp:docs'],
      description:
        "A provider's extension, or `mcp:<server>` for a remote MCP server of settings group `mcp`",
    }),
    flow: Type.Enum(['browser', 'manual', 'device', 'cli'], {
      description:
        "browser: the daemon listens for the redirect; manual: paste the response; device: enter the code the login's instructions show at its URL, and the daemon polls the provider; cli: the daemon takes the token of the provider's signed-in command-line tool and saves it (the provider's `flows` say which it offers)",
    }),
    values: Type.Object({}, { additionalProperties: false, description: 'Empty for every flow' }),
  },
  { additionalProperties: false, $id: 'LoginRequest' },
)
export type LoginRequest = Static<typeof LoginRequest>

export const LoginPatch = Type.Object(
  {
    response: Type.String({
      minLength: 1,
      maxLength: 8192,
      description: 'A pasted callback URL, `code#state`, a query string, or a bare code',
    }),
  },
  { additionalProperties: false, $id: 'LoginPatch' },
)

export const AuthProvider = Type.Object(
  {
    extension: Type.String(),
    label: Type.String(),
    detail: Type.String(),
    protocol: Type.Enum(['oauth2_pkce', 'oauth2_device'], {
      description:
        'oauth2_pkce: a browser sign-in (flows browser and manual); oauth2_device: a device code (flow device, and cli where the provider has a command-line tool to borrow from)',
    }),
    flows: Type.Array(Type.Enum(['browser', 'manual', 'device', 'cli'])),
    form: Type.Object(
      { fields: Type.Array(Type.Unknown(), { description: 'Values a flow asks for; none for these flows' }) },
      { additionalProperties: false },
    ),
    status: Type.Enum(['signed in', 'signed out']),
  },
  { additionalProperties: false },
)

export const Auth = Type.Object(
  {
    providers: Type.Array(AuthProvider),
    accounts: Type.Array(AccountDescriptor),
    logins: Type.Array(Login, { description: 'Unfinished logins' }),
  },
  { additionalProperties: false, $id: 'Auth' },
)

const LoginParams = Type.Object({ login_id: UuidV7 }, { additionalProperties: false })
const AccountParams = Type.Object(
  { account_id: Type.String({ minLength: 1, maxLength: 256 }) },
  { additionalProperties: false },
)

const CAP = 'provider_auth'
export const authOps = defineOps({
  'auth.get': {
    method: 'GET',
    path: '/auth',
    summary: 'Sign-in providers, saved accounts (redacted) and unfinished logins',
    description:
      'The providers on offer (enabled extensions with a sign-in, signed in or out, then the remote MCP servers as `mcp:<server>`), the accounts saved in creds.json as descriptors without their secrets (an MCP sign-in as account `mcp:<server>`), and the logins not yet finished.',
    tags: ['auth'],
    capability: CAP,
    responses: { 200: { description: 'The sign-in state', schema: Auth } },
    problems: ['settings_unreadable'],
  },
  'auth.login.put': {
    method: 'PUT',
    path: '/auth/logins/{login_id}',
    summary: 'Start a sign-in (idempotent by id)',
    description:
      'Creates the login (201 with Location and ETag). A repeat with the same intent returns the same login with 200 and starts nothing; a different intent on the same id is 409. At most eight unfinished logins. A device login answers once the provider gave its code; a cli login answers once it ended (complete or failed). An MCP server (`mcp:<server>`) answers once its authorization was discovered and the client chosen, and has one unfinished login at a time (a second is 409 login_conflict).',
    tags: ['auth'],
    capability: CAP,
    params: LoginParams,
    body: LoginRequest,
    deferBodyCheck: true,
    responses: {
      200: { description: 'The existing login', schema: Login, headers: ['ETag'] },
      201: { description: 'The new login', schema: Login, headers: ['ETag', 'Location'] },
    },
    problems: [
      'login_conflict',
      'login_expired',
      'too_many_logins',
      'unknown_provider',
      'extension_disabled',
      'flow_not_offered',
    ],
  },
  'auth.login.get': {
    method: 'GET',
    path: '/auth/logins/{login_id}',
    summary: 'Read a login',
    description:
      'Its state, the URL and instructions to finish it, and the accounts it saved or why it failed. An ended login is kept fifteen minutes, then pruned: an unknown id older than that is 410 login_expired.',
    tags: ['auth'],
    capability: CAP,
    params: LoginParams,
    responses: { 200: { description: 'The login', schema: Login, headers: ['ETag'] } },
    problems: ['login_not_found', 'login_expired'],
  },
  'auth.login.patch': {
    method: 'PATCH',
    path: '/auth/logins/{login_id}',
    summary: 'Answer a login with the pasted response',
    description:
      'The pasted response races the browser callback: exactly one of them is exchanged. A response carrying a state must match the login. A device or cli login takes no response (400 invalid_login_response): it finishes by itself.',
    tags: ['auth'],
    capability: CAP,
    params: LoginParams,
    ifMatch: 'required',
    body: LoginPatch,
    bodyMediaType: 'application/merge-patch+json',
    responses: { 200: { description: 'The login', schema: Login, headers: ['ETag'] } },
    problems: [
      'login_not_found',
      'login_expired',
      'login_not_waiting',
      'state_mismatch',
      'invalid_login_response',
      'precondition_required',
      'precondition_failed',
    ],
  },
  'auth.login.delete': {
    method: 'DELETE',
    path: '/auth/logins/{login_id}',
    summary: 'Cancel a login (idempotent); saved accounts stay',
    description:
      'Cancels an unfinished login and closes its callback listener; a login already ended is left as it is. Either way 204.',
    tags: ['auth'],
    capability: CAP,
    params: LoginParams,
    responses: { 204: { description: 'Cancelled, or already ended' } },
    problems: ['login_not_found', 'login_expired'],
  },
  'auth.account.delete': {
    method: 'DELETE',
    path: '/auth/accounts/{account_id}',
    summary: 'Remove a saved account',
    description:
      'Rejected while a saved profile references the account. A request that already holds its credential finishes with it. Account `mcp:<server>` is an MCP sign-in: its tokens are revoked at the authorization server where it offers revocation, then deleted (the registered client stays).',
    tags: ['auth'],
    capability: CAP,
    params: AccountParams,
    responses: { 204: { description: 'Removed' } },
    problems: ['account_not_found', 'account_in_use'],
  },
})
