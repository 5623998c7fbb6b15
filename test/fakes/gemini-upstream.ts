// A fake Vertex AI Gemini endpoint: a real HTTP server on 127.0.0.1:0 answering
// `POST /v1/projects/{p}/locations/{l}/publishers/google/models/{model}:streamGenerateContent?alt=sse`
// with GenerateContentResponse chunks framed as Vertex frames them (`data: <json>\r\n\r\n`),
// shaped like the recorded streams in test/providers/gemini/fixtures: thoughts with
// signatures, text, calls (parallel calls in one chunk, only the first signed), and STOP in
// a last chunk whose only part is an empty text with a signature. Like the API it answers
// Google error JSON to a bearer it does not accept (401 UNAUTHENTICATED), to function
// responses that do not pair up with the calls before them, and (Gemini 3 models) to a
// replayed call without a thoughtSignature (400 INVALID_ARGUMENT).
import type { IncomingMessage, ServerResponse } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { LoopbackServer } from './loopback-server.ts'

export interface GeminiCall {
  name: string
  args?: Record<string, unknown>
  id?: string
}

export interface GeminiScript {
  thoughts?: string[]
  text?: string[]
  /** Calls sent together in one chunk (parallel calls). */
  calls?: GeminiCall[]
  /** Default STOP. */
  finishReason?: string
  /** Google's words on a finishReason other than STOP (`finishMessage`). */
  finishMessage?: string
  /**
   * The prompt was blocked: one chunk, `promptFeedback: {blockReason}` and usage, no
   * candidates (as recorded in test/providers/gemini/fixtures/prompt-blocked.sse).
   */
  blockReason?: string
  usage?: { prompt?: number; candidates?: number; thoughts?: number; cached?: number }
  /** `cut`: the stream ends before the finishReason chunk. */
  mode?: 'cut'
  /**
   * Answer the chunks whole, as Google does when `alt=sse` is missing: a 200
   * `application/json` body holding the JSON array of them (`single`: the one object
   * `generateContent` answers, the chunks' parts merged).
   */
  unstreamed?: 'array' | 'single'
  /** Answer this status with Google's error JSON instead of a stream. */
  status?: number
  errorStatus?: string
  errorMessage?: string
  /** Delay before each chunk. */
  delayMs?: number
}

export interface GeminiRequest {
  method: string
  path: string
  /** `streamGenerateContent` or `generateContent`. */
  method_name: string
  model: string
  project: string
  location: string
  query: string
  headers: IncomingMessage['headers']
  body: any
}

type Scripted = GeminiScript | ((req: GeminiRequest) => GeminiScript)

const ROUTE =
  /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/google\/models\/([^/:]+):(streamGenerateContent|generateContent)$/

export class FakeGeminiUpstream {
  readonly requests: GeminiRequest[] = []
  /** Bearer tokens accepted; empty accepts any. */
  readonly tokens = new Set<string>()
  defaultScript: GeminiScript = { text: ['Hello', ' from', ' Gemini.'] }
  readonly #queue: Scripted[] = []
  readonly #server: LoopbackServer

  private constructor(server: LoopbackServer) {
    this.#server = server
  }

  get url(): string {
    return this.#server.url
  }

