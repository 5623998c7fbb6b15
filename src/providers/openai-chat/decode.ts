// Chat Completions stream → neutral events. Only choice 0 is read. Reasoning
// (`reasoning_content`, `reasoning`, `reasoning_text`, thinking parts of a structured
// `content`), text (a string `content` or its text parts) and each tool call get a neutral
// index in the order they first appear. The usage chunk (`choices: []`) is emitted just
// before `done`. `[DONE]` ends the stream; a clean end after a `finish_reason` counts as
// done too.
//
// Tool calls (`delta.tool_calls[]`) are assembled by their `index` (the position in the
// array when a server leaves it out): the id and name come from the first piece that has
// them, arguments are concatenated. A piece whose id differs from the call its index
// names starts a new call (servers that send every whole call at index 0). Calls are
// emitted whole, in order, when the choice finishes; a finish that cut the output
// (`length`, `content_filter`) drops calls whose arguments are not a complete JSON
// object. A `stop` finish after calls is reported as `tool_calls`, which some servers
// fail to say. A model's parallel wrapper call becomes the calls it wraps (tool-calls.ts).

import { num, parseFrame, StreamDecoder } from '../shared/decode-stream.ts'
import { codeForStreamError, errorEvent, streamErrorMessage } from '../shared/errors.ts'
import type { SseFrame } from '../shared/sse.ts'
import { type CallDraft, completeCalls, toolCallEvent, unwrapParallel } from '../shared/tool-calls.ts'
import type { NeutralEvent, NeutralUsage, StopReason } from '../types.ts'

interface Call extends CallDraft {
  slot: number
}

export class ChatDecoder extends StreamDecoder {
  #next = 0
  #slots = new Map<string, number>()
  /** Wire index → the call it currently names. */
  #open = new Map<number, Call>()
  /** Calls not yet emitted, in the order they were opened. */
  #calls: Call[] = []
  #stop: StopReason | null = null
  #usage: NeutralUsage | null = null
  #sawCall = false
  readonly #declared: ReadonlySet<string>

  /** `declared`: the names of the tools the request offered (to unwrap a parallel wrapper). */
  constructor(declared: Iterable<string> = []) {
    super()
    this.#declared = new Set(declared)
  }

