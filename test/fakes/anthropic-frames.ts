// Wire frames of the fake upstream's Anthropic Messages route: what one script streams as
// Messages SSE, shaped like the recorded streams in
// test/providers/anthropic-messages/fixtures/ (event: + data: blocks, a `ping` after the
// first block opens, a thinking block ending in a `signature_delta`, each tool_use block's
// first `input_json_delta` empty, `message_delta` carrying the final usage), and the
// Messages API's error body and tool pairing check.
import { callsOf, DEFAULT_SCRIPT, type FakeScript, type Frame } from './openai-frames.ts'

/** The signature the fake puts on a thinking block (replayed ones are checked against it). */
export const FAKE_SIGNATURE = 'RmFrZVNpZ25hdHVyZQ=='

function event(type: string, fields: Record<string, unknown>, delta = false): Frame {
  return { text: `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`, delta }
}

function stopReasonOf(script: FakeScript): string {
  if (script.finish === 'length') return 'max_tokens'
  return callsOf(script).length > 0 ? 'tool_use' : 'end_turn'
}

/** The Messages stream for a script: thinking block, text block, tool_use blocks. */
export function messagesFrames(script: FakeScript, model = 'claude-fake'): Frame[] {
  const u = script.usage === undefined ? DEFAULT_SCRIPT.usage : script.usage
  // Anthropic's input_tokens exclude cache reads; the script's `input` counts them.
  const cached = u?.cached ?? 0
  const startUsage = {
    input_tokens: u ? u.input - cached : 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
    output_tokens: 1,
  }
  const message = {
    id: 'msg_fake',
    type: 'message',
    role: 'assistant',
    model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: startUsage,
  }
  const frames: Frame[] = [event('message_start', { message })]
  let index = 0
  const block = (content_block: Record<string, unknown>, deltas: Record<string, unknown>[]) => {
    const at = index++
    frames.push(event('content_block_start', { index: at, content_block }))
    if (at === 0) frames.push(event('ping', {}))
    for (const d of deltas) frames.push(event('content_block_delta', { index: at, delta: d }, true))
    frames.push(event('content_block_stop', { index: at }))
  }
  if (script.reasoning?.length) {
    const thinking = script.reasoning.map((t) => ({ type: 'thinking_delta', thinking: t }))
    block({ type: 'thinking', thinking: '', signature: '' }, thinking)
    // The signature arrives as one more delta just before the block stops.
    frames.splice(frames.length - 1, 0, event('content_block_delta', signatureDelta(index - 1)))
  }
  if (script.text?.length) {
    block(
      { type: 'text', text: '' },
      script.text.map((t) => ({ type: 'text_delta', text: t })),
    )
  }
  for (const call of callsOf(script)) {
    const pieces = ['', ...call.arguments].map((p) => ({ type: 'input_json_delta', partial_json: p }))
    block({ type: 'tool_use', id: call.id, name: call.name, input: {} }, pieces)
  }
  const usage = u ? { ...startUsage, output_tokens: u.output } : { output_tokens: 0 }
  frames.push(
    event('message_delta', { delta: { stop_reason: stopReasonOf(script), stop_sequence: null }, usage }),
  )
  frames.push(event('message_stop', {}))
  return frames
}

function signatureDelta(index: number): Record<string, unknown> {
  return { index, delta: { type: 'signature_delta', signature: FAKE_SIGNATURE } }
}

/** The error type the Messages API names for an HTTP status. */
export function messagesErrorType(status: number): string {
  if (status === 401) return 'authentication_error'
  if (status === 403) return 'permission_error'
  if (status === 404) return 'not_found_error'
  if (status === 413) return 'request_too_large'
  if (status === 429) return 'rate_limit_error'
  if (status === 529) return 'overloaded_error'
  if (status >= 500) return 'api_error'
  return 'invalid_request_error'
}

/** The Messages API's error body. */
export function messagesErrorBody(status: number, message: string): Record<string, unknown> {
  return { type: 'error', error: { type: messagesErrorType(status), message }, request_id: 'req_fake' }
}

