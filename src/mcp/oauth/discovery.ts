// Finding a remote MCP server's authorization (MCP authorization, 2025-11-25): a probe
// without a token answers 401 with `WWW-Authenticate` (the protected resource metadata's
// URL in `resource_metadata`, the scope needed in `scope`); then the protected resource
// metadata (RFC 9728: the hint, else the path-aware well-known URL, else the root one),
// whose `resource` must name this server; then the authorization server's metadata
// (RFC 8414, then OpenID discovery, path-aware), which must offer PKCE with S256.
// The SDK's client auth does the requests; this file decides what is accepted.
import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
} from '@modelcontextprotocol/sdk/client/auth.js'
import type { AuthorizationServerMetadata } from '@modelcontextprotocol/sdk/shared/auth.js'
import {
  checkResourceAllowed,
  resourceUrlFromServerUrl,
} from '@modelcontextprotocol/sdk/shared/auth-utils.js'
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js'
import { SignInError } from '../../providers/shared/sign-in-plugin.ts'
import { timedFetch } from './http.ts'
import type { McpServerMetadata } from './record.ts'

export interface Discovered {
  /** The resource indicator to send (the metadata's `resource` as written). */
  resource: string
  authorizationServer: string
  metadata: McpServerMetadata
  /** The scope the 401 asked for, else the metadata's `scopes_supported`, joined. */
  scope: string | undefined
}

/** The probe's answer: what the server's 401 said (nothing when it did not answer 401). */
async function probe(url: string, signal: AbortSignal): Promise<{ metadataUrl?: URL; scope?: string }> {
  const res = await timedFetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'hearth', version: '0' },
      },
    }),
    redirect: 'error',
    signal,
  }).catch((err) => {
    if (signal.aborted) throw err
    throw new SignInError('unreachable', 'The MCP server did not answer')
  })
  await res.body?.cancel()
  if (res.status !== 401) return {}
  const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(res)
  return { metadataUrl: resourceMetadataUrl, scope }
}

const withoutSlash = (u: string) => u.replace(/\/+$/, '')

/** The subset of the authorization server's metadata that is stored with the sign-in. */
function keep(m: AuthorizationServerMetadata): McpServerMetadata {
  const fields = [
    'issuer',
    'authorization_endpoint',
    'token_endpoint',
    'response_types_supported',
    'revocation_endpoint',
    'registration_endpoint',
    'grant_types_supported',
    'code_challenge_methods_supported',
    'token_endpoint_auth_methods_supported',
    'revocation_endpoint_auth_methods_supported',
    'scopes_supported',
    'client_id_metadata_document_supported',
  ] as const
  const all = m as unknown as Record<string, unknown>
  return Object.fromEntries(fields.filter((f) => all[f] !== undefined).map((f) => [f, all[f]])) as never
}

/** Discovers the server's authorization; throws SignInError with a code a login shows. */
export async function discover(serverUrl: string, signal: AbortSignal): Promise<Discovered> {
  const challenge = await probe(serverUrl, signal)
  let prm: Awaited<ReturnType<typeof discoverOAuthProtectedResourceMetadata>> | undefined
  try {
    prm = await discoverOAuthProtectedResourceMetadata(
      serverUrl,
      { resourceMetadataUrl: challenge.metadataUrl },
      timedFetch,
    )
  } catch {
    // No protected resource metadata: the server itself is taken as its authorization
    // server (the earlier revision of MCP authorization, which the SDK's client keeps).
    prm = undefined
  }
  signal.throwIfAborted()
  if (prm && !checkResourceAllowed({ requestedResource: serverUrl, configuredResource: prm.resource }))
    throw new SignInError(
      'resource_mismatch',
      'The server metadata names another resource',
      `The server's protected resource metadata names ${prm.resource}, which is not ${serverUrl}; hearth does not sign in to it.`,
    )
  const resource = prm?.resource ?? resourceUrlFromServerUrl(serverUrl).href
  const authorizationServer = prm?.authorization_servers?.[0] ?? new URL('/', serverUrl).href
  const found = await discoverAuthorizationServerMetadata(authorizationServer, { fetchFn: timedFetch }).catch(
    () => undefined,
  )
  signal.throwIfAborted()
  if (!found)
    throw new SignInError(
      'no_authorization_server',
      'The authorization server has no metadata',
      `No OAuth or OpenID metadata was found for ${authorizationServer}.`,
    )
  if (withoutSlash(found.issuer) !== withoutSlash(authorizationServer))
    throw new SignInError(
      'issuer_mismatch',
      'The authorization server metadata names another issuer',
      `The metadata found for ${authorizationServer} names the issuer ${found.issuer}; hearth does not sign in with it.`,
    )
  if (!found.code_challenge_methods_supported?.includes('S256'))
    throw new SignInError(
      'pkce_not_supported',
      'The authorization server does not offer PKCE',
      `${authorizationServer} does not list S256 in code_challenge_methods_supported; MCP sign-in requires it.`,
    )
  const scope = challenge.scope ?? prm?.scopes_supported?.join(' ') ?? undefined
  return { resource, authorizationServer, metadata: keep(found), scope: scope || undefined }
}
