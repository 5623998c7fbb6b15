// A fake ChatGPT: a real HTTP server on 127.0.0.1 (port 0) that is both the OAuth issuer
// and the Codex backend, speaking the real wire formats.
//   POST /oauth/token                  authorization_code (form, PKCE S256 checked) and
//                                      refresh_token (JSON) grants; refresh tokens rotate
//                                      and each is valid once; tokens are unsigned JWTs
//                                      carrying the `https://api.openai.com/auth` claims.
//   POST /backend-api/codex/responses  Responses SSE (frames from openai-frames.ts), scripted
//                                      per request: text, reasoning, tool calls, 401, plain
//                                      429, usage-limit 429, 500, stall, drop. Nothing is
//                                      stored (store: false): an input item with an `id` is
//                                      404, as the backend answers; a reasoning item is
//                                      accepted only with `encrypted_content` this backend
//                                      issued (else 400 invalid_encrypted_content), function
//                                      calls and outputs must pair up (tool-pairing.ts), and a
//                                      request that includes `reasoning.encrypted_content`
//                                      gets it on its finished reasoning items.
// Every request is recorded with its headers and parsed body.
import { createHash, randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { playFrames, type RecordedRequest, readBody, recordOf, write } from './http-record.ts'
import { LoopbackServer } from './loopback-server.ts'
import { DEFAULT_SCRIPT, type FakeScript, responsesFrames, scriptFor } from './openai-frames.ts'
import { responsesPairingError } from './tool-pairing.ts'

export type { RecordedRequest } from './http-record.ts'

export const FAKE_CLIENT_ID = 'app_EMoamEEZ73f0CkXaXp7hrann'
export const RESPONSES_PATH = '/backend-api/codex/responses'

/** A ChatGPT seat: a workspace (`account_id`) and a user in it. */
export interface FakeSeat {
  accountId: string
  userId: string
  email: string
  plan?: string
}

export interface ChatgptScript extends FakeScript {
  /** Answer 429 with the backend's usage-limit body. */
  usageLimit?: {
    kind?: 'usage_limit_reached' | 'usage_not_included'
    /** Unix seconds. */
    resetsAt?: number
    plan?: string
  }
}

export interface RecordedTokenRequest {
  contentType: string
  /** The parsed form or JSON body. */
  body: Record<string, unknown>
  status: number
}

interface Pending {
  seat: FakeSeat
  challenge: string
  redirectUri: string
  used: boolean
}

function b64url(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')
}

/** An unsigned JWT-shaped token. */
export function fakeJwt(payload: Record<string, unknown>): string {
  return `${b64url({ alg: 'RS256', typ: 'JWT', kid: 'fake' })}.${b64url(payload)}.${b64url('fake-signature')}`
}

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url')
}

export class FakeChatgptBackend {
  /** The origin; also the OAuth issuer. */
  readonly url: string
  /** `{url}/backend-api`: a profile endpoint. */
  readonly backendUrl: string
  readonly clientId = FAKE_CLIENT_ID
  readonly requests: RecordedRequest[] = []
  readonly tokenRequests: RecordedTokenRequest[] = []
  defaultScript: ChatgptScript = DEFAULT_SCRIPT
  /** `expires_in` of issued tokens; null leaves it out (the client must read the JWT's exp). */
  expiresIn: number | null = 3600
  /** When false, a refresh answers without a new refresh token and the old one stays valid. */
  rotate = true
  /** When true, the backend answers 401 unless the bearer is an access token it issued and did not revoke. */
  strictAuth = false
  readonly #queue: (ChatgptScript | ((request: RecordedRequest) => ChatgptScript))[] = []
  readonly #codes = new Map<string, Pending>()
  /** refresh token → seat and whether it was used. */
  readonly #refresh = new Map<string, { seat: FakeSeat; used: boolean }>()
  readonly #live = new Set<string>()
  /** encrypted_content values this backend issued. */
  readonly #sealed = new Set<string>()
  #issued = 0
  readonly #http: LoopbackServer

