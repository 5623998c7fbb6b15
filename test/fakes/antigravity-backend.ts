// A fake Google for Antigravity: a real HTTP server on 127.0.0.1 (port 0) that is the
// OAuth token endpoint, userinfo and the Cloud Code Assist backend, speaking their wire:
//   POST /token                             Google's token endpoint (form-encoded):
//                                           authorization_code (client id and secret,
//                                           redirect URI and the PKCE S256 verifier checked;
//                                           codes single-use) and refresh_token (Google keeps
//                                           the refresh token: none comes back; a revoked one
//                                           answers 400 invalid_grant)
//   GET  /oauth2/v1/userinfo?alt=json       {id, email, verified_email}
//   POST /v1internal:loadCodeAssist         the account's project and tiers
//   POST /v1internal:onboardUser            a long-running operation: `done: false` for the
//                                           account's `onboardPolls` calls, then done with the
//                                           provisioned project
//   POST /v1internal:streamGenerateContent  the envelope `{project, model, request, requestType,
//                                           userAgent, requestId}` checked; SSE chunks
//                                           `{response: GenerateContentResponse, traceId}`
//                                           scripted like the Gemini fake (`enqueue`), each
//                                           thoughtSignature issued for the model that made it;
//                                           a replayed signature this model did not issue is
//                                           400, and Gemini 3 calls must carry one
// Errors use Google's JSON error shape; a verification-required account gets what the
// backend sends (an ineligible tier with its validationUrl, or a 403 ErrorInfo).
// Every request is recorded with its headers and parsed body.
import { createHash, randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { answerWhole, chunksOf, type GeminiScript } from './gemini-upstream.ts'
import { type RecordedRequest, readBody, recordOf } from './http-record.ts'
import { LoopbackServer } from './loopback-server.ts'

export const FAKE_CLIENT_ID = '1071006060591-tmhssin2h21lcre235vtolojh4g403ep.apps.googleusercontent.com'
export const FAKE_CLIENT_SECRET = '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'
export const VERIFY_URL =
  'https://accounts.google.com/signin/continue?sarp=1&scc=1&plt=AKgnsbtFAKE&continue=https%3A%2F%2Fdevelopers.google.com'

export interface FakeGoogleUser {
  email: string
  /** The project loadCodeAssist names; null: none yet (onboarding provides `onboardProject`). */
  project: string | null
  /** The account's tier; null: none yet (it gets onboarded). */
  tier?: string | null
  /** Project onboardUser provisions. */
  onboardProject?: string
  /** How many onboardUser calls answer `done: false` first. */
  onboardPolls?: number
  /** Verification required: in loadCodeAssist's ineligible tiers, or as a 403 error body (with or without a URL). */
  verify?: 'tier' | 'error' | 'error-no-url'
  /** No userinfo for this account. */
  noUserinfo?: boolean
  /** onboardUser answers only once this settles (a test watches the login meanwhile). */
  onboardGate?: Promise<void>
}

export interface RecordedTokenRequest {
  body: Record<string, string>
  status: number
}

interface Pending {
  user: FakeGoogleUser
  challenge: string
  redirectUri: string
  used: boolean
}

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url')
}

const googleError = (code: number, status: string, message: string, details: unknown[] = []) =>
  JSON.stringify({ error: { code, message, status, details } })

export class FakeAntigravityBackend {
  readonly url: string
  readonly tokenUrl: string
  readonly requests: RecordedRequest[] = []
  readonly tokenRequests: RecordedTokenRequest[] = []
  /** Generation requests answer these scripts in turn, then `defaultScript`. */
  readonly scripts: AntigravityScript[] = []
  defaultScript: AntigravityScript = { text: ['Hello', ' from', ' Antigravity.'] }
  /** Signatures issued, with the model they were issued for. */
  readonly signatures = new Map<string, string>()
  /** Accept only tokens this fake issued and has not expired or revoked. */
  strictAuth = true
  readonly #server: LoopbackServer
  readonly #codes = new Map<string, Pending>()
  readonly #access = new Map<string, FakeGoogleUser>()
  readonly #refresh = new Map<string, FakeGoogleUser>()
  readonly #onboardCalls = new Map<FakeGoogleUser, number>()

  private constructor(server: LoopbackServer) {
    this.#server = server
    this.url = server.url
    this.tokenUrl = `${server.url}/token`
  }

