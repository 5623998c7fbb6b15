// A tiny Responses-API server for `hearth daemon --demo`: it answers any message with a
// friendly reply streamed word by word, so a new user sees a streamed answer with no
// account. It binds 127.0.0.1 on a free port; point an `openai-compatible` profile with
// protocol `responses` at the returned url. Dependency-free on purpose.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'

export const DEMO_MODEL = 'hearth-demo'
const BODY_LIMIT = 80 * 1024 * 1024

export interface DemoUpstream {
  /** The base URL to use as a profile's `endpoint` (ends in `/v1`). */
  url: string
  close(): Promise<void>
}

export interface DemoOptions {
  /** Pause between words, in ms (default 25). */
  wordDelayMs?: number
}

export async function startDemoUpstream(options: DemoOptions = {}): Promise<DemoUpstream> {
  const wordDelayMs = options.wordDelayMs ?? 25
  const sockets = new Set<Socket>()
  const server = createServer((req, res) => {
    handle(req, res, wordDelayMs).catch(() => res.destroy())
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

async function handle(req: IncomingMessage, res: ServerResponse, wordDelayMs: number): Promise<void> {
  const path = (req.url ?? '/').split('?')[0]
  if (req.method === 'GET' && path === '/v1/models') {
    return json(res, 200, { object: 'list', data: [{ id: DEMO_MODEL, object: 'model', owned_by: 'hearth' }] })
  }
  if (req.method !== 'POST' || path !== '/v1/responses') {
    return json(res, 404, { error: { message: 'the demo upstream only serves POST /v1/responses' } })
  }
  let body: any
  try {
    body = JSON.parse(await readBody(req))
  } catch {
    return json(res, 400, { error: { message: 'the request body is not JSON' } })
  }
  const asked = lastUserText(body?.input)
  const words = reply(asked).split(/(?<= )/)
  const id = `resp_demo_${Date.now().toString(36)}`
  const item = `msg_demo_${Date.now().toString(36)}`
  const model = typeof body?.model === 'string' ? body.model : DEMO_MODEL
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' })
  let seq = 0
  const send = (type: string, fields: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...fields })}\n\n`)
  const response = { id, object: 'response', model, status: 'in_progress', output: [] as unknown[] }
  send('response.created', { response })
  send('response.output_item.added', {
    output_index: 0,
    item: { id: item, type: 'message', role: 'assistant', status: 'in_progress', content: [] },
  })
  send('response.content_part.added', {
    item_id: item,
    output_index: 0,
    content_index: 0,
    part: { type: 'output_text', text: '' },
  })
  for (const word of words) {
    if (res.destroyed) return
    await sleep(wordDelayMs)
    send('response.output_text.delta', { item_id: item, output_index: 0, content_index: 0, delta: word })
  }
  const text = words.join('')
  const part = { type: 'output_text', text, annotations: [] }
  const message = { id: item, type: 'message', role: 'assistant', status: 'completed', content: [part] }
  send('response.output_text.done', { item_id: item, output_index: 0, content_index: 0, text })
  send('response.content_part.done', { item_id: item, output_index: 0, content_index: 0, part })
  send('response.output_item.done', { output_index: 0, item: message })
  const inputTokens = Math.max(1, Math.ceil(JSON.stringify(body?.input ?? '').length / 4))
  const usage = {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: words.length,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + words.length,
  }
  send('response.completed', { response: { ...response, status: 'completed', output: [message], usage } })
  res.end()
}

export function reply(asked: string | null): string {
  const echo = asked ? `You asked: “${excerpt(asked)}”. ` : ''
  return (
    `Hello from hearth! ${echo}This answer comes from the demo profile: a small built-in ` +
    'server inside the daemon that streams a reply word by word, with no model behind it and ' +
    'no account needed. To talk to a real model, add a profile with your provider’s endpoint ' +
    'and API key, or sign in with a subscription, then pick it for this session.'
  )
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > 120 ? `${flat.slice(0, 119)}…` : flat
}

/** The text of the last user message of a Responses `input` (a string or a list of items). */
function lastUserText(input: unknown): string | null {
  if (typeof input === 'string') return input
  if (!Array.isArray(input)) return null
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i]
    if (item?.role !== 'user') continue
    if (typeof item.content === 'string') return item.content
    if (!Array.isArray(item.content)) return null
    const texts = item.content.filter((p: any) => typeof p?.text === 'string').map((p: any) => p.text)
    return texts.length > 0 ? texts.join(' ') : null
  }
  return null
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > BODY_LIMIT) req.destroy(new Error('body too large'))
      else chunks.push(chunk)
    })
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}