/**
 * The Messages API's pairing rule: each assistant `tool_use` is answered by a
 * `tool_result` block in the user message right after it (words as the API gives them).
 */
/**
 * What Anthropic's Messages validation refuses in a request's tools and tool results
 * (400 invalid_request_error, worded as the API words it): an `input_schema` that is not an
 * object schema (`type: "object"`; the published `Tool.InputSchema`), one with `oneOf`,
 * `allOf` or `anyOf` at its top (the API's message, as MCP users have reported it), and a
 * `tool_result` whose `is_error` is not a boolean.
 */
export function messagesRequestError(body: any): string | null {
  for (const [i, tool] of (Array.isArray(body?.tools) ? body.tools : []).entries()) {
    const schema = tool?.input_schema
    if (typeof schema !== 'object' || schema === null || schema.type !== 'object')
      return `tools.${i}.custom.input_schema.type: Input should be 'object'`
    if (['oneOf', 'allOf', 'anyOf'].some((k) => k in schema))
      return `tools.${i}.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level`
  }
  for (const [i, m] of (Array.isArray(body?.messages) ? body.messages : []).entries()) {
    for (const [j, b] of (Array.isArray(m?.content) ? m.content : []).entries()) {
      if (b?.type === 'tool_result' && 'is_error' in b && typeof b.is_error !== 'boolean')
        return `messages.${i}.content.${j}.tool_result.is_error: Input should be a valid boolean`
    }
  }
  return null
}

export function messagesPairingError(body: any): string | null {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : []
  for (const [i, m] of messages.entries()) {
    const blocks: any[] = Array.isArray(m?.content) ? m.content : []
    const uses = m?.role === 'assistant' ? blocks.filter((b) => b?.type === 'tool_use').map((b) => b.id) : []
    const next: any[] = Array.isArray(messages[i + 1]?.content) ? messages[i + 1].content : []
    const answered = new Set(next.filter((b) => b?.type === 'tool_result').map((b) => b.tool_use_id))
    const missing = uses.filter((id) => !answered.has(id))
    if (missing.length > 0) {
      return `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`
    }
    if (m?.role === 'user') {
      const previous: any[] = Array.isArray(messages[i - 1]?.content) ? messages[i - 1].content : []
      const called = new Set(previous.filter((b) => b?.type === 'tool_use').map((b) => b.id))
      const stray = blocks.find((b) => b?.type === 'tool_result' && !called.has(b.tool_use_id))
      if (stray) {
        return `messages.${i}.content.0: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${stray.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`
      }
    }
  }
  return null
}

/**
 * The Message the API answers without `stream: true`: the script's stream accumulated
 * (blocks complete, tool inputs parsed, the final stop reason and usage).
 */
export function wholeMessage(script: FakeScript, model = 'claude-fake'): Record<string, any> {
  let message: Record<string, any> = {}
  const json = new Map<number, string>()
  for (const frame of messagesFrames(script, model)) {
    const data = JSON.parse(frame.text.slice(frame.text.indexOf('data: ') + 6))
    if (data.type === 'message_start') message = { ...data.message, content: [] }
    else if (data.type === 'content_block_start') message.content[data.index] = { ...data.content_block }
    else if (data.type === 'content_block_delta') {
      const block = message.content[data.index]
      const d = data.delta
      if (d.type === 'text_delta') block.text += d.text
      else if (d.type === 'thinking_delta') block.thinking += d.thinking
      else if (d.type === 'signature_delta') block.signature = d.signature
      else if (d.type === 'input_json_delta')
        json.set(data.index, (json.get(data.index) ?? '') + d.partial_json)
    } else if (data.type === 'content_block_stop' && json.has(data.index))
      message.content[data.index].input = JSON.parse(json.get(data.index) || '{}')
    else if (data.type === 'message_delta') {
      message.stop_reason = data.delta.stop_reason
      message.usage = { ...message.usage, ...data.usage }
    }
  }
  return message
}
