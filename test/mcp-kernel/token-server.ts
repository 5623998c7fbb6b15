// An OAuth authorization server on a loopback port, small but speaking the real wire
// formats: its metadata (RFC 8414), dynamic client registration (RFC 7591), codes minted
// for an authorization request's PKCE challenge (S256), and the token endpoint (RFC 6749:
// the code grant checked against the verifier, the refresh grant against the refresh
// token it knows, `invalid_grant` otherwise), with the resource indicator (RFC 8707)
// recorded. Each access token it hands out is told to the MCP server that takes it.
import { createHash, randomUUID } from 'node:crypto'
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
  /** Codes minted by authorize(), with the challenge and redirect URI they were minted for. */
  readonly #codes = new Map<string, { challenge: string; redirect: string }>()

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
      const json = (status: number, value: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value))
      if (req.method === 'GET' && req.url === '/.well-known/oauth-authorization-server')
        return json(200, me.metadata)
      if (req.method === 'POST' && req.url === '/register')
        return json(201, { ...JSON.parse(body), client_id: `client-${randomUUID()}` })
      if (req.method !== 'POST' || req.url !== '/token') return json(404, { error: 'not_found' })
      const form = Object.fromEntries(new URLSearchParams(body))
      me.requests.push(form)
      if (form.grant_type === 'authorization_code') return json(...me.#exchange(form))
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

  /** Its metadata document (RFC 8414). */
  get metadata() {
    return {
      issuer: this.url,
      authorization_endpoint: `${this.url}/authorize`,
      token_endpoint: `${this.url}/token`,
      registration_endpoint: `${this.url}/register`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
    }
  }

  /** The person agrees at the authorization address: a code for its challenge. */
  authorize(address: URL): string {
    const code = `code-${randomUUID()}`
    this.#codes.set(code, {
      challenge: address.searchParams.get('code_challenge') ?? '',
      redirect: address.searchParams.get('redirect_uri') ?? '',
    })
    return code
  }

  #exchange(form: Record<string, string>): [number, unknown] {
    const minted = this.#codes.get(form.code)
    this.#codes.delete(form.code)
    const verified =
      minted &&
      minted.redirect === form.redirect_uri &&
      createHash('sha256')
        .update(form.code_verifier ?? '')
        .digest('base64url') === minted.challenge
    const access = verified ? this.next.shift() : undefined
    if (!access) return [400, { error: 'invalid_grant', error_description: 'bad code or verifier' }]
    this.onIssued(access)
    return [200, { access_token: access, token_type: 'Bearer', expires_in: 3600 }]
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections()
    await new Promise<void>((resolve) => this.#server.close(() => resolve()))
  }
}
