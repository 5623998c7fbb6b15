// A delta's cost in async steps: the vertex and bedrock transports hand back the shared
// turn of their wire itself (their credential step inside it), so each delta crosses no
// generator of their own (a wrapping `yield*` cost 0.15-0.5 ms per 2,000 deltas, measured
// in bench/notes/providers.md). Counted, not timed: the same bytes served from memory in one
// chunk, and the microtask turns that pass between the first delta and `done` counted by
// a spinner that re-queues itself, the same for the shared turn and the transport.
import { strictEqual } from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { messagesStep } from '../../src/providers/anthropic-messages/transport.ts'
import { bedrockTransport } from '../../src/providers/bedrock/transport.ts'
import { geminiStep } from '../../src/providers/gemini/transport.ts'
import type { NeutralEvent, NeutralRequest, StreamOptions } from '../../src/providers/types.ts'
import { vertexTransport } from '../../src/providers/vertex/transport.ts'

const DELTAS = 200

function messagesSse(): Uint8Array {
  const event = (type: string, o: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...o })}\n\n`
  let text = event('message_start', { message: { id: 'm', role: 'assistant', content: [], usage: {} } })
  text += event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } })
  for (let i = 0; i < DELTAS; i++)
    text += event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: `w${i} ` } })
  text += event('content_block_stop', { index: 0 })
  text += event('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: DELTAS } })
  return new TextEncoder().encode(text + event('message_stop', {}))
}

function sse(): Uint8Array {
  let text = ''
  for (let i = 0; i < DELTAS; i++) {
    const chunk = { candidates: [{ content: { role: 'model', parts: [{ text: `w${i} ` }] }, index: 0 }] }
    text += `data: ${JSON.stringify(chunk)}\r\n\r\n`
  }
  const last = { candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP' }] }
  return new TextEncoder().encode(`${text}data: ${JSON.stringify(last)}\r\n\r\n`)
}

/** Answers the token exchange, and the stream with all its bytes in one chunk. */
const memoryFetch = (async (url: string | URL) => {
  if (String(url).endsWith('/token'))
    return Response.json({ access_token: 'ya29.steps', expires_in: 3599, token_type: 'Bearer' })
  const body = String(url).endsWith('/messages') ? messagesSse() : sse()
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
}) as typeof fetch

/** Microtask turns between the first text delta and `done`. */
/** One user message to `model`, with a turn deadline and the in-memory fetch. */
function turnFor(model: string): { req: NeutralRequest; opts: () => StreamOptions } {
  return {
    req: {
      model,
      effort: null,
      system: null,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
      tools: [],
      session_id: 'ses_steps',
    },
    opts: () => ({ signal: AbortSignal.timeout(10_000), fetch: memoryFetch }),
  }
}

/** A profile of `model` with no endpoint or key of its own, plus `extra`. */
const profileFor = (model: string, extra: Record<string, unknown> = {}) => ({
  endpoint: '',
  protocol: 'chat_completions' as const,
  model,
  api_key: null,
  ...extra,
})

async function stepsOf(events: AsyncIterable<NeutralEvent>): Promise<number> {
  let ticks = 0
  let counting = false
  let from = 0
  const spin = () => {
    if (!counting) return
    ticks++
    queueMicrotask(spin)
  }
  for await (const event of events) {
    if (event.type === 'text_delta' && !counting) {
      counting = true
      from = ticks
      queueMicrotask(spin)
    }
    if (event.type === 'done' || event.type === 'error') {
      counting = false
      strictEqual(event.type, 'done')
      return ticks - from
    }
  }
  throw new Error('no terminal event')
}

test('a vertex delta costs the shared Gemini turn’s async steps, none of its own', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-vertex-steps-'))
  const adc = join(dir, 'adc.json')
  writeFileSync(
    adc,
    JSON.stringify({
      type: 'authorized_user',
      client_id: 'steps.apps.googleusercontent.com',
      client_secret: 'secret',
      refresh_token: '1//steps',
      token_uri: 'http://127.0.0.1:9/token',
    }),
  )
  const { req, opts } = turnFor('gemini-2.5-flash')
  const profile = profileFor('gemini-2.5-flash', { project: 'p', location: 'global' })
  const env = { GOOGLE_APPLICATION_CREDENTIALS: adc, HEARTH_VERTEX_BASE_URL: 'http://127.0.0.1:9' }
  const build = () => ({ url: 'http://127.0.0.1:9/v', headers: {}, body: '{}' })
  const shared = await stepsOf(geminiStep(build, opts(), null))
  const vertex = await stepsOf(vertexTransport({ env }).stream(profile, req, opts()))
  strictEqual(vertex, shared)
})

test('a bedrock delta costs the shared Messages turn’s async steps, none of its own', async () => {
  const { req, opts } = turnFor('anthropic.claude-sonnet-4-5')
  const profile = profileFor('anthropic.claude-sonnet-4-5')
  const env = () => ({
    HEARTH_BEDROCK_BASE_URL: 'http://127.0.0.1:9',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'AKIDSTEPS',
    AWS_SECRET_ACCESS_KEY: 'steps',
  })
  const build = () => ({ url: 'http://127.0.0.1:9/v1/messages', headers: {}, body: '{}' })
  const shared = await stepsOf(messagesStep(build, opts(), null))
  const bedrock = await stepsOf(bedrockTransport({ env }).stream(profile, req, opts()))
  strictEqual(bedrock, shared)
})