  static async start(): Promise<FakeAntigravityBackend> {
    let fake: FakeAntigravityBackend | undefined
    const server = await LoopbackServer.listen((req, res) => fake!.#handle(req, res))
    fake = new FakeAntigravityBackend(server)
    return fake
  }

  close(): Promise<void> {
    return this.#server.close()
  }

  /** The browser step: the person signs in as `user`; returns the code the redirect carries. */
  authorize(user: FakeGoogleUser, challenge: string, redirectUri: string): string {
    const code = `4/0A${randomBytes(12).toString('base64url')}`
    this.#codes.set(code, { user, challenge, redirectUri, used: false })
    return code
  }

  /** Tokens for `user` without the browser step. */
  issue(user: FakeGoogleUser): { access_token: string; refresh_token: string; expires_in: number } {
    const access = `ya29.${randomBytes(16).toString('base64url')}`
    const refresh = `1//0g${randomBytes(16).toString('base64url')}`
    this.#access.set(access, user)
    this.#refresh.set(refresh, user)
    return { access_token: access, refresh_token: refresh, expires_in: 3599 }
  }

  /** The access token stops working (as when it expires early). */
  expire(access: string): void {
    this.#access.delete(access)
  }

  /** The refresh token is revoked (the person removed the app's access). */
  revoke(refresh: string): void {
    this.#refresh.delete(refresh)
  }

  userOf(access: string): FakeGoogleUser | undefined {
    return this.#access.get(access)
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req)
    const path = (req.url ?? '').split('?')[0]
    if (req.method === 'POST' && path === '/token') return this.#token(raw, res)
    const record = recordOf(req, res, raw)
    this.requests.push(record)
    const bearer = String(req.headers.authorization ?? '').replace(/^Bearer /, '')
    const user = this.#access.get(bearer)
    if (!user && this.strictAuth) {
      const body = googleError(
        401,
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token.',
      )
      return send(res, 401, body)
    }
    if (req.method === 'GET' && path === '/oauth2/v1/userinfo') {
      if (!user || user.noUserinfo) return send(res, 404, googleError(404, 'NOT_FOUND', 'no such user'))
      return send(res, 200, JSON.stringify({ id: '1089', email: user.email, verified_email: true }))
    }
    if (req.method === 'POST' && path === '/v1internal:loadCodeAssist') return this.#load(user, res)
    if (req.method === 'POST' && path === '/v1internal:onboardUser') return this.#onboard(user, record, res)
    if (req.method === 'POST' && path === '/v1internal:streamGenerateContent')
      return this.#generate(user, record, res)
    send(res, 404, googleError(404, 'NOT_FOUND', `no route ${req.method} ${path}`))
  }