  private constructor(http: LoopbackServer) {
    this.#http = http
    this.url = http.url
    this.backendUrl = `${http.url}/backend-api`
  }

  static async start(): Promise<FakeChatgptBackend> {
    let fake: FakeChatgptBackend | null = null
    fake = new FakeChatgptBackend(await LoopbackServer.listen((req, res) => fake!.#handle(req, res)))
    return fake
  }

  /**
   * What the browser step would do: the user signs in as `seat` and the issuer redirects
   * with this code. The exchange must present the verifier of `challenge` and the same
   * redirect URI.
   */
  authorize(seat: FakeSeat, challenge: string, redirectUri: string): string {
    const code = `ac_${randomBytes(18).toString('base64url')}`
    this.#codes.set(code, { seat, challenge, redirectUri, used: false })
    return code
  }

  /** Tokens for a seat without the browser step (a credential to start from). */
  issue(seat: FakeSeat): Record<string, unknown> {
    return this.#tokens(seat)
  }

  /** The backend stops accepting this access token (with `strictAuth`). */
  revoke(accessToken: string): this {
    this.#live.delete(accessToken)
    return this
  }

  /** An encrypted reasoning blob, as the backend issues them (opaque, Fernet-like). */
  sealReasoning(): string {
    const sealed = `gAAAAA${randomBytes(48).toString('base64url')}`
    this.#sealed.add(sealed)
    return sealed
  }

  /** Scripts for the next requests, in order (a function gets the recorded request). */
  enqueue(...scripts: (ChatgptScript | ((request: RecordedRequest) => ChatgptScript))[]): this {
    this.#queue.push(...scripts)
    return this
  }

  failTimes(n: number, status: number, opts: { retryAfter?: string; message?: string } = {}): this {
    for (let i = 0; i < n; i++)
      this.#queue.push({ status, retryAfter: opts.retryAfter, errorMessage: opts.message })
    return this
  }

  get pending(): number {
    return this.#queue.length
  }

  reset(): this {
    this.#queue.length = 0
    this.requests.length = 0
    this.tokenRequests.length = 0
    this.defaultScript = DEFAULT_SCRIPT
    return this
  }

  close(): Promise<void> {
    return this.#http.close()
  }

  #tokens(seat: FakeSeat): Record<string, unknown> {
    const n = ++this.#issued
    const iat = Math.floor(Date.now() / 1000)
    const exp = iat + (this.expiresIn ?? 3600)
    const auth = {
      chatgpt_account_id: seat.accountId,
      chatgpt_user_id: seat.userId,
      user_id: seat.userId,
      chatgpt_plan_type: seat.plan ?? 'plus',
    }
    const access = fakeJwt({
      iss: this.url,
      aud: ['https://api.openai.com/v1'],
      sub: `auth0|${seat.userId}`,
      iat,
      exp,
      jti: `at-${n}`,
      scp: ['openid', 'profile', 'email', 'offline_access'],
      'https://api.openai.com/auth': auth,
      'https://api.openai.com/profile': { email: seat.email, email_verified: true },
    })
    const idToken = fakeJwt({
      iss: this.url,
      aud: this.clientId,
      sub: `auth0|${seat.userId}`,
      iat,
      exp,
      jti: `id-${n}`,
      email: seat.email,
      email_verified: true,
      'https://api.openai.com/auth': {
        ...auth,
        organizations: [{ id: `org-${seat.accountId}`, is_default: true }],
      },
    })
    const refresh = `rt_${n}_${randomBytes(24).toString('base64url')}`
    this.#refresh.set(refresh, { seat, used: false })
    this.#live.add(access)
    const out: Record<string, unknown> = {
      access_token: access,
      refresh_token: refresh,
      id_token: idToken,
      token_type: 'Bearer',
      scope: 'openid profile email offline_access',
    }
    if (this.expiresIn !== null) out.expires_in = this.expiresIn
    return out
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req)
    const path = (req.url ?? '').split('?')[0]
    if (req.method === 'POST' && path === '/oauth/token') return this.#token(req, res, raw)
    const record = recordOf(req, res, raw)
    this.requests.push(record)
    if (req.method !== 'POST' || path !== RESPONSES_PATH) {
      return json(res, record, 404, { detail: 'Not Found' })
    }
    const script = scriptFor(this.#queue.shift() ?? this.defaultScript, record)
    if (script.firstByteDelayMs) await sleep(script.firstByteDelayMs)
    if (script.mode === 'stall-before-headers') return
    const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1]
    if (this.strictAuth && (!bearer || !this.#live.has(bearer))) {
      return json(res, record, 401, {
        error: {
          message: 'Your authentication token has expired. Please try signing in again.',
          type: 'invalid_request_error',
          code: 'token_expired',
        },
      })
    }
    const refused = this.#refuseInput(record.body)
    if (refused) return json(res, record, refused.status, { error: refused.error })
    if (script.usageLimit) {
      const u = script.usageLimit
      const error: Record<string, unknown> = {
        type: u.kind ?? 'usage_limit_reached',
        message:
          u.kind === 'usage_not_included'
            ? 'To use Codex with your ChatGPT plan, upgrade to Plus.'
            : 'The usage limit has been reached',
        plan_type: u.plan ?? 'plus',
      }
      if (u.resetsAt !== undefined) {
        error.resets_at = u.resetsAt
        error.resets_in_seconds = Math.max(0, u.resetsAt - Math.floor(Date.now() / 1000))
      }
      return json(res, record, 429, { error }, limitHeaders(100))
    }
    if (script.status && script.status !== 200) {
      const status = script.status
      const type =
        status === 401
          ? 'invalid_request_error'
          : status === 429
            ? 'rate_limit_exceeded'
            : status >= 500
              ? 'server_error'
              : 'invalid_request_error'
      const headers: Record<string, string> = {}
      if (script.retryAfter !== undefined) headers['retry-after'] = script.retryAfter
      const message =
        script.errorMessage ??
        (status === 401
          ? 'Your authentication token has expired. Please try signing in again.'
          : `fake backend error ${status}`)
      const code = status === 401 ? 'token_expired' : null
      return json(res, record, status, { error: { message, type, code } }, headers)
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      ...limitHeaders(12.5),
    })
    res.flushHeaders()
    if (script.mode === 'stall-after-headers') return
    // The backend announces the limits inside the stream too; decoders ignore it.
    await write(res, `event: codex.rate_limits\ndata: ${JSON.stringify(rateLimitsEvent(12.5))}\n\n`)
    const include: unknown[] = Array.isArray(record.body?.include) ? record.body.include : []
    const encrypted = include.includes('reasoning.encrypted_content') ? this.sealReasoning() : undefined
    await playFrames(res, responsesFrames(script, encrypted), script, record)
  }

