// Which client hearth signs in as, in the order MCP authorization gives: a client id
// registered beforehand (settings `servers.<name>.oauth.client_id`, its secret in creds),
// else a client id metadata document (an https URL in settings, when the authorization
// server fetches such documents), else dynamic client registration (RFC 7591), else a
// failed login saying to set a client id. A client registered dynamically is kept with the
// sign-in and used again (instead of registering anew) while its authorization server and
// redirect URI are the same.
import { registerClient } from '@modelcontextprotocol/sdk/client/auth.js'
import type { AuthorizationServerMetadata } from '@modelcontextprotocol/sdk/shared/auth.js'
import { SignInError } from '../../providers/shared/sign-in-plugin.ts'
import { timedFetch } from './http.ts'
import type { McpOAuthClient, McpServerMetadata } from './record.ts'
import type { McpOAuthSettings } from './settings.ts'

export interface ClientChoice {
  server: string
  settings: McpOAuthSettings
  stored: McpOAuthClient | undefined
  metadata: McpServerMetadata
  redirectUri: string
  scope: string | undefined
  now: number
}

/** Whether a client registered dynamically for an earlier sign-in still fits this one. */
function reusable(c: ClientChoice): boolean {
  const s = c.stored
  if (s?.registration !== 'dynamic') return false
  if (s.issuer !== c.metadata.issuer || s.redirect_uri !== c.redirectUri) return false
  const expires = s.client_secret_expires_at ?? 0
  return expires === 0 || expires * 1000 > c.now + 60_000
}

/** The client to sign in as (registered now when none fits). Throws SignInError. */
export async function chooseClient(c: ClientChoice): Promise<McpOAuthClient> {
  const base = { redirect_uri: c.redirectUri, issuer: c.metadata.issuer }
  if (c.settings.client_id)
    return {
      client_id: c.settings.client_id,
      ...(c.settings.client_secret ? { client_secret: c.settings.client_secret } : {}),
      registration: 'settings',
      ...base,
    }
  if (c.metadata.client_id_metadata_document_supported && c.settings.client_metadata_url)
    return { client_id: c.settings.client_metadata_url, registration: 'metadata_document', ...base }
  if (reusable(c) && c.stored) return c.stored
  if (c.metadata.registration_endpoint) return register(c, base)
  throw new SignInError(
    'client_id_required',
    'The authorization server registers no clients',
    `${c.metadata.issuer} offers no dynamic client registration. Register hearth there (redirect URI ${c.redirectUri}), then set its client id in settings mcp.servers.${c.server}.oauth.client_id.`,
  )
}

async function register(
  c: ClientChoice,
  base: { redirect_uri: string; issuer: string },
): Promise<McpOAuthClient> {
  let full: Awaited<ReturnType<typeof registerClient>>
  try {
    full = await registerClient(c.metadata.issuer, {
      metadata: c.metadata as unknown as AuthorizationServerMetadata,
      clientMetadata: {
        client_name: 'hearth',
        redirect_uris: [c.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
      scope: c.scope,
      fetchFn: timedFetch,
    })
  } catch {
    throw new SignInError(
      'registration_failed',
      'The authorization server refused to register hearth',
      `${c.metadata.issuer} refused the dynamic client registration. Register hearth there (redirect URI ${c.redirectUri}) and set its client id in settings mcp.servers.${c.server}.oauth.client_id.`,
    )
  }
  return {
    client_id: full.client_id,
    ...(full.client_secret ? { client_secret: full.client_secret } : {}),
    ...(full.client_secret_expires_at !== undefined
      ? { client_secret_expires_at: full.client_secret_expires_at }
      : {}),
    registration: 'dynamic',
    ...base,
  }
}