  #token(raw: string, res: ServerResponse) {
    const body = Object.fromEntries(new URLSearchParams(raw))
    const answer = (status: number, json: Record<string, unknown>) => {
      this.tokenRequests.push({ body, status })
      send(res, status, JSON.stringify(json))
    }
    if (body.client_id !== FAKE_CLIENT_ID || body.client_secret !== FAKE_CLIENT_SECRET)
      return answer(401, { error: 'invalid_client', error_description: 'The OAuth client was not found.' })
    if (body.grant_type === 'authorization_code') {
      const pending = this.#codes.get(body.code ?? '')
      if (!pending || pending.used)
        return answer(400, { error: 'invalid_grant', error_description: 'Malformed auth code.' })
      pending.used = true
      if (pending.redirectUri !== body.redirect_uri)
        return answer(400, { error: 'redirect_uri_mismatch', error_description: 'Bad Request' })
      if (s256(body.code_verifier ?? '') !== pending.challenge)
        return answer(400, { error: 'invalid_grant', error_description: 'Invalid code verifier.' })
      const tokens = this.issue(pending.user)
      return answer(200, { ...tokens, scope: 'openid email profile', token_type: 'Bearer' })
    }
    if (body.grant_type === 'refresh_token') {
      const user = this.#refresh.get(body.refresh_token ?? '')
      if (!user)
        return answer(400, {
          error: 'invalid_grant',
          error_description: 'Token has been expired or revoked.',
        })
      const access = `ya29.${randomBytes(16).toString('base64url')}`
      this.#access.set(access, user)
      return answer(200, { access_token: access, expires_in: 3599, scope: 'openid', token_type: 'Bearer' })
    }
    answer(400, {
      error: 'unsupported_grant_type',
      error_description: `Invalid grant_type: ${body.grant_type}`,
    })
  }

  #load(user: FakeGoogleUser | undefined, res: ServerResponse) {
    if (!user) return send(res, 200, JSON.stringify({}))
    if (user.verify === 'error' || user.verify === 'error-no-url') {
      const metadata = user.verify === 'error' ? { validation_url: VERIFY_URL } : {}
      const details = [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'VALIDATION_REQUIRED',
          domain: 'cloudcode-pa.googleapis.com',
          metadata,
        },
        {
          '@type': 'type.googleapis.com/google.rpc.Help',
          links: [{ description: 'Learn more', url: 'https://support.google.com/accounts/answer/1' }],
        },
      ]
      return send(
        res,
        403,
        googleError(403, 'PERMISSION_DENIED', 'Verify your account to continue.', details),
      )
    }
    const free = {
      id: 'free-tier',
      name: 'Gemini Code Assist for individuals',
      userDefinedCloudaicompanionProject: false,
    }
    if (user.verify === 'tier') {
      const ineligible = {
        reasonCode: 'VALIDATION_REQUIRED',
        reasonMessage: 'Verify your account to continue.',
        tierId: 'free-tier',
        tierName: free.name,
        validationUrl: VERIFY_URL,
        validationUrlLinkText: 'Verify your account',
      }
      return send(res, 200, JSON.stringify({ allowedTiers: [], ineligibleTiers: [ineligible] }))
    }
    const tier = user.tier === undefined ? (user.project ? 'free-tier' : null) : user.tier
    const answer: Record<string, unknown> = { allowedTiers: [{ ...free, isDefault: true }] }
    if (tier) answer.currentTier = { id: tier, name: free.name }
    if (user.project) answer.cloudaicompanionProject = user.project
    send(res, 200, JSON.stringify(answer))
  }

  /** Queues the answers of the next generation requests. */
  enqueue(...scripts: AntigravityScript[]): void {
    this.scripts.push(...scripts)
  }

  async #generate(user: FakeGoogleUser | undefined, record: RecordedRequest, res: ServerResponse) {
    const refusal = envelopeError(record.body, user)
    if (refusal)
      return send(
        res,
        refusal.startsWith('Permission') ? 403 : 400,
        googleError(
          refusal.startsWith('Permission') ? 403 : 400,
          refusal.startsWith('Permission') ? 'PERMISSION_DENIED' : 'INVALID_ARGUMENT',
          refusal,
        ),
      )
    const model: string = record.body.model
    const signatureError = this.#checkSignatures(record.body.request.contents, model)
    if (signatureError) return send(res, 400, googleError(400, 'INVALID_ARGUMENT', signatureError))
    const script = this.scripts.shift() ?? this.defaultScript
    if (script.status) {
      const body = script.errorBody
        ? JSON.stringify(script.errorBody)
        : googleError(script.status, script.errorStatus ?? 'INTERNAL', script.errorMessage ?? 'error')
      return send(res, script.status, body)
    }
    const chunks = chunksOf(script, model) as any[]
    for (const chunk of chunks) {
      for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
        if (!part.thoughtSignature) continue
        part.thoughtSignature = `sig-${randomBytes(9).toString('base64url')}`
        this.signatures.set(part.thoughtSignature, model)
      }
    }
    const envelope = (chunk: unknown) => ({ response: chunk, traceId: 'fake-trace' })
    if (script.unstreamed === 'array') return answerWhole(res, chunks.map(envelope), 'array')
    res.writeHead(200, { 'content-type': 'text/event-stream', 'transfer-encoding': 'chunked' })
    for (const chunk of chunks) {
      if (script.delayMs) await sleep(script.delayMs)
      if (res.destroyed) return
      res.write(`data: ${JSON.stringify(envelope(chunk))}\r\n\r\n`)
    }
    res.end()
  }

  /** Signatures replay only to the model that made them; Gemini 3 calls need one. */
  #checkSignatures(contents: any[], model: string): string | null {
    for (const content of contents) {
      for (const part of content?.parts ?? []) {
        const sig = part?.thoughtSignature
        if (sig === undefined) {
          if (part?.functionCall && model.startsWith('gemini-3'))
            return 'Function call is missing a thought_signature in functionCall parts.'
          continue
        }
        if (sig === 'skip_thought_signature_validator') continue
        if (this.signatures.get(sig) !== model) return 'Corrupted thought signature.'
      }
    }
    return null
  }

  async #onboard(user: FakeGoogleUser | undefined, record: RecordedRequest, res: ServerResponse) {
    if (!user) return send(res, 401, googleError(401, 'UNAUTHENTICATED', 'no user'))
    if (typeof record.body?.tierId !== 'string')
      return send(res, 400, googleError(400, 'INVALID_ARGUMENT', 'tierId is required'))
    await user.onboardGate
    const calls = (this.#onboardCalls.get(user) ?? 0) + 1
    this.#onboardCalls.set(user, calls)
    if (calls <= (user.onboardPolls ?? 0))
      return send(res, 200, JSON.stringify({ name: `operations/onboard-${calls}`, done: false }))
    const project = user.onboardProject ?? 'onboarded-project-1'
    user.project = project
    user.tier = record.body.tierId
    send(
      res,
      200,
      JSON.stringify({
        name: `operations/onboard-${calls}`,
        done: true,
        response: {
          '@type': 'type.googleapis.com/google.internal.cloud.code.v1internal.OnboardUserResponse',
          cloudaicompanionProject: { id: project, name: project },
        },
      }),
    )
  }
}

export interface AntigravityScript extends GeminiScript {
  /** With `status`: this Google error body instead of the plain one. */
  errorBody?: unknown
}

/** Why the backend refuses an envelope, or null. */
function envelopeError(body: any, user: FakeGoogleUser | undefined): string | null {
  if (typeof body !== 'object' || body === null) return 'Invalid JSON payload received.'
  if (typeof body.project !== 'string' || body.project === '') return 'project is required'
  if (user?.project && body.project !== user.project) return `Permission denied on project ${body.project}`
  if (typeof body.model !== 'string' || body.model === '') return 'model is required'
  if (body.requestType !== 'agent' || body.userAgent !== 'antigravity') return 'unknown request type'
  if (typeof body.requestId !== 'string' || !body.requestId.startsWith('agent-'))
    return 'requestId is required'
  if (!Array.isArray(body.request?.contents) || body.request.contents.length === 0)
    return 'contents is not specified'
  return null
}

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' })
  res.end(body)
}
