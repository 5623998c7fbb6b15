// A fake Copilot API: a real HTTP server on 127.0.0.1:0 answering `POST /chat/completions`
// and `POST /responses` (no `/v1`: Copilot's base has none) with the OpenAI streams of
// openai-frames.ts, as Copilot streams them to pi and opencode (docs/providers.md,
// "copilot"). Every request is recorded (headers, parsed body). It refuses what Copilot
// would: a bearer it does not take (401, `accepts`), a body OpenAI's published params do
// not allow (400, openai-params.ts), a `developer` message on Chat Completions, tool calls
// and results that do not pair up. Scripted refusals (`refuse`) answer Copilot's error
// bodies: 402 `quota_exceeded`, 429 with Retry-After, 400 `model_not_supported`.
import { renameSync, writeFileSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { join } from 'node:path'
import type { FakeGitHub, FakeGitHubAccount } from './github.ts'
import { playFrames, type RecordedRequest, readBody, recordOf } from './http-record.ts'
import { LoopbackServer } from './loopback-server.ts'
import {
  chatFrames,
  DEFAULT_SCRIPT,
  type FakeReply,
  type FakeScript,
  responsesFrames,
  scriptFor,
} from './openai-frames.ts'
import { chatParamsError, responsesParamsError } from './openai-params.ts'
import { chatPairingError, responsesPairingError } from './tool-pairing.ts'

export interface CopilotRefusal {
  refuse: { status: number; body: unknown; headers?: Record<string, string> }
}

/** Copilot's answer when the premium requests are used up (VS Code's Copilot Chat logs it). */
export const QUOTA_EXCEEDED: CopilotRefusal['refuse'] = {
  status: 402,
  body: { error: { message: 'You have no quota', code: 'quota_exceeded' } },
}

/** Copilot's answer for a model the account may not use. */
export const MODEL_NOT_SUPPORTED: CopilotRefusal['refuse'] = {
  status: 400,
  body: {
    error: {
      message: 'The requested model is not supported.',
      code: 'model_not_supported',
      param: 'model',
      type: 'invalid_request_error',
    },
  },
}

/** A rate limit with its Retry-After (seconds). */
export const rateLimited = (retryAfterS: number): CopilotRefusal['refuse'] => ({
  status: 429,
  body: { error: { message: 'Sorry, you have been rate-limited.', code: 'rate_limited' } },
  headers: { 'retry-after': String(retryAfterS), 'x-ratelimit-exceeded': 'global-chat' },
})

const unauthorized: CopilotRefusal['refuse'] = {
  status: 401,
  body: { error: { message: 'unauthorized: token expired', code: 'unauthorized' } },
}

export class FakeCopilotUpstream {
  readonly url: string
  readonly requests: RecordedRequest[] = []
  defaultScript: FakeScript = DEFAULT_SCRIPT
  /** Whether Copilot takes this bearer token (a live Copilot token, say); all by default. */
  accepts: (token: string) => boolean = () => true
  readonly #queue: (FakeReply | CopilotRefusal)[] = []
  readonly #http: LoopbackServer

  private constructor(http: LoopbackServer) {
    this.#http = http
    this.url = http.url
  }

  static async start(): Promise<FakeCopilotUpstream> {
    let fake: FakeCopilotUpstream | null = null
    fake = new FakeCopilotUpstream(await LoopbackServer.listen((req, res) => fake!.#handle(req, res)))
    return fake
  }

  /** Answers for the next requests, in order: scripts, or refusals. */
  enqueue(...replies: (FakeReply | CopilotRefusal)[]): this {
    this.#queue.push(...replies)
    return this
  }

  refuse(refusal: CopilotRefusal['refuse']): this {
    return this.enqueue({ refuse: refusal })
  }

  reset(): this {
    this.#queue.length = 0
    this.requests.length = 0
    this.defaultScript = DEFAULT_SCRIPT
    this.accepts = () => true
    return this
  }

  close(): Promise<void> {
    return this.#http.close()
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req)
    const record = recordOf(req, res, raw)
    this.requests.push(record)
    const path = record.path.split('?')[0]
    const wire = path === '/chat/completions' ? 'chat' : path === '/responses' ? 'responses' : null
    if (req.method !== 'POST' || wire === null) return refuse(res, record, notFound(record.path))
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? ''
    if (!this.accepts(bearer)) return refuse(res, record, unauthorized)
    const next = this.#queue.shift() ?? this.defaultScript
    if (typeof next === 'object' && 'refuse' in next) return refuse(res, record, next.refuse)
    const invalid = wire === 'chat' ? chatInvalid(record.body) : responsesInvalid(record.body)
    if (invalid) return refuse(res, record, badRequest(invalid))
    const script = scriptFor(next, record)
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    res.flushHeaders()
    const frames = wire === 'chat' ? chatFrames(script, record.body?.model) : responsesFrames(script)
    await playFrames(res, frames, script, record)
  }
}

function chatInvalid(body: any): string | null {
  const param = chatParamsError(body)
  if (param) return `Unrecognized request argument supplied: ${param}`
  if (body.messages.some((m: any) => m.role === 'developer'))
    return 'developer messages are not supported for this model'
  return chatPairingError(body)?.message ?? null
}

function responsesInvalid(body: any): string | null {
  const param = responsesParamsError(body)
  if (param) return `Unrecognized request argument supplied: ${param}`
  return responsesPairingError(body)?.message ?? null
}

function badRequest(message: string): CopilotRefusal['refuse'] {
  return {
    status: 400,
    body: { error: { message, type: 'invalid_request_error', code: 'invalid_request_body' } },
  }
}

function notFound(path: string): CopilotRefusal['refuse'] {
  return { status: 404, body: { error: { message: `no route for ${path}`, code: 'not_found' } } }
}

function refuse(res: ServerResponse, record: RecordedRequest, r: CopilotRefusal['refuse']): void {
  res.writeHead(r.status, { 'content-type': 'application/json', ...r.headers })
  res.end(JSON.stringify(r.body))
  record.completed = true
}

/**
 * A copilot account as a sign-in stores it (creds.json `accounts.copilot`): a GitHub token
 * the fake GitHub issued and the Copilot token its exchange gave; `over` replaces fields
 * (an `expires` inside the refresh lead, say).
 */
export async function copilotAccount(
  github: FakeGitHub,
  account: FakeGitHubAccount,
  over: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const token = github.issue(account)
  const res = await fetch(`${github.apiUrl}/copilot_internal/v2/token`, {
    headers: { authorization: `token ${token}` },
  })
  const body = (await res.json()) as { token: string; expires_at: number; endpoints: { api: string } }
  return {
    type: 'oauth',
    github: token,
    access: body.token,
    expires: body.expires_at * 1000,
    api: body.endpoints.api,
    host: github.url,
    user_id: account.id,
    login: account.login,
    ...over,
  }
}

/** Writes the accounts into the home's creds.json at once (a running daemon reads it anew). */
export function writeCopilotAccounts(home: string, accounts: Record<string, unknown>[]): void {
  const path = join(home, 'creds.json')
  const temp = `${path}.${process.pid}.tmp`
  writeFileSync(temp, JSON.stringify({ accounts: { copilot: accounts } }), { mode: 0o600 })
  renameSync(temp, path)
}
