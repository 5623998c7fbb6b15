// Messages stream → neutral events. Each content block the model opens gets the next
// neutral index, so several text blocks of one reply stay in order (the run engine joins
// them without a separator) and each thinking block is a reasoning item of its own.
//
// The `type` inside the data is trusted over the frame's `event:` line (they agree on
// Anthropic's API; a proxy that relabels events still sends the same data). Frames of a
// type this decoder does not know are skipped, as the API's versioning policy asks.
//
// - `message_start`: usage so far (not final); `message_delta`: stop reason and the final
//   usage (any field it gives replaces the start's); `message_stop`: `usage`, `done`.
// - `text_delta` → `text_delta`; `thinking_delta` → `reasoning_delta`. A thinking block that
//   ends with a signature becomes `encrypted_reasoning {summary: [its text],
//   encrypted_content: signature}`; a `redacted_thinking` block `encrypted_reasoning
//   {summary: [], encrypted_content: data}`. The summary's length tells them apart when
//   they are replayed (encode.ts), and the engine keeps them with the model.
// - `tool_use`: `input_json_delta` pieces are joined per block index; the call is emitted
//   at the block's `content_block_stop` (no pieces, or only empty ones, is `{}`).
// - Server tool blocks (`server_tool_use`, `web_search_tool_result` and the other
//   `*_tool_result` blocks) ran on Anthropic's side: they are not hearth's calls, so they
//   are neither emitted nor run; only the text around them is.
// - `error` ends the step with the mapped code; text already streamed stays with the step.
// - A stream that ends without `message_stop` is `upstream_incomplete`.
import { decodeWith, num, parseFrame, StreamDecoder } from '../shared/decode-stream.ts'
import type { SseFrame } from '../shared/sse.ts'
import { type CallDraft, completeCalls, toolCallEvent } from '../shared/tool-calls.ts'
import type { NeutralEvent, NeutralUsage, StopReason } from '../types.ts'
import { streamErrorEvent } from './errors.ts'

type Block =
  | { kind: 'text'; slot: number }
  | { kind: 'thinking'; slot: number; text: string; signature: string }
  | { kind: 'redacted'; slot: number; data: string }
  | ({ kind: 'tool'; slot: number; streamed: boolean } & CallDraft)
  | { kind: 'ignored' }

/** The usage fields Anthropic reports, as last seen (`message_delta` over `message_start`). */
interface WireUsage {
  input: number | null
  cacheRead: number | null
  cacheWrite: number | null
  output: number | null
}

export class MessagesDecoder extends StreamDecoder {
  #next = 0
  readonly #blocks = new Map<number, Block>()
  #usage: WireUsage = { input: null, cacheRead: null, cacheWrite: null, output: null }
  #sawUsage = false
  #stop: StopReason | null = null
  #sawCall = false

