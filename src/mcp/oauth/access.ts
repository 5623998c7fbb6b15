// The daemon's access to signed-in MCP servers: a usable access token for a server, read
// from creds.json `mcp.<server>.oauth` and refreshed under the credential lock when it
// expires within a minute or the server just refused it. The kernel asks for it over IPC
// (`mcp_token`); the token never goes into a server's config, a log or an event.
import type { CredentialFiles } from '../../auth/accounts-store.ts'
import { expiresWithin, type McpOAuthTokens, oauthOf, tokensOf, withOAuth } from './record.ts'

export interface McpAccessToken {
  access_token: string
  expires_at: number | null
}

export interface McpAccess {
  /**
   * A usable access token for the server: the stored one, refreshed under the credential
   * lock when it expires within 60 s, or when `rejected` is the token the server just
   * refused (401). null when the server has no sign-in, or the refresh failed (the stored
   * tokens are then dropped: it needs a new sign-in).
   */
  token(server: string, rejected?: string): Promise<McpAccessToken | null>
  /** Whether the server has a sign-in (tokens stored), and its generation (tokens.signed_in_at). */
  signedIn(server: string): string | null
}

/** A token expiring within this margin is refreshed before it is handed out. */
export const REFRESH_MARGIN_MS = 60_000

export interface McpAccessDeps {
  files: CredentialFiles
  now: () => number
  /** Reports a refresh that failed for a reason other than a refusal (no secrets in it). */
  onError: (err: unknown) => void
}

const view = (t: McpOAuthTokens): McpAccessToken => ({
  access_token: t.access_token,
  expires_at: t.expires_at,
})

export class DaemonMcpAccess implements McpAccess {
  readonly #d: McpAccessDeps
  /** One refresh per server at a time in this process (the lock orders them across processes). */
  readonly #refreshing = new Map<string, Promise<McpAccessToken | null>>()

  constructor(d: McpAccessDeps) {
    this.#d = d
  }

  signedIn(server: string): string | null {
    try {
      return tokensOf(this.#d.files.files(), server)?.signed_in_at ?? null
    } catch {
      return null // creds.json unreadable: GET /settings reports it
    }
  }

  async token(server: string, rejected?: string): Promise<McpAccessToken | null> {
    let stored: McpOAuthTokens | null
    try {
      stored = tokensOf(this.#d.files.files(), server)
    } catch {
      return null
    }
    if (!stored) return null
    if (!this.#stale(stored, rejected)) return view(stored)
    const running = this.#refreshing.get(server)
    if (running) return running
    const refresh = this.#refresh(server, rejected).finally(() => this.#refreshing.delete(server))
    this.#refreshing.set(server, refresh)
    return refresh
  }

  #stale(t: McpOAuthTokens, rejected: string | undefined): boolean {
    return rejected === t.access_token || expiresWithin(t, this.#d.now(), REFRESH_MARGIN_MS)
  }

  /**
   * Under the lock, with the file read again: another refresh (another daemon request, or
   * a new sign-in) may have stored fresh tokens meanwhile, and those are answered as they are.
   */
  async #refresh(server: string, rejected: string | undefined): Promise<McpAccessToken | null> {
    let answer: McpAccessToken | null = null
    await this.#d.files.update(async (files) => {
      const record = oauthOf(files, server)
      const tokens = record?.tokens
      if (!record || !tokens) return undefined
      if (!this.#stale(tokens, rejected)) {
        answer = view(tokens)
        return undefined
      }
      const expired = rejected === tokens.access_token || expiresWithin(tokens, this.#d.now(), 0)
      const drop = () => withOAuth(files, server, { ...record, tokens: undefined })
      if (!tokens.refresh_token) {
        // Nothing to refresh with: usable until it expires, then a new sign-in is needed.
        if (!expired) answer = view(tokens)
        return expired ? drop() : undefined
      }
      const { refreshTokens, isFinalRefusal, oauthCodeOf } = await import('./tokens.ts')
      try {
        const next = await refreshTokens(record, this.#d.now())
        answer = view(next)
        return withOAuth(files, server, { ...record, tokens: next })
      } catch (err) {
        if (isFinalRefusal(err)) return drop()
        // Unreachable or failing: the tokens stay for the next try; the old one while it lasts.
        this.#d.onError(
          new Error(`MCP server ${server}: token refresh failed (${oauthCodeOf(err) ?? 'unreachable'})`),
        )
        if (!expired) answer = view(tokens)
        return undefined
      }
    })
    return answer
  }
}
