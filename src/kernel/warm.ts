// Warming a kernel process before it serves a session: one real step per wire format
// against a throwaway server on loopback, run through the same transports as a real step
// (each provider's warm-up steps are its src/providers/<id>/warm.ts, loaded by id in
// src/providers/transports.ts). Without it the first step pays for loading fetch (undici,
// ~40 ms), compiling the transports' encode/SSE/decode paths and opening the first
// connection pool: 60-75 ms on a new session's first token. The Gemini warm-up step took a fresh
// vertex session's first token over the upstream from 12.5 to 8.7 ms (median of 8 fresh
// daemons each, bench/notes/providers.md, its section on the Gemini warm-up).
// Nothing of the warm-up is kept but the loaded code: once ready, a process with nothing to
// run collects its garbage with one last-resort collection (src/util/compact-heap.ts), then
// runs its warm-up steps once more. The collection alone took ~7 MB off a warmed kernel but
// made the first step on it ~10 ms slower (V8 drops compiled code and caches with it); warmed
// again, the kernel keeps ~4.5 MB of that and its first step is as fast as without it
// (bench/notes/memory.md, "Idle after ready").
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WARM_STEPS } from '../providers/transports.ts'
import type { NeutralRequest } from '../providers/types.ts'

/** A Responses, Chat Completions, Anthropic Messages or Gemini stream of two deltas, with usage. */
function reply(url: string): string {
  const frame = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`
  if (url.endsWith('/messages')) return messagesReply()
  if (url.includes(':streamGenerateContent')) return geminiReply()
  if (url.endsWith('/chat/completions')) {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      frame({
        id: 'w',
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta, finish_reason: finish }],
      })
    return [
      chunk({ role: 'assistant', content: 'warm' }),
      chunk({ content: ' up' }),
      chunk({}, 'stop'),
      frame({ id: 'w', choices: [], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } }),
      'data: [DONE]\n\n',
    ].join('')
  }
  const delta = (d: string) =>
    frame({ type: 'response.output_text.delta', item_id: 'm', output_index: 0, content_index: 0, delta: d })
  return [
    frame({ type: 'response.created', response: { id: 'w' } }),
    frame({ type: 'response.output_item.added', output_index: 0, item: { id: 'm', type: 'message' } }),
    delta('warm'),
    delta(' up'),
    frame({
      type: 'response.completed',
      response: {
        id: 'w',
        status: 'completed',
        output: [],
        usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3 },
      },
    }),
  ].join('')
}

function messagesReply(): string {
  const event = (type: string, o: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...o })}\n\n`
  const delta = (text: string) =>
    event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } })
  return [
    event('message_start', {
      message: { id: 'w', type: 'message', role: 'assistant', content: [], usage: {} },
    }),
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    delta('warm'),
    delta(' up'),
    event('content_block_stop', { index: 0 }),
    event('message_delta', {
      delta: { stop_reason: 'end_turn' },
      usage: { input_tokens: 1, output_tokens: 2 },
    }),
    event('message_stop', {}),
  ].join('')
}

/** A Gemini stream as Google sends it: CRLF frames, STOP in a last signed empty text. */
function geminiReply(): string {
  const chunk = (parts: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }] })}\r\n\r\n`
  const usageMetadata = { promptTokenCount: 1, candidatesTokenCount: 2, totalTokenCount: 3 }
  return [
    chunk([{ text: 'warm' }]),
    chunk([{ text: ' up' }]),
    chunk([{ text: '', thoughtSignature: 'd2FybQ==' }], { finishReason: 'STOP', usageMetadata }),
  ].join('')
}

function answer(req: IncomingMessage, res: ServerResponse): void {
  req.resume()
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.end(reply(req.url ?? ''))
  })
}

/**
 * How long after `ready` a kernel waits to compact its heap and warm up again: a session
 * waiting for this process sends its step at once, and a process with a step to run skips both.
 */
export const COMPACT_AFTER_READY_MS = 50

const REQUEST: NeutralRequest = {
  model: 'warm',
  effort: null,
  system: 'warm',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'warm' }] }],
  tools: [],
  session_id: 'warm',
}

/**
 * Runs the warm-up steps; resolves with how many of them ended with `done` (never rejects:
 * a warm-up that fails leaves a kernel that is merely cold).
 */
export async function warmUp(timeoutMs = 5_000): Promise<number> {
  const server = createServer(answer)
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(0, '127.0.0.1', resolve)
    })
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const signal = AbortSignal.timeout(timeoutMs)
    let completed = 0
    for (const step of WARM_STEPS) {
      for await (const e of step(url, REQUEST, { signal, maxRetries: 0 })) {
        if (e.type === 'done') completed++
      }
    }
    return completed
  } catch {
    return 0
  } finally {
    // The keep-alive connections fetch pooled to the throwaway server end with it.
    server.closeAllConnections()
    server.close()
  }
}
