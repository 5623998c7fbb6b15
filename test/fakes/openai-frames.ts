// Wire frames of the fake OpenAI-compatible upstream: what one script streams in the
// Responses format and in the Chat Completions format.
import type { RecordedRequest } from './http-record.ts'

export interface FakeToolCall {
  id: string
  name: string
  /** Argument fragments, streamed one per delta. */
  arguments: string[]
}

export interface FakeUsage {
  input: number
  output: number
  cached?: number
}

export type FakeMode =
  | 'normal'
  | 'stall-before-headers' // accept the request, never answer
  | 'stall-after-headers' // 200 and headers, then nothing
  | 'stall' // stream `after` deltas, then nothing
  | 'drop' // stream `after` deltas, then destroy the socket
  | 'malformed' // stream `after` deltas, then a frame that is not JSON, then the rest

export interface FakeScript {
  /** An error status (401, 429, 500…) answered with an OpenAI-style JSON error body. */
  status?: number
  errorMessage?: string
  /** Value of the Retry-After header of an error answer. */
  retryAfter?: string
  text?: string[]
  reasoning?: string[]
  /** One function call after the text (kept for older tests; `toolCalls` takes several). */
  toolCall?: FakeToolCall
  /**
   * Function calls after the text, in this order (parallel calls). Chat Completions
   * interleaves their argument pieces by `index`, as servers streaming parallel calls do.
   */
  toolCalls?: FakeToolCall[]
  /** Pause before each delta, in ms. */
  delayMs?: number
  /** Pause before the status line, in ms. */
  firstByteDelayMs?: number
  usage?: FakeUsage | null
  /** `length` ends a Responses stream with response.incomplete (max_output_tokens). */
  finish?: 'stop' | 'length'
  mode?: FakeMode
  /** An event stream played as it is (a recorded fixture) instead of the scripted frames. */
  raw?: string
  /**
   * Messages: answer the whole Message as a 200 `application/json` body (what the API
   * answers without `stream: true`, or a proxy that buffers), not a stream.
   */
  unstreamed?: boolean
  /** Deltas sent before a stall, drop or malformed frame (default 1). */
  after?: number
}

/** What answers one request: a script, or a function of the recorded request giving one. */
export type FakeReply = FakeScript | ((request: RecordedRequest) => FakeScript)

export function scriptFor<S extends FakeScript>(
  reply: S | ((request: RecordedRequest) => S),
  request: RecordedRequest,
): S {
  return typeof reply === 'function' ? reply(request) : reply
}

export const DEFAULT_SCRIPT: FakeScript = {
  text: ['Hello', ', ', 'world', '!'],
  usage: { input: 12, output: 4, cached: 2 },
}

/** The calls of a script: `toolCall`, then `toolCalls`. */
export function callsOf(script: FakeScript): FakeToolCall[] {
  return [...(script.toolCall ? [script.toolCall] : []), ...(script.toolCalls ?? [])]
}

export interface Frame {
  text: string
  delta: boolean
}

function sse(obj: unknown, event?: string): Frame {
  return { text: `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(obj)}\n\n`, delta: false }
}

function delta(frame: Frame): Frame {
  return { ...frame, delta: true }
}

/**
 * The Responses stream for a script: reasoning item, message item, function call item.
 * With `encrypted`, the finished reasoning item carries it as `encrypted_content` (what a
 * request with `include: ["reasoning.encrypted_content"]` gets).
 */