  frame(frame: SseFrame): NeutralEvent[] {
    const parsed = parseFrame(frame)
    if (!parsed.ok) return this.finish([parsed.event])
    const data = parsed.value
    switch (data.type) {
      case 'message_start':
        this.#readUsage(data.message?.usage)
        return []
      case 'content_block_start':
        return this.#open(data.index, data.content_block)
      case 'content_block_delta':
        return this.#delta(data.index, data.delta)
      case 'content_block_stop':
        return this.#close(data.index)
      case 'message_delta':
        if (typeof data.delta?.stop_reason === 'string') this.#stop = mapStopReason(data.delta.stop_reason)
        this.#readUsage(data.usage)
        return []
      case 'message_stop':
        return this.finish(this.#terminal())
      case 'error':
        return this.finish([streamErrorEvent(data)])
      default:
        // `ping` and event types added after this decoder was written.
        return []
    }
  }

  #open(index: unknown, block: Record<string, any> | undefined): NeutralEvent[] {
    if (typeof index !== 'number' || !block || typeof block !== 'object') return []
    const events: NeutralEvent[] = []
    switch (block.type) {
      case 'text': {
        const slot = this.#next++
        this.#blocks.set(index, { kind: 'text', slot })
        // A block may open with text already in it (a proxy that does not stream deltas).
        if (typeof block.text === 'string' && block.text !== '')
          events.push({ type: 'text_delta', index: slot, delta: block.text })
        return events
      }
      case 'thinking': {
        const slot = this.#next++
        const text = typeof block.thinking === 'string' ? block.thinking : ''
        const signature = typeof block.signature === 'string' ? block.signature : ''
        this.#blocks.set(index, { kind: 'thinking', slot, text, signature })
        if (text !== '') events.push({ type: 'reasoning_delta', index: slot, delta: text })
        return events
      }
      case 'redacted_thinking': {
        const data = typeof block.data === 'string' ? block.data : ''
        this.#blocks.set(index, { kind: 'redacted', slot: this.#next++, data })
        return events
      }
      case 'tool_use': {
        // `input` is `{}` at the start of a streamed call; a whole input (a proxy that
        // does not stream it) is kept unless pieces follow.
        const whole = block.input && typeof block.input === 'object' && Object.keys(block.input).length > 0
        this.#blocks.set(index, {
          kind: 'tool',
          slot: this.#next++,
          id: typeof block.id === 'string' ? block.id : '',
          name: typeof block.name === 'string' ? block.name : '',
          args: whole ? JSON.stringify(block.input) : '',
          streamed: false,
        })
        return events
      }
      default:
        // server_tool_use, web_search_tool_result and other server-side blocks.
        this.#blocks.set(index, { kind: 'ignored' })
        return events
    }
  }

  #delta(index: unknown, delta: Record<string, any> | undefined): NeutralEvent[] {
    const block = typeof index === 'number' ? this.#blocks.get(index) : undefined
    if (!block || !delta || typeof delta !== 'object') return []
    if (delta.type === 'text_delta' && block.kind === 'text' && typeof delta.text === 'string') {
      return delta.text === '' ? [] : [{ type: 'text_delta', index: block.slot, delta: delta.text }]
    }
    if (delta.type === 'thinking_delta' && block.kind === 'thinking' && typeof delta.thinking === 'string') {
      block.text += delta.thinking
      return delta.thinking === ''
        ? []
        : [{ type: 'reasoning_delta', index: block.slot, delta: delta.thinking }]
    }
    if (
      delta.type === 'signature_delta' &&
      block.kind === 'thinking' &&
      typeof delta.signature === 'string'
    ) {
      block.signature += delta.signature
      return []
    }
    if (
      delta.type === 'input_json_delta' &&
      block.kind === 'tool' &&
      typeof delta.partial_json === 'string'
    ) {
      if (delta.partial_json === '') return []
      if (!block.streamed) block.args = ''
      block.streamed = true
      block.args += delta.partial_json
    }
    return []
  }

  #close(index: unknown): NeutralEvent[] {
    const block = typeof index === 'number' ? this.#blocks.get(index) : undefined
    if (!block || typeof index !== 'number') return []
    this.#blocks.delete(index)
    return this.#emit(block)
  }

  /** The events of a finished block: a call, or the reasoning to keep for replay. */
  #emit(block: Block): NeutralEvent[] {
    if (block.kind === 'tool') {
      this.#sawCall = true
      return [toolCallEvent(block.slot, block)]
    }
    if (block.kind === 'thinking' && block.signature !== '') {
      return [
        {
          type: 'encrypted_reasoning',
          index: block.slot,
          summary: [block.text],
          encrypted_content: block.signature,
        },
      ]
    }
    if (block.kind === 'redacted' && block.data !== '') {
      return [{ type: 'encrypted_reasoning', index: block.slot, summary: [], encrypted_content: block.data }]
    }
    return []
  }

  /**
   * At `message_stop`: blocks never closed (a cut stream) — calls only when their
   * arguments are whole for a `length` stop — then usage and `done`.
   */
  #terminal(): NeutralEvent[] {
    const stop = this.#stop ?? 'stop'
    const open = [...this.#blocks.values()]
    this.#blocks.clear()
    const calls = completeCalls(
      open.filter((b): b is Extract<Block, { kind: 'tool' }> => b.kind === 'tool'),
      stop,
    )
    const events: NeutralEvent[] = []
    for (const block of open)
      if (block.kind !== 'tool' || calls.includes(block)) events.push(...this.#emit(block))
    if (this.#sawUsage) events.push({ type: 'usage', usage: neutralUsage(this.#usage) })
    events.push({ type: 'done', stop_reason: stop === 'stop' && this.#sawCall ? 'tool_calls' : stop })
    return events
  }

  #readUsage(u: Record<string, unknown> | undefined | null): void {
    if (!u || typeof u !== 'object') return
    this.#sawUsage = true
    const pick = (key: string, old: number | null) => (key in u && num(u[key]) !== null ? num(u[key]) : old)
    this.#usage = {
      input: pick('input_tokens', this.#usage.input),
      cacheRead: pick('cache_read_input_tokens', this.#usage.cacheRead),
      cacheWrite: pick('cache_creation_input_tokens', this.#usage.cacheWrite),
      output: pick('output_tokens', this.#usage.output),
    }
  }
}

/**
 * One meaning across providers: `prompt_tokens` counts every prompt token (Anthropic's
 * `input_tokens` leaves out cache reads and writes, so they are added), the cached and
 * written parts are reported beside it, `completion_tokens` is every generated token
 * (`output_tokens` includes thinking).
 */
export function neutralUsage(u: WireUsage): NeutralUsage {
  const prompt = u.input === null ? null : u.input + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0)
  return {
    prompt_tokens: prompt,
    cached_prompt_tokens: u.cacheRead,
    cache_write_tokens: u.cacheWrite,
    completion_tokens: u.output,
    total_tokens: prompt !== null && u.output !== null ? prompt + u.output : null,
  }
}

export function mapStopReason(reason: string): StopReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop'
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length'
    case 'tool_use':
      return 'tool_calls'
    case 'refusal':
      return 'content_filter'
    default:
      // pause_turn (a server tool loop paused) and reasons added later.
      return 'other'
  }
}

/** Decodes a Messages event stream; always ends with exactly one `done` or `error`. */
/**
 * The Messages stream → neutral events. `toolName` renames each called tool (a provider
 * whose wire names differ from the names it offered); done inside the decoder, since
 * another async layer over every event costs more than the decoding itself.
 */
export function decodeMessages(
  bytes: AsyncIterable<Uint8Array>,
  toolName?: (wire: string) => string,
): AsyncGenerator<NeutralEvent> {
  const machine = new MessagesDecoder()
  if (!toolName) return decodeWith(bytes, machine)
  return decodeWith(bytes, {
    get finished() {
      return machine.finished
    },
    frame: (frame) => renamed(machine.frame(frame), toolName),
    end: () => renamed(machine.end(), toolName),
  })
}

function renamed(events: NeutralEvent[], toolName: (wire: string) => string): NeutralEvent[] {
  return events.map((e) => (e.type === 'tool_call' ? { ...e, name: toolName(e.name) } : e))
}
