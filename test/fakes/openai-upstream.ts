// A fake model upstream: a real HTTP server on 127.0.0.1 (port 0) speaking OpenAI's
// Responses (`POST /v1/responses`) and Chat Completions (`POST /v1/chat/completions`)
// streaming formats, and Anthropic's Messages (`POST /v1/messages`, and Bedrock's
// `POST /anthropic/v1/messages`; see anthropic-frames.ts). Each request takes the next queued script (else the default one) and
// is recorded (headers and parsed body). A script may be a function of the recorded
// request (to answer what was sent; see tool-script.ts for tool turns). Scripts can stream
// text, reasoning and tool calls (one or several, arguments in pieces) with a per-delta delay, report usage, answer an error status (with Retry-After), or
// misbehave: stall, drop the connection, send a malformed frame, delay the first byte.
// Like the real APIs, it answers 400 to replayed tool calls and results that do not pair up
// (tool-pairing.ts).
// Used by tests and by bench code.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  messagesErrorBody,
  messagesFrames,
  messagesPairingError,
  messagesRequestError,
  wholeMessage,
} from './anthropic-frames.ts'
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
import { chatPairingError, responsesPairingError } from './tool-pairing.ts'

export type { RecordedRequest } from './http-record.ts'
export type { FakeMode, FakeReply, FakeScript, FakeToolCall, FakeUsage } from './openai-frames.ts'

/**
 * The wire a path speaks: OpenAI's two, and Anthropic Messages both as Anthropic serves it
 * (`/v1/messages`) and as Amazon Bedrock does (`/anthropic/v1/messages`).
 */
function protocolOf(path: string): 'responses' | 'chat' | 'messages' | null {
  const bare = path.split('?')[0]
  if (bare.startsWith('/v1/responses')) return 'responses'
  if (bare.startsWith('/v1/chat/completions')) return 'chat'
  if (bare === '/v1/messages' || bare === '/anthropic/v1/messages') return 'messages'
  return null
}

/**
 * A gate in front of the Messages routes, as a vendor's front door checks credentials
 * before the model sees a request: a refusal is answered as it returns it.
 */
export type FakeGate = (record: RecordedRequest, raw: string) => Promise<FakeRefusal | null>

export interface FakeRefusal {
  status: number
  body: Record<string, unknown>
  headers?: Record<string, string>
}

export class FakeOpenAIUpstream {
  readonly url: string
  readonly requests: RecordedRequest[] = []
  defaultScript: FakeScript = DEFAULT_SCRIPT
  /** Checked before a Messages request is answered (see bedrock-auth.ts); null lets all in. */
  gate: FakeGate | null = null
  /** Items `GET /v1/models` answers in `{data}` (Copilot's model list); null: no such route. */
  models: unknown[] | null = null
  readonly #queue: FakeReply[] = []
  readonly #http: LoopbackServer

  private constructor(http: LoopbackServer) {
    this.#http = http
    this.url = http.url
  }

  static async start(): Promise<FakeOpenAIUpstream> {
    let fake: FakeOpenAIUpstream | null = null
    fake = new FakeOpenAIUpstream(await LoopbackServer.listen((req, res) => fake!.#handle(req, res)))
    return fake
  }

  /** Scripts for the next requests, in order (a function gets the recorded request). */
  enqueue(...scripts: FakeReply[]): this {
    this.#queue.push(...scripts)
    return this
  }

  /** The next `n` requests answer `status`; later ones follow the queue or the default. */
  failTimes(n: number, status: number, opts: { retryAfter?: string; message?: string } = {}): this {
    for (let i = 0; i < n; i++) {
      this.#queue.push({ status, retryAfter: opts.retryAfter, errorMessage: opts.message })
    }
    return this
  }

  /** Forgets queued scripts and recorded requests, restores the default script. */
  reset(): this {
    this.#queue.length = 0
    this.requests.length = 0
    this.defaultScript = DEFAULT_SCRIPT
    this.gate = null
    return this
  }

  /** Scripts queued but not yet used by a request. */
  get pending(): number {
    return this.#queue.length
  }

  close(): Promise<void> {
    return this.#http.close()
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req)
    const record = recordOf(req, res, raw)
    this.requests.push(record)
    if (req.method === 'GET' && record.path === '/v1/models' && this.models) {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ data: this.models, object: 'list' }))
      record.completed = true
      return
    }
    const script = scriptFor(this.#queue.shift() ?? this.defaultScript, record)
    const protocol = protocolOf(record.path)
    if (script.firstByteDelayMs) await sleep(script.firstByteDelayMs)
    if (script.mode === 'stall-before-headers') return
    if (req.method !== 'POST' || protocol === null) {
      return this.#error(res, record, 404, `no route for ${req.method} ${record.path}`, undefined)
    }
    if (protocol === 'messages') {
      const refused = (await this.gate?.(record, raw)) ?? null
      if (refused) {
        res.writeHead(refused.status, { 'content-type': 'application/json', ...refused.headers })
        res.end(JSON.stringify(refused.body))
        record.completed = true
        return
      }
      const refusal = messagesRequestError(record.body) ?? messagesPairingError(record.body)
      if (refusal) return this.#messagesError(res, record, 400, refusal)
      if (script.status && script.status !== 200)
        return this.#messagesError(res, record, script.status, script.errorMessage, script.retryAfter)
      if (script.unstreamed) {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify(wholeMessage(script, record.body?.model)))
        record.completed = true
        return
      }
    } else {
      const unpaired =
        protocol === 'chat' ? chatPairingError(record.body) : responsesPairingError(record.body)
      if (unpaired) return this.#error(res, record, 400, unpaired.message, undefined, unpaired.param)
      if (script.status && script.status !== 200) {
        return this.#error(res, record, script.status, script.errorMessage, script.retryAfter)
      }
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    res.flushHeaders()
    if (script.mode === 'stall-after-headers') return
    const frames =
      script.raw !== undefined
        ? [{ text: script.raw, delta: false }]
        : protocol === 'responses'
          ? responsesFrames(script)
          : protocol === 'messages'
            ? messagesFrames(script, record.body?.model)
            : chatFrames(script, record.body?.model)
    await playFrames(res, frames, script, record)
  }

  #messagesError(
    res: ServerResponse,
    record: RecordedRequest,
    status: number,
    message?: string,
    retryAfter?: string,
  ) {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (retryAfter !== undefined) headers['retry-after'] = retryAfter
    res.writeHead(status, headers)
    res.end(JSON.stringify(messagesErrorBody(status, message ?? `fake upstream error ${status}`)))
    record.completed = true
  }

  #error(
    res: ServerResponse,
    record: RecordedRequest,
    status: number,
    message?: string,
    retryAfter?: string,
    param: string | null = null,
  ) {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (retryAfter !== undefined) headers['retry-after'] = retryAfter
    res.writeHead(status, headers)
    const type =
      status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error'
    res.end(
      JSON.stringify({
        error: { message: message ?? `fake upstream error ${status}`, type, param, code: null },
      }),
    )
    record.completed = true
  }
}