export function responsesFrames(script: FakeScript, encrypted?: string): Frame[] {
  let seq = 0
  const ev = (type: string, fields: Record<string, unknown>) =>
    sse({ type, sequence_number: seq++, ...fields }, type)
  const frames: Frame[] = []
  const output: unknown[] = []
  const response = { id: 'resp_fake', object: 'response', status: 'in_progress', output: [] }
  frames.push(ev('response.created', { response }))
  let index = 0
  if (script.reasoning?.length) {
    const item = { id: 'rs_fake', type: 'reasoning', summary: [] as unknown[] }
    const at = index++
    frames.push(ev('response.output_item.added', { output_index: at, item }))
    for (const d of script.reasoning) {
      frames.push(
        delta(
          ev('response.reasoning_summary_text.delta', {
            item_id: item.id,
            output_index: at,
            summary_index: 0,
            delta: d,
          }),
        ),
      )
    }
    const done = {
      ...item,
      summary: [{ type: 'summary_text', text: script.reasoning.join('') }],
      ...(encrypted === undefined ? {} : { encrypted_content: encrypted }),
    }
    frames.push(ev('response.output_item.done', { output_index: at, item: done }))
    output.push(done)
  }
  if (script.text?.length) {
    const at = index++
    const item = { id: 'msg_fake', type: 'message', role: 'assistant', status: 'in_progress', content: [] }
    frames.push(ev('response.output_item.added', { output_index: at, item }))
    frames.push(
      ev('response.content_part.added', {
        item_id: item.id,
        output_index: at,
        content_index: 0,
        part: { type: 'output_text', text: '' },
      }),
    )
    for (const d of script.text) {
      frames.push(
        delta(
          ev('response.output_text.delta', {
            item_id: item.id,
            output_index: at,
            content_index: 0,
            delta: d,
          }),
        ),
      )
    }
    const text = script.text.join('')
    frames.push(
      ev('response.output_text.done', { item_id: item.id, output_index: at, content_index: 0, text }),
    )
    const done = { ...item, status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }
    frames.push(ev('response.output_item.done', { output_index: at, item: done }))
    output.push(done)
  }
  for (const [n, call] of callsOf(script).entries()) {
    const at = index++
    const { id, name, arguments: fragments } = call
    const item = {
      id: `fc_fake_${n}`,
      type: 'function_call',
      status: 'in_progress',
      call_id: id,
      name,
      arguments: '',
    }
    frames.push(ev('response.output_item.added', { output_index: at, item }))
    for (const d of fragments) {
      frames.push(
        delta(ev('response.function_call_arguments.delta', { item_id: item.id, output_index: at, delta: d })),
      )
    }
    const args = fragments.join('')
    frames.push(
      ev('response.function_call_arguments.done', { item_id: item.id, output_index: at, arguments: args }),
    )
    const done = { ...item, status: 'completed', arguments: args }
    frames.push(ev('response.output_item.done', { output_index: at, item: done }))
    output.push(done)
  }
  const u = script.usage === undefined ? DEFAULT_SCRIPT.usage : script.usage
  const usage = u
    ? {
        input_tokens: u.input,
        input_tokens_details: { cached_tokens: u.cached ?? 0 },
        output_tokens: u.output,
        total_tokens: u.input + u.output,
      }
    : null
  if (script.finish === 'length') {
    const final = {
      ...response,
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output,
      usage,
    }
    frames.push(ev('response.incomplete', { response: final }))
  } else {
    frames.push(ev('response.completed', { response: { ...response, status: 'completed', output, usage } }))
  }
  return frames
}

/** The Chat Completions stream for a script: role chunk, deltas, finish chunk, usage chunk, [DONE]. */
export function chatFrames(script: FakeScript, model = 'fake-model'): Frame[] {
  const chunk = (d: Record<string, unknown>, finish: string | null = null) =>
    sse({
      id: 'chatcmpl-fake',
      object: 'chat.completion.chunk',
      created: 0,
      model,
      choices: [{ index: 0, delta: d, finish_reason: finish }],
    })
  const frames: Frame[] = [chunk({ role: 'assistant', content: '' })]
  for (const d of script.reasoning ?? []) frames.push(delta(chunk({ reasoning_content: d })))
  for (const d of script.text ?? []) frames.push(delta(chunk({ content: d })))
  const calls = callsOf(script)
  // Each call opens with its id and name (and empty arguments), then the argument pieces
  // of all calls follow round-robin, keyed by index.
  calls.forEach(({ id, name }, index) => {
    frames.push(chunk({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] }))
  })
  const longest = Math.max(0, ...calls.map((c) => c.arguments.length))
  for (let piece = 0; piece < longest; piece++) {
    calls.forEach((call, index) => {
      const d = call.arguments[piece]
      if (d !== undefined) frames.push(delta(chunk({ tool_calls: [{ index, function: { arguments: d } }] })))
    })
  }
  const finish = script.finish === 'length' ? 'length' : calls.length > 0 ? 'tool_calls' : 'stop'
  frames.push(chunk({}, finish))
  const u = script.usage === undefined ? DEFAULT_SCRIPT.usage : script.usage
  if (u) {
    const usage = {
      prompt_tokens: u.input,
      completion_tokens: u.output,
      total_tokens: u.input + u.output,
      prompt_tokens_details: { cached_tokens: u.cached ?? 0 },
    }
    frames.push(
      sse({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 0, model, choices: [], usage }),
    )
  }
  frames.push({ text: 'data: [DONE]\n\n', delta: false })
  return frames
}
