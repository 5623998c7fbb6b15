// The token requests of a server's sign-in, through the MCP SDK's client auth: the code
// exchange, the refresh and the revocation (RFC 7009, which the SDK does not offer). Each
// sends the resource indicator (RFC 8707) the sign-in discovered. Loaded on first use: the
// SDK and its schemas stay out of the daemon's start.
import {
  exchangeAuthorization,
  refreshAuthorization,
  selectClientAuthMethod,
  startAuthorization,
} from '@modelcontextprotocol/sdk/client/auth.js'
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js'
import type { AuthorizationServerMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'
import { timedFetch } from './http.ts'
import type { McpOAuthClient, McpOAuthRecord, McpOAuthTokens } from './record.ts'

const metadataOf = (record: McpOAuthRecord) => record.metadata as unknown as AuthorizationServerMetadata

const clientInfo = (client: McpOAuthClient) => ({
  client_id: client.client_id,
  ...(client.client_secret ? { client_secret: client.client_secret } : {}),
})

/** The stored form of a token response; `signedInAt` keeps the sign-in's generation. */
export function storedTokens(t: OAuthTokens, now: number, signedInAt: string): McpOAuthTokens {
  return {
    access_token: t.access_token,
    token_type: t.token_type,
    ...(t.refresh_token ? { refresh_token: t.refresh_token } : {}),
    ...(t.scope ? { scope: t.scope } : {}),
    expires_at: typeof t.expires_in === 'number' ? now + t.expires_in * 1000 : null,
    signed_in_at: signedInAt,
  }
}

/** Trades the authorization code (with the PKCE verifier) for tokens. */
export async function exchangeCode(
  record: McpOAuthRecord,
  client: McpOAuthClient,
  input: { code: string; verifier: string; redirectUri: string; now: number },
): Promise<McpOAuthTokens> {
  const t = await exchangeAuthorization(record.authorization_server, {
    metadata: metadataOf(record),
    clientInformation: clientInfo(client),
    authorizationCode: input.code,
    codeVerifier: input.verifier,
    redirectUri: input.redirectUri,
    resource: record.resource,
    fetchFn: timedFetch,
  })
  return storedTokens(t, input.now, new Date(input.now).toISOString())
}

/** Trades the refresh token for new tokens (the refresh token kept when none is returned). */
export async function refreshTokens(record: McpOAuthRecord, now: number): Promise<McpOAuthTokens> {
  const { tokens, client } = record
  if (!tokens?.refresh_token || !client) throw new Error('no refresh token')
  const t = await refreshAuthorization(record.authorization_server, {
    metadata: metadataOf(record),
    clientInformation: clientInfo(client),
    refreshToken: tokens.refresh_token,
    resource: record.resource,
    fetchFn: timedFetch,
  })
  return storedTokens(t, now, tokens.signed_in_at)
}

/**
 * Asks the authorization server to revoke the refresh token (which revokes its access
 * tokens too) and the access token. Best effort: false when there is no endpoint or the
 * server refused; the stored tokens are deleted either way.
 */
export async function revokeTokens(record: McpOAuthRecord, signal: AbortSignal): Promise<boolean> {
  const endpoint = record.metadata.revocation_endpoint
  const { tokens, client } = record
  if (!endpoint || !tokens || !client) return false
  const methods =
    record.metadata.revocation_endpoint_auth_methods_supported ??
    record.metadata.token_endpoint_auth_methods_supported ??
    []
  const method = selectClientAuthMethod(clientInfo(client), methods)
  let all = true
  const pairs: [string, string][] = [
    ...(tokens.refresh_token ? [[tokens.refresh_token, 'refresh_token'] as [string, string]] : []),
    [tokens.access_token, 'access_token'],
  ]
  for (const [token, hint] of pairs) {
    const body = new URLSearchParams({ token, token_type_hint: hint })
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' }
    if (method === 'client_secret_basic' && client.client_secret)
      // The same encoding as the SDK's token requests, which this server already accepts.
      headers.authorization = `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`
    else {
      body.set('client_id', client.client_id)
      if (method === 'client_secret_post' && client.client_secret)
        body.set('client_secret', client.client_secret)
    }
    const res = await timedFetch(endpoint, {
      method: 'POST',
      headers,
      body,
      signal,
      redirect: 'error',
    }).catch(() => null)
    await res?.body?.cancel()
    all &&= res?.ok === true
  }
  return all
}

/** OAuth errors that a retry would not change: the sign-in is over, a new one is needed. */
const FINAL = new Set([
  'invalid_grant',
  'invalid_client',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_target',
  'access_denied',
  'invalid_request',
])

/** Whether a refresh's failure means the stored tokens are useless (not a network error or a 5xx). */
export const isFinalRefusal = (err: unknown): boolean => err instanceof OAuthError && FINAL.has(err.errorCode)

/** The OAuth error code of a refusal, or null (for a failed login's `failure`; never the message). */
export const oauthCodeOf = (err: unknown): string | null => (err instanceof OAuthError ? err.errorCode : null)

/**
 * The authorization URL (the SDK's), with the engine's PKCE challenge in place of the one
 * the SDK made: the engine keeps the verifier and sends it with the code.
 */
export async function authorizationUrl(
  record: McpOAuthRecord,
  client: McpOAuthClient,
  input: { redirectUri: string; state: string; challenge: string; scope: string | undefined },
): Promise<string> {
  const { authorizationUrl: url } = await startAuthorization(record.authorization_server, {
    metadata: metadataOf(record),
    clientInformation: clientInfo(client),
    redirectUrl: input.redirectUri,
    scope: input.scope,
    state: input.state,
    resource: record.resource,
  })
  url.searchParams.set('code_challenge', input.challenge)
  url.searchParams.set('code_challenge_method', 'S256')
  return url.href
}
