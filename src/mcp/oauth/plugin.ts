// A remote MCP server's sign-in as a browser plugin of hearth's sign-in engine (extension
// `mcp:<server>`): the engine owns the login resource, the loopback listener, PKCE, the
// timeout and the limits; this plugin discovers the server's authorization server,
// chooses the client, builds the authorization URL and trades the code. One instance
// serves one login (it keeps what discovery found until the exchange).
import type { CredentialFiles } from '../../auth/accounts-store.ts'
import {
  type BrowserPlugin,
  SignInError,
  type StoredCredential,
} from '../../providers/shared/sign-in-plugin.ts'
import type { FileContents } from '../../settings/files.ts'
import { type McpOAuthClient, type McpOAuthRecord, oauthOf, withOAuth } from './record.ts'
import { oauthSettingsOf } from './settings.ts'

export const MCP_EXTENSION_PREFIX = 'mcp:'
export const extensionOf = (server: string) => `${MCP_EXTENSION_PREFIX}${server}`

export interface McpSignInDeps {
  files: CredentialFiles
  now: () => number
}

/** The port of a stored redirect URI, so a registered client is used again on the same one. */
function portOf(uri: string | undefined): number | null {
  if (!uri) return null
  try {
    const port = Number(new URL(uri).port)
    return port > 0 ? port : null
  } catch {
    return null
  }
}

/**
 * A failure of discovery as the login's: a refusal stays as it is, a request that got no
 * answer is `unreachable`, anything else (an authorization server hearth cannot use) is
 * `discovery_failed` with the reason as the login's instructions (no secret exists yet).
 */
function asSignInError(err: unknown): never {
  if (err instanceof SignInError || (err as Error)?.name === 'AbortError') throw err
  if (err instanceof TypeError || (err as Error)?.name === 'TimeoutError')
    throw new SignInError('unreachable', 'The server or its authorization server did not answer')
  throw new SignInError(
    'discovery_failed',
    "The server's authorization could not be used",
    `The sign-in could not start: ${String((err as Error)?.message ?? err).slice(0, 300)}`,
  )
}

/** The record's expiry (for GET /auth's accounts). */
const expiresOf = (c: StoredCredential) => (c as unknown as McpOAuthRecord).tokens?.expires_at ?? null

/** The plugin of one login, from the files as they are now (`files`: a snapshot the caller read). */
export function mcpSignInPlugin(
  server: string,
  url: string,
  d: McpSignInDeps,
  files: FileContents = d.files.files(),
): BrowserPlugin {
  const settings = oauthSettingsOf(files, server)
  const stored = oauthOf(files, server)
  let prepared: { record: McpOAuthRecord; client: McpOAuthClient } | null = null
  return {
    protocol: 'oauth2_pkce',
    extension: extensionOf(server),
    label: server,
    detail: `MCP server at ${url}`,
    accountsKey: 'mcp',
    oneAtATime: true,
    callback: {
      redirectHost: '127.0.0.1',
      port: settings.callback_port ?? portOf(stored?.client?.redirect_uri) ?? 0,
      path: '/callback',
      fixed: settings.callback_port !== null,
    },
    account: () => ({ id: extensionOf(server), label: server, email: null, plan: null }),
    expiresAt: expiresOf,
    refresh: () => Promise.reject(new SignInError('not_supported', 'MCP tokens refresh through McpAccess')),

    async authorize(input) {
      const [{ discover }, { chooseClient }, { authorizationUrl }] = await Promise.all([
        import('./discovery.ts'),
        import('./registration.ts'),
        import('./tokens.ts'),
      ])
      const signal = input.signal ?? new AbortController().signal
      const found = await discover(url, signal).catch(asSignInError)
      const scope = settings.scopes?.join(' ') || found.scope
      const client = await chooseClient({
        server,
        settings,
        stored: stored?.client,
        metadata: found.metadata,
        redirectUri: input.redirectUri,
        scope,
        now: d.now(),
      }).catch(asSignInError)
      signal.throwIfAborted()
      const record: McpOAuthRecord = {
        resource: found.resource,
        authorization_server: found.authorizationServer,
        metadata: found.metadata,
        client,
      }
      if (client.registration === 'dynamic' && client !== stored?.client) await keepClient(d, server, record)
      prepared = { record, client }
      return authorizationUrl(record, client, { ...input, scope }).catch(asSignInError)
    },

    async exchange(input) {
      if (!prepared) throw new SignInError('exchange_failed', 'The sign-in was not started here')
      const { exchangeCode, oauthCodeOf } = await import('./tokens.ts')
      input.progress('exchanging the code')
      try {
        const tokens = await exchangeCode(prepared.record, prepared.client, { ...input, now: d.now() })
        return { ...prepared.record, tokens } as unknown as StoredCredential
      } catch (err) {
        throw new SignInError(
          oauthCodeOf(err) ?? 'exchange_failed',
          'The authorization server refused the code',
        )
      }
    },
  }
}

/**
 * Stores a client registered now, so that the next login uses it again even if this one
 * is not finished. Not while the server holds a sign-in: its tokens belong to the client
 * that obtained them (refresh and revocation authenticate as it), and this login's client
 * replaces it only when this login completes.
 */
async function keepClient(d: McpSignInDeps, server: string, record: McpOAuthRecord): Promise<void> {
  await d.files.update((files) =>
    oauthOf(files, server)?.tokens ? undefined : withOAuth(files, server, record),
  )
}

/** Saves a finished sign-in's tokens with its client, under the credential lock. */
export async function saveSignIn(
  d: McpSignInDeps,
  server: string,
  credential: StoredCredential,
): Promise<void> {
  await d.files.update((files) => withOAuth(files, server, credential as unknown as McpOAuthRecord))
}
