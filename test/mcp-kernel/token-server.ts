// An OAuth authorization server's token endpoint (RFC 6749 §6, the refresh grant, with the
// resource indicator of RFC 8707) on a loopback port: it trades the refresh token it knows
// for a new access token that the MCP server is told to take, and answers `invalid_grant`
// to any other. It records each refresh request's form.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export class TokenServer {
  readonly #server: Server
  readonly url: string
  /** The refresh token it takes now (null: it takes none, every refresh is refused). */
  refreshToken: string | null = null
  /** The access tokens it hands out next, in order. */
  readonly next: string[] = []
  /** Told each access token it hands out (the MCP server takes it). */
  onIssued: (token: string) => void = () => {}
  /** The form of each token request. */
  readonly requests: Record<string, string>[] = []

  private constructor(server: Server, url: string) {
    this.#server = server
    this.url = url
  }

  static async start(): Promise<TokenServer> {
    let self: TokenServer | undefined
    const server = createServer(async (req, res) => {
      const me = self as TokenServer
      let body = ''
      for await (const chunk of req) body += chunk
      const form = Object.fromEntries(new URLSearchParams(body))
      me.requests.push(form)
      const json = (status: number, value: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value))
      if (form.grant_type !== 'refresh_token' || !me.refreshToken || form.refresh_token !== me.refreshToken)
        return json(400, { error: 'invalid_grant', error_description: 'unknown refresh token' })
      const access = me.next.shift()
      if (!access) return json(400, { error: 'invalid_grant', error_description: 'no more tokens' })
      me.onIssued(access)
      return json(200, { access_token: access, token_type: 'Bearer', expires_in: 3600 })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    self = new TokenServer(server, `http://127.0.0.1:${port}`)
    return self
  }

  /** The part of its metadata a stored sign-in keeps (record.ts). */
  get metadata() {
    return {
      issuer: this.url,
      authorization_endpoint: `${this.url}/authorize`,
      token_endpoint: `${this.url}/token`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['none'],
    }
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections()
    await new Promise<void>((resolve) => this.#server.close(() => resolve()))
  }
}
