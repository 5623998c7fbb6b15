// A fake Claude OAuth token endpoint: a real HTTP server on 127.0.0.1:0 answering
// `POST /v1/oauth/token` with JSON as platform.claude.com does.
//
// - `authorization_code`: JSON `{grant_type, client_id, code, state, redirect_uri,
//   code_verifier}`; client id, redirect URI, state and the PKCE S256 verifier are checked
//   against what `authorize` (the browser step) was given; codes are single-use.
// - `refresh_token`: JSON `{grant_type, client_id, refresh_token}`; every refresh token works
//   once and the answer carries a new one (rotation); a reused one answers 400
//   `{"error": "invalid_grant", "error_description": "Refresh token not found or invalid"}`.
// Tokens look like the real ones (`sk-ant-oat01-…`, `sk-ant-ort01-…`). `live(access)` says
// whether an access token is the newest of its account (for a Messages fake to check).
import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { CLAUDE_CLIENT_ID } from '../../src/providers/claude/constants.ts'
import { s256 } from './chatgpt-backend.ts'
import { readBody } from './http-record.ts'
import { LoopbackServer } from './loopback-server.ts'

export interface FakeClaudeAccount {
  uuid: string
  email: string
}

interface Pending {
  account: FakeClaudeAccount
  challenge: string
  redirectUri: string
  state: string
}

export class FakeClaudeAuth {
  readonly url: string
  readonly tokenUrl: string
  /** Every token request: its content type and parsed body. */
  readonly tokenRequests: { contentType: string; body: any }[] = []
  /** Seconds put in `expires_in`; null leaves it out. */
  expiresIn: number | null = 3600
  /** Whether token answers name the account (`account: {uuid, email_address}`). */
  withAccount = true
  readonly #server: LoopbackServer
  readonly #codes = new Map<string, Pending>()
  readonly #refresh = new Map<string, FakeClaudeAccount>()
  readonly #newest = new Map<string, string>()

  private constructor(server: LoopbackServer) {
    this.#server = server
    this.url = server.url
    this.tokenUrl = `${server.url}/v1/oauth/token`
  }

  static async start(): Promise<FakeClaudeAuth> {
    let fake: FakeClaudeAuth | undefined
    const server = await LoopbackServer.listen((req, res) => fake!.#handle(req, res))
    fake = new FakeClaudeAuth(server)
    return fake
  }

  close(): Promise<void> {
    return this.#server.close()
  }

  /** The browser step: the person signs in and is redirected with this code. */
  authorize(account: FakeClaudeAccount, challenge: string, redirectUri: string, state: string): string {
    const code = `code-${randomBytes(12).toString('hex')}`
    this.#codes.set(code, { account, challenge, redirectUri, state })
    return code
  }

  /** Tokens for an account without the browser step. */
  issue(account: FakeClaudeAccount): Record<string, unknown> {
    const access = `sk-ant-oat01-${randomBytes(16).toString('hex')}`
    const refresh = `sk-ant-ort01-${randomBytes(16).toString('hex')}`
    this.#refresh.set(refresh, account)
    this.#newest.set(account.uuid, access)
    const out: Record<string, unknown> = {
      token_type: 'Bearer',
      access_token: access,
      refresh_token: refresh,
    }
    if (this.expiresIn !== null) out.expires_in = this.expiresIn
    out.scope = 'user:inference user:profile'
    if (this.withAccount) out.account = { uuid: account.uuid, email_address: account.email }
    return out
  }

  /** Whether `access` is the newest access token of its account. */
  live(access: string): boolean {
    return [...this.#newest.values()].includes(access)
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req)
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    if (req.method !== 'POST' || req.url !== '/v1/oauth/token') return reply(404, { error: 'not_found' })
    let body: any
    try {
      body = JSON.parse(raw)
    } catch {
      return reply(400, { error: 'invalid_request', error_description: 'the body is not JSON' })
    }
    this.tokenRequests.push({ contentType: String(req.headers['content-type'] ?? ''), body })
    if (body.client_id !== CLAUDE_CLIENT_ID)
      return reply(401, { error: 'invalid_client', error_description: 'unknown client' })
    if (body.grant_type === 'authorization_code') {
      const pending = this.#codes.get(String(body.code))
      this.#codes.delete(String(body.code))
      const bad = (why: string) =>
        reply(400, { error: 'invalid_grant', error_description: `${why} (code ${body.code})` })
      if (!pending) return bad('Invalid authorization code')
      if (body.redirect_uri !== pending.redirectUri) return bad('redirect_uri mismatch')
      if (body.state !== pending.state) return bad('state mismatch')
      if (s256(String(body.code_verifier ?? '')) !== pending.challenge) return bad('PKCE verification failed')
      return reply(200, this.issue(pending.account))
    }
    if (body.grant_type === 'refresh_token') {
      const account = this.#refresh.get(String(body.refresh_token))
      this.#refresh.delete(String(body.refresh_token))
      if (!account)
        return reply(400, { error: 'invalid_grant', error_description: 'Refresh token not found or invalid' })
      return reply(200, this.issue(account))
    }
    return reply(400, { error: 'unsupported_grant_type' })
  }
}