  static async start(): Promise<FakeGeminiUpstream> {
    let fake: FakeGeminiUpstream | undefined
    const server = await LoopbackServer.listen((req, res) => fake!.#handle(req, res))
    fake = new FakeGeminiUpstream(server)
    return fake
  }

  enqueue(...scripts: Scripted[]): void {
    this.#queue.push(...scripts)
  }

  reset(): void {
    this.#queue.length = 0
    this.requests.length = 0
  }

  close(): Promise<void> {
    return this.#server.close()
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const url = new URL(req.url ?? '/', 'http://x')
    const route = ROUTE.exec(url.pathname)
    if (req.method !== 'POST' || !route) return googleError(res, 404, 'NOT_FOUND', `no route ${url.pathname}`)
    let body: any
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    } catch {
      return googleError(res, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.')
    }
    const recorded: GeminiRequest = {
      method: req.method,
      path: url.pathname,
      method_name: route[4],
      model: decodeURIComponent(route[3]),
      project: decodeURIComponent(route[1]),
      location: decodeURIComponent(route[2]),
      query: url.search,
      headers: req.headers,
      body,
    }
    this.requests.push(recorded)
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1]
    if (!bearer || (this.tokens.size > 0 && !this.tokens.has(bearer))) {
      return googleError(
        res,
        401,
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      )
    }
    const refusal = checkContents(body, recorded.model)
    if (refusal) return googleError(res, 400, 'INVALID_ARGUMENT', refusal)
    const next = this.#queue.shift() ?? this.defaultScript
    const script = typeof next === 'function' ? next(recorded) : next
    if (script.status) {
      return googleError(res, script.status, script.errorStatus ?? 'INTERNAL', script.errorMessage ?? 'error')
    }
    if (script.unstreamed) return answerWhole(res, chunksOf(script, recorded.model), script.unstreamed)
    // `generateContent` answers one GenerateContentResponse, never a stream.
    if (recorded.method_name === 'generateContent')
      return answerWhole(res, chunksOf(script, recorded.model), 'single')
    res.writeHead(200, { 'content-type': 'text/event-stream', 'transfer-encoding': 'chunked' })
    for (const chunk of chunksOf(script, recorded.model)) {
      if (script.delayMs) await sleep(script.delayMs)
      if (res.destroyed) return
      res.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`)
    }
    res.end()
  }
}

/** The chunks as one JSON answer (Google pretty-prints it). */
export function answerWhole(res: ServerResponse, chunks: unknown[], how: 'array' | 'single'): void {
  res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' })
  res.end(JSON.stringify(how === 'array' ? chunks : mergeChunks(chunks as any[]), null, 2))
}

/** `generateContent`'s one response: every chunk's parts in one candidate, the last chunk's rest. */
function mergeChunks(chunks: any[]): unknown {
  const last = chunks.at(-1) ?? {}
  const parts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? [])
  const candidate = { ...(last.candidates?.[0] ?? {}), content: { role: 'model', parts } }
  return { ...last, candidates: [candidate] }
}

function googleError(res: ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' })
  res.end(JSON.stringify({ error: { code: status, message, status: code } }, null, 2))
}

/** The chunks of a script, in the order Gemini streams them. */
export function chunksOf(script: GeminiScript, model = 'gemini-2.5-flash'): unknown[] {
  const out: unknown[] = []
  const meta = { modelVersion: model, responseId: 'fake-response' }
  const partial = { usageMetadata: { trafficType: 'ON_DEMAND' }, ...meta }
  let signature = 0
  const sign = () => `c2lnLWZha2Ut${++signature}`
  const candidate = (parts: unknown[], finishReason?: string) => ({
    content: { role: 'model', parts },
    ...(finishReason ? { finishReason } : {}),
    ...(finishReason && script.finishMessage ? { finishMessage: script.finishMessage } : {}),
    index: 0,
  })
  if (script.blockReason) {
    const prompt = script.usage?.prompt ?? 12
    const usageMetadata = { promptTokenCount: prompt, totalTokenCount: prompt }
    return [{ promptFeedback: { blockReason: script.blockReason }, usageMetadata, ...meta }]
  }
  for (const [i, t] of (script.thoughts ?? []).entries()) {
    out.push({
      candidates: [candidate([{ text: t, thought: true, ...(i === 0 ? { thoughtSignature: sign() } : {}) }])],
      ...partial,
    })
  }
  for (const t of script.text ?? []) out.push({ candidates: [candidate([{ text: t }])], ...partial })
  const calls = script.calls ?? []
  if (calls.length > 0) {
    const parts = calls.map((c, i) => ({
      functionCall: { name: c.name, ...(c.args ? { args: c.args } : {}), ...(c.id ? { id: c.id } : {}) },
      ...(i === 0 ? { thoughtSignature: sign() } : {}),
    }))
    out.push({ candidates: [candidate(parts)], ...partial })
  }
  if (script.mode === 'cut') return out
  const u = script.usage ?? {}
  out.push({
    candidates: [candidate([{ text: '', thoughtSignature: sign() }], script.finishReason ?? 'STOP')],
    usageMetadata: {
      promptTokenCount: u.prompt ?? 12,
      candidatesTokenCount: u.candidates ?? 5,
      totalTokenCount: (u.prompt ?? 12) + (u.candidates ?? 5) + (u.thoughts ?? 0),
      ...(u.thoughts ? { thoughtsTokenCount: u.thoughts } : {}),
      ...(u.cached ? { cachedContentTokenCount: u.cached } : {}),
    },
    ...meta,
  })
  return out
}

/** Like the API: responses pair with the calls before them; Gemini 3 calls carry signatures. */
function checkContents(body: any, model: string): string | null {
  if (!Array.isArray(body?.contents) || body.contents.length === 0) return 'contents is not specified'
  const contents: any[] = body.contents
  for (const [i, content] of contents.entries()) {
    const calls = (content?.parts ?? []).filter((p: any) => p?.functionCall)
    if (content?.role !== 'model' || calls.length === 0) continue
    if (model.startsWith('gemini-3') && calls.some((p: any) => typeof p.thoughtSignature !== 'string')) {
      return `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${calls[0].functionCall.name}\` , position ${i + 1}.`
    }
    const answers = (contents[i + 1]?.parts ?? []).filter((p: any) => p?.functionResponse)
    if (contents[i + 1]?.role !== 'user' || answers.length !== calls.length) {
      return 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.'
    }
  }
  return null
}

/** The calls replayed in a request body, in order. */
export function functionCallsOf(
  body: any,
): { name: string; args: unknown; id?: string; thoughtSignature?: string }[] {
  return (body?.contents ?? []).flatMap((c: any) =>
    (c.parts ?? [])
      .filter((p: any) => p.functionCall)
      .map((p: any) => ({ ...p.functionCall, thoughtSignature: p.thoughtSignature })),
  )
}

/** The function responses in a request body, in order. */
export function functionResponsesOf(body: any): { name: string; response: any; id?: string }[] {
  return (body?.contents ?? []).flatMap((c: any) =>
    (c.parts ?? []).filter((p: any) => p.functionResponse).map((p: any) => p.functionResponse),
  )
}