  frame(frame: SseFrame): NeutralEvent[] {
    if (frame.data.trim() === '[DONE]') return this.finish(this.#terminal(this.#stop))
    const parsed = parseFrame(frame)
    if (!parsed.ok) return this.finish([parsed.event])
    const chunk = parsed.value
    if (chunk.error && typeof chunk.error === 'object') {
      const code = codeForStreamError(chunk.error.code, chunk.error.type)
      return this.finish([errorEvent(code, streamErrorMessage(chunk, 'the upstream reported an error'))])
    }
    if (chunk.usage && typeof chunk.usage === 'object') this.#usage = chatUsage(chunk.usage)
    const choices: any[] = Array.isArray(chunk.choices) ? chunk.choices : []
    const choice = choices.find((c) => c?.index === 0) ?? choices[0]
    if (!choice || typeof choice !== 'object') return []
    const events: NeutralEvent[] = []
    const delta = choice.delta ?? choice.message ?? {}
    const content = contentText(delta.content)
    const reasoning = reasoningText(delta) + content.reasoning
    if (reasoning !== '') {
      events.push({ type: 'reasoning_delta', index: this.#slot('reasoning'), delta: reasoning })
    }
    if (content.text !== '') {
      events.push({ type: 'text_delta', index: this.#slot('text'), delta: content.text })
    }
    if (Array.isArray(delta.tool_calls)) {
      delta.tool_calls.forEach((tc: any, position: number) => {
        this.#toolFragment(tc, position)
      })
    }
    if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') {
      this.#stop = mapFinish(choice.finish_reason)
      events.push(...this.#flushCalls(this.#stop))
      if (this.#stop === 'stop' && this.#sawCall) this.#stop = 'tool_calls'
    }
    return events
  }

  /** A clean end after a `finish_reason` counts as the end of the answer. */
  protected override endOfInput(): NeutralEvent[] {
    return this.#stop !== null ? this.#terminal(this.#stop) : super.endOfInput()
  }

  /** Calls still open, usage, `done`; without a finish_reason, calls imply `tool_calls`. */
  #terminal(stop: StopReason | null): NeutralEvent[] {
    const events = this.#flushCalls(stop ?? 'stop')
    if (this.#usage) events.push({ type: 'usage', usage: this.#usage })
    events.push({ type: 'done', stop_reason: stop ?? (this.#sawCall ? 'tool_calls' : 'stop') })
    return events
  }

  #slot(key: string): number {
    let slot = this.#slots.get(key)
    if (slot === undefined) {
      slot = this.#next++
      this.#slots.set(key, slot)
    }
    return slot
  }

  #toolFragment(tc: any, position: number): void {
    if (!tc || typeof tc !== 'object') return
    const key = num(tc.index) ?? position
    const id = typeof tc.id === 'string' && tc.id !== '' ? tc.id : null
    let call = this.#open.get(key)
    if (!call || (id !== null && call.id !== '' && call.id !== id)) {
      call = { slot: this.#next++, id: '', name: '', args: '' }
      this.#open.set(key, call)
      this.#calls.push(call)
    }
    if (id !== null && call.id === '') call.id = id
    const fn = tc.function ?? {}
    if (typeof fn.name === 'string' && fn.name !== '' && call.name === '') call.name = fn.name
    if (typeof fn.arguments === 'string') call.args += fn.arguments
    else if (fn.arguments && typeof fn.arguments === 'object') call.args = JSON.stringify(fn.arguments)
  }

  #flushCalls(stop: StopReason): NeutralEvent[] {
    const calls = completeCalls(this.#calls, stop)
    this.#calls = []
    this.#open.clear()
    if (calls.length > 0) this.#sawCall = true
    return calls.flatMap((c) => {
      const wrapped = unwrapParallel(c, this.#declared)
      if (!wrapped) return [toolCallEvent(c.slot, c)]
      return wrapped.map((inner, n) => toolCallEvent(n === 0 ? c.slot : this.#next++, inner))
    })
  }
}

/**
 * A message's or delta's `content`: a string, or an array of typed parts as Mistral's
 * reasoning models send it (`{type: "text", text}` and `{type: "thinking", thinking:
 * [{type: "text", text}]}`). Text parts are answer text, thinking parts reasoning; other
 * part types (references, images) carry no text to show.
 */
export function contentText(content: unknown): { text: string; reasoning: string } {
  if (typeof content === 'string') return { text: content, reasoning: '' }
  const out = { text: '', reasoning: '' }
  if (!Array.isArray(content)) return out
  for (const part of content) {
    if (part?.type === 'text' && typeof part.text === 'string') out.text += part.text
    else if (part?.type === 'thinking') out.reasoning += thinkingText(part.thinking)
  }
  return out
}

/** A thinking part's `thinking`: a string, or text parts. */
function thinkingText(thinking: unknown): string {
  if (typeof thinking === 'string') return thinking
  if (!Array.isArray(thinking)) return ''
  return thinking.map((p) => (p?.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('')
}

function reasoningText(delta: Record<string, any>): string {
  for (const key of ['reasoning_content', 'reasoning', 'reasoning_text']) {
    const v = delta[key]
    if (typeof v === 'string' && v !== '') return v
    if (v && typeof v === 'object') {
      const t = v.text ?? v.content
      if (typeof t === 'string' && t !== '') return t
    }
  }
  return ''
}

function mapFinish(reason: string): StopReason {
  switch (reason) {
    case 'stop':
      return 'stop'
    case 'length':
      return 'length'
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls'
    case 'content_filter':
      return 'content_filter'
    default:
      return 'other'
  }
}

export function chatUsage(u: Record<string, any>): NeutralUsage {
  return {
    prompt_tokens: num(u.prompt_tokens),
    cached_prompt_tokens: num(u.prompt_tokens_details?.cached_tokens),
    cache_write_tokens: null,
    completion_tokens: num(u.completion_tokens),
    total_tokens: num(u.total_tokens),
  }
}
