// Responses API stream → neutral events. Items are placed by `output_index` (the order the
// upstream opened them gives the neutral `index`); an event without `output_index` is
// placed by `item_id`; a missing `content_index` counts as 0. Function calls are assembled
// from `response.output_item.added` and argument deltas, whose text is replaced by the
// final one of `response.function_call_arguments.done` and then of
// `response.output_item.done` when they carry it; each is emitted once, from its
// `output_item.done` (or at the terminal event for a call whose item never closed: all of
// them at `response.completed`, only those with whole JSON arguments when the output was
// cut); a model's parallel wrapper call becomes the calls it wraps (tool-calls.ts). A
// finished reasoning item that carries `encrypted_content` is also emitted whole, for
// replay on the next step.

import { num, parseFrame, StreamDecoder } from '../shared/decode-stream.ts'
import { codeForStreamError, errorEvent, streamErrorMessage } from '../shared/errors.ts'
import type { SseFrame } from '../shared/sse.ts'
import { type CallDraft, completeCalls, toolCallEvent, unwrapParallel } from '../shared/tool-calls.ts'
import type { NeutralEvent, NeutralUsage, StopReason } from '../types.ts'

interface Call extends CallDraft {
  emitted: boolean
}

export class ResponsesDecoder extends StreamDecoder {
  #next = 0
  #last: number | null = null
  #byOutput = new Map<number, number>()
  #byItem = new Map<string, number>()
  #calls = new Map<number, Call>()
  #streamed = new Set<number>()
  #partKey = new Map<number, string>()
  #toolCalls = 0
  readonly #declared: ReadonlySet<string>

  /** `declared`: the names of the tools the request offered (to unwrap a parallel wrapper). */
  constructor(declared: Iterable<string> = []) {
    super()
    this.#declared = new Set(declared)
  }

  frame(frame: SseFrame): NeutralEvent[] {
    if (frame.data === '[DONE]') return []
    const parsed = parseFrame(frame)
    if (!parsed.ok) return this.finish([parsed.event])
    const ev = parsed.value
    switch (ev.type) {
      case 'response.output_item.added':
        return this.#itemAdded(this.#slot(ev, true), ev.item)
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        return this.#text(this.#slot(ev), ev.delta)
      case 'response.reasoning_summary_text.delta':
        return this.#reasoning(this.#slot(ev), `s${ev.summary_index ?? 0}`, ev.delta)
      case 'response.reasoning_text.delta':
        return this.#reasoning(this.#slot(ev), `t${ev.content_index ?? 0}`, ev.delta)
      case 'response.function_call_arguments.delta': {
        const call = this.#call(this.#slot(ev), ev.item_id)
        if (typeof ev.delta === 'string') call.args += ev.delta
        return []
      }
      case 'response.function_call_arguments.done': {
        const call = this.#call(this.#slot(ev), ev.item_id)
        if (typeof ev.arguments === 'string' && ev.arguments !== '') call.args = ev.arguments
        if (typeof ev.name === 'string' && ev.name !== '') call.name = ev.name
        return []
      }
      case 'response.output_item.done':
        return this.#itemDone(this.#slot(ev), ev.item)
      case 'response.completed':
      case 'response.done':
      case 'response.incomplete':
        return this.finish(this.#completed(ev.response))
      case 'response.failed': {
        const error = ev.response?.error
        const code = codeForStreamError(error?.code, error?.type)
        return this.finish([errorEvent(code, streamErrorMessage({ error }, 'the response failed'))])
      }
      case 'error': {
        const inner = typeof ev.error === 'object' && ev.error !== null ? ev.error : ev
        const code = codeForStreamError(inner.code, inner === ev ? undefined : inner.type)
        return this.finish([errorEvent(code, streamErrorMessage(inner, 'the upstream reported an error'))])
      }
      default:
        return []
    }
  }

  /** The neutral index of the item an event belongs to, opening a new one when first seen. */
  #slot(ev: Record<string, any>, opens = false): number {
    const itemId =
      typeof ev.item_id === 'string' ? ev.item_id : typeof ev.item?.id === 'string' ? ev.item.id : null
    const out = num(ev.output_index)
    let slot: number | undefined
    if (out !== null) {
      slot = this.#byOutput.get(out)
      if (slot === undefined) {
        slot = this.#next++
        this.#byOutput.set(out, slot)
      }
    } else if (itemId !== null) {
      slot = this.#byItem.get(itemId) ?? this.#next++
    } else {
      slot = !opens && this.#last !== null ? this.#last : this.#next++
    }
    if (itemId !== null && !this.#byItem.has(itemId)) this.#byItem.set(itemId, slot)
    this.#last = slot
    return slot
  }

  #itemAdded(slot: number, item: any): NeutralEvent[] {
    if (item?.type === 'function_call') {
      const call = this.#call(slot, item.id)
      if (typeof item.call_id === 'string') call.id = item.call_id
      if (typeof item.name === 'string') call.name = item.name
      if (typeof item.arguments === 'string' && item.arguments !== '') call.args = item.arguments
    }
    return []
  }

