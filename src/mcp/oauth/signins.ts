// MCP servers among the daemon's sign-ins: a remote server is offered as provider
// `mcp:<server>` (GET /auth lists it with its status), its sign-in shows as an account
// `mcp:<server>` (never a token), and removing that account signs out: the tokens are
// revoked where the authorization server offers revocation, then deleted (the registered
// client stays for the next sign-in).
import type { McpSignInSource } from '../../auth/service.ts'
import {
  type BrowserPlugin,
  SignInError,
  type SignInPlugin,
  type StoredCredential,
} from '../../providers/shared/sign-in-plugin.ts'
import type { AccountDescriptor } from '../../schemas/auth.ts'
import type { FileContents } from '../../settings/files.ts'
import {
  extensionOf,
  MCP_EXTENSION_PREFIX,
  type McpSignInDeps,
  mcpSignInPlugin,
  saveSignIn,
} from './plugin.ts'
import { expiresWithin, type McpOAuthRecord, oauthOf, tokensOf, withOAuth } from './record.ts'
import { localServersOf, remoteServersOf } from './settings.ts'

const serverOf = (extension: string) => extension.slice(MCP_EXTENSION_PREFIX.length)

/** A local server's entry: known, so a sign-in to it is `flow_not_offered`, not unknown. */
function localPlugin(server: string): BrowserPlugin {
  const none = () => new SignInError('flow_not_offered', `${server} is a local server`)
  return {
    protocol: 'oauth2_pkce',
    extension: extensionOf(server),
    label: server,
    detail: 'a local server: it takes its credentials through its environment',
    accountsKey: 'mcp',
    flows: [],
    callback: { redirectHost: '127.0.0.1', port: 0, path: '/callback', fixed: false },
    account: () => ({ id: extensionOf(server), label: server, email: null, plan: null }),
    expiresAt: () => null,
    refresh: () => Promise.reject(none()),
    authorize: () => Promise.reject(none()),
    exchange: () => Promise.reject(none()),
  }
}

export class McpSignIns implements McpSignInSource {
  readonly #d: McpSignInDeps

  constructor(d: McpSignInDeps) {
    this.#d = d
  }

  owns(extension: string): boolean {
    return extension.startsWith(MCP_EXTENSION_PREFIX)
  }

  plugins(files: FileContents): Map<string, SignInPlugin> {
    const out = new Map<string, SignInPlugin>()
    for (const [name, url] of remoteServersOf(files))
      out.set(extensionOf(name), mcpSignInPlugin(name, url, this.#d, files))
    for (const name of localServersOf(files)) out.set(extensionOf(name), localPlugin(name))
    return out
  }

  /** Tokens that work or can be refreshed (an expired one without a refresh token does not count). */
  signedIn(extension: string, files: FileContents): boolean {
    const tokens = tokensOf(files, serverOf(extension))
    return (
      tokens !== null &&
      (typeof tokens.refresh_token === 'string' || !expiresWithin(tokens, this.#d.now(), 0))
    )
  }

  accounts(files: FileContents): AccountDescriptor[] {
    return [...remoteServersOf(files).keys()].flatMap((name) => {
      const tokens = tokensOf(files, name)
      if (!tokens) return []
      return [
        {
          id: extensionOf(name),
          provider: extensionOf(name),
          label: name,
          email: null,
          plan: null,
          selected: false,
          limited_until: null,
          expires_at: tokens.expires_at === null ? null : new Date(tokens.expires_at).toISOString(),
          refreshable: typeof tokens.refresh_token === 'string',
        },
      ]
    })
  }

  async save(plugin: SignInPlugin, credential: StoredCredential): Promise<AccountDescriptor> {
    const server = serverOf(plugin.extension)
    await saveSignIn(this.#d, server, credential)
    const account = this.accounts(this.#d.files.files()).find((a) => a.id === plugin.extension)
    if (!account) throw new Error(`the sign-in of ${server} was not saved`)
    return account
  }

  /**
   * Signs out: revokes the tokens (best effort, outside the lock: a slow authorization
   * server holds no one up), then deletes them if they are still the ones revoked.
   * false when the server has no sign-in.
   */
  async signOut(extension: string): Promise<boolean> {
    const server = serverOf(extension)
    const record = oauthOf(this.#d.files.files(), server)
    if (!record?.tokens) return false
    const { revokeTokens } = await import('./tokens.ts')
    await revokeTokens(record, AbortSignal.timeout(10_000)).catch(() => false)
    await this.#d.files.update((files) => {
      const now = oauthOf(files, server)
      if (!now?.tokens) return undefined
      return withOAuth(files, server, { ...now, tokens: undefined } satisfies McpOAuthRecord)
    })
    return true
  }
}