  /** The backend's answer to input it cannot use without stored items, or null. */
  #refuseInput(body: any): { status: number; error: Record<string, unknown> } | null {
    const input: any[] = Array.isArray(body?.input) ? body.input : []
    const unpaired = responsesPairingError(body)
    if (unpaired) {
      return {
        status: 400,
        error: {
          message: unpaired.message,
          type: 'invalid_request_error',
          param: unpaired.param,
          code: null,
        },
      }
    }
    for (const item of input) {
      if (typeof item?.id === 'string') {
        return {
          status: 404,
          error: {
            message: `Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
            type: 'invalid_request_error',
            param: 'input',
            code: null,
          },
        }
      }
      if (item?.type === 'reasoning' && !this.#sealed.has(item.encrypted_content)) {
        return {
          status: 400,
          error: {
            message: 'The encrypted content for a reasoning item could not be verified.',
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_encrypted_content',
          },
        }
      }
    }
    return null
  }

  #token(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const contentType = String(req.headers['content-type'] ?? '')
    let body: Record<string, unknown> = {}
    if (contentType.startsWith('application/x-www-form-urlencoded')) {
      body = Object.fromEntries(new URLSearchParams(raw))
    } else if (contentType.startsWith('application/json')) {
      try {
        const parsed = JSON.parse(raw)
        if (parsed && typeof parsed === 'object') body = parsed
      } catch {
        // an empty body below
      }
    }
    const { status, payload } = this.#grant(contentType, body)
    this.tokenRequests.push({ contentType, body, status })
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(payload))
  }

  /** The token endpoint's answer to one grant. */
  #grant(
    contentType: string,
    body: Record<string, unknown>,
  ): { status: number; payload: Record<string, unknown> } {
    const refuse = (status: number, error: string, description: string) => ({
      status,
      payload: { error, error_description: description },
    })
    if (body.client_id !== this.clientId) return refuse(401, 'invalid_client', 'unknown client')
    if (body.grant_type === 'authorization_code') {
      if (!contentType.startsWith('application/x-www-form-urlencoded'))
        return refuse(400, 'invalid_request', 'the code exchange must be form-encoded')
      const code = String(body.code ?? '')
      const pending = this.#codes.get(code)
      // Echoes the code and verifier on purpose: the client must not show them.
      if (!pending || pending.used)
        return refuse(400, 'invalid_grant', `authorization code ${code} is invalid or was already used`)
      pending.used = true
      if (body.redirect_uri !== pending.redirectUri)
        return refuse(400, 'invalid_grant', 'redirect_uri does not match the authorization request')
      if (s256(String(body.code_verifier ?? '')) !== pending.challenge)
        return refuse(400, 'invalid_grant', `code_verifier ${String(body.code_verifier)} does not match`)
      return { status: 200, payload: this.#tokens(pending.seat) }
    }
    if (body.grant_type === 'refresh_token') {
      if (!contentType.startsWith('application/json'))
        return refuse(400, 'invalid_request', 'the refresh must be JSON')
      const entry = this.#refresh.get(String(body.refresh_token ?? ''))
      if (!entry) return refuse(400, 'invalid_grant', 'refresh token is invalid')
      if (entry.used) return refuse(400, 'invalid_grant', 'refresh token was already used')
      const tokens = this.#tokens(entry.seat)
      if (this.rotate) {
        entry.used = true
      } else {
        this.#refresh.delete(String(tokens.refresh_token))
        delete tokens.refresh_token
      }
      return { status: 200, payload: tokens }
    }
    return refuse(400, 'unsupported_grant_type', `grant_type ${String(body.grant_type)} is not supported`)
  }
}

function limitHeaders(primaryUsed: number): Record<string, string> {
  const reset = Math.floor(Date.now() / 1000) + 3600
  return {
    'x-codex-primary-used-percent': String(primaryUsed),
    'x-codex-primary-window-minutes': '300',
    'x-codex-primary-reset-at': String(reset),
    'x-codex-secondary-used-percent': '4',
    'x-codex-secondary-window-minutes': '10080',
    'x-codex-secondary-reset-at': String(reset + 86_400),
  }
}

function rateLimitsEvent(primaryUsed: number): Record<string, unknown> {
  const reset = Math.floor(Date.now() / 1000) + 3600
  return {
    type: 'codex.rate_limits',
    plan_type: 'plus',
    rate_limits: {
      primary: { used_percent: primaryUsed, window_minutes: 300, reset_at: reset },
      secondary: { used_percent: 4, window_minutes: 10080, reset_at: reset + 86_400 },
    },
    credits: { has_credits: false, unlimited: false, balance: '0' },
  }
}

function json(
  res: ServerResponse,
  record: RecordedRequest,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
  record.completed = true
}