  #text(slot: number, delta: unknown): NeutralEvent[] {
    if (typeof delta !== 'string' || delta === '') return []
    this.#streamed.add(slot)
    return [{ type: 'text_delta', index: slot, delta }]
  }

  /** Reasoning deltas; parts of one item (summary parts, content parts) are joined by a blank line. */
  #reasoning(slot: number, key: string, delta: unknown): NeutralEvent[] {
    if (typeof delta !== 'string' || delta === '') return []
    const previous = this.#partKey.get(slot)
    this.#partKey.set(slot, key)
    this.#streamed.add(slot)
    const text = previous !== undefined && previous !== key ? `\n\n${delta}` : delta
    return [{ type: 'reasoning_delta', index: slot, delta: text }]
  }

  #call(slot: number, itemId: unknown): Call {
    let call = this.#calls.get(slot)
    if (!call) {
      call = { id: typeof itemId === 'string' ? itemId : '', name: '', args: '', emitted: false }
      this.#calls.set(slot, call)
    }
    return call
  }

  /** A finished item: the final function call, or the item's text when none was streamed. */
  #itemDone(slot: number, item: any): NeutralEvent[] {
    if (
      item?.type === 'reasoning' &&
      typeof item.encrypted_content === 'string' &&
      item.encrypted_content !== ''
    )
      return [...this.#itemText(slot, item), encryptedReasoning(slot, item)]
    return this.#itemText(slot, item)
  }

  #itemText(slot: number, item: any): NeutralEvent[] {
    if (item?.type === 'function_call') {
      const call = this.#call(slot, item.id)
      if (typeof item.call_id === 'string') call.id = item.call_id
      if (typeof item.name === 'string' && item.name !== '') call.name = item.name
      if (typeof item.arguments === 'string' && item.arguments !== '') call.args = item.arguments
      else if (item.arguments && typeof item.arguments === 'object')
        call.args = JSON.stringify(item.arguments)
      return this.#emitCall(slot, call)
    }
    if (this.#streamed.has(slot)) return []
    if (item?.type === 'message' && Array.isArray(item.content)) {
      const parts = item.content.map((p: any) => (p?.type === 'refusal' ? p.refusal : p?.text))
      return this.#text(slot, parts.filter((t: unknown) => typeof t === 'string').join(''))
    }
    if (item?.type === 'reasoning') {
      const parts = [...(item.summary ?? []), ...(item.content ?? [])].map((p: any) => p?.text)
      return this.#reasoning(slot, 'final', parts.filter((t: unknown) => typeof t === 'string').join('\n\n'))
    }
    return []
  }

  #emitCall(slot: number, call: Call): NeutralEvent[] {
    if (call.emitted) return []
    call.emitted = true
    const wrapped = unwrapParallel(call, this.#declared)
    if (!wrapped) {
      this.#toolCalls++
      return [toolCallEvent(slot, call)]
    }
    this.#toolCalls += wrapped.length
    return wrapped.map((inner, n) => toolCallEvent(n === 0 ? slot : this.#next++, inner))
  }

  /** `response.completed` / `.incomplete`: pending calls, usage, then `done`. */
  #completed(response: any): NeutralEvent[] {
    const events: NeutralEvent[] = []
    const output: any[] = Array.isArray(response?.output) ? response.output : []
    // A server that streamed no items but reports them in the final response.
    if (this.#next === 0) for (const item of output) events.push(...this.#itemDone(this.#next++, item))
    // Calls whose item never closed: whole ones only when the output was cut.
    const cut = response?.status === 'incomplete' || response?.incomplete_details?.reason !== undefined
    const open = [...this.#calls.entries()]
      .filter(([, call]) => !call.emitted)
      .sort(([a], [b]) => a - b)
      .map(([slot, call]) => ({ slot, call, id: call.id, name: call.name, args: call.args }))
    for (const { slot, call } of completeCalls(open, cut ? 'length' : 'stop')) {
      events.push(...this.#emitCall(slot, call))
    }
    const hasCall = this.#toolCalls > 0 || output.some((i) => i?.type === 'function_call')
    if (response?.usage && typeof response.usage === 'object') {
      events.push({ type: 'usage', usage: responsesUsage(response.usage) })
    }
    events.push({ type: 'done', stop_reason: stopReason(response, hasCall) })
    return events
  }
}

/** A reasoning item with `encrypted_content`, kept whole for replay. */
function encryptedReasoning(slot: number, item: any): NeutralEvent {
  const summary = (Array.isArray(item.summary) ? item.summary : [])
    .map((p: any) => p?.text)
    .filter((t: unknown): t is string => typeof t === 'string')
  return { type: 'encrypted_reasoning', index: slot, summary, encrypted_content: item.encrypted_content }
}

function stopReason(response: any, hasCall: boolean): StopReason {
  const reason = response?.incomplete_details?.reason
  if (reason === 'max_output_tokens') return 'length'
  if (reason === 'content_filter') return 'content_filter'
  if (hasCall) return 'tool_calls'
  return response?.status === 'incomplete' ? 'other' : 'stop'
}

export function responsesUsage(u: Record<string, any>): NeutralUsage {
  return {
    prompt_tokens: num(u.input_tokens),
    cached_prompt_tokens: num(u.input_tokens_details?.cached_tokens),
    cache_write_tokens: num(u.input_tokens_details?.cache_write_tokens),
    completion_tokens: num(u.output_tokens),
    total_tokens: num(u.total_tokens),
  }
}
