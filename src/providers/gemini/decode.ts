// Gemini stream → neutral events. `streamGenerateContent?alt=sse` sends one
// GenerateContentResponse per SSE event: `{candidates: [{content: {role, parts}, finishReason?}],
// usageMetadata, modelVersion, responseId}`. Real streams end events with `\r\n\r\n`, may
// pad the JSON with spaces, and put STOP in a last chunk whose only part is an empty text
// carrying a signature; the framing is the shared sse.ts.
//
// - Candidate 0 only (one candidate is asked for). Its parts, in order:
//   `{text}` → `text_delta`, `{text, thought: true}` → `reasoning_delta`; consecutive parts
//   of one kind continue one item, a change of kind opens the next index. Empty text
//   makes no delta.
// - `{functionCall: {name, args?, id?}}`: each call is whole in its part and gets its own
//   index; `args` missing is `{}`; a call without an id gets one (tool-calls.ts). Calls are
//   held until the candidate finishes: only a normal `STOP` publishes them (`done` then
//   says `tool_calls`); a limited or filtered answer never runs a call.
// - `thoughtSignature` may ride on any part; the last non-empty one of each item is kept
//   (`signatures`) for a wrapper that replays them, and the last of the whole answer.
// - `finishReason` ends the step: `usage` (when reported), then `done` for STOP and
//   MAX_TOKENS, else an `error` (finish.ts: a filtered answer, a malformed call, …), never
//   success. A stream that ends without one is `upstream_incomplete`.
//   `promptFeedback.blockReason` (the prompt was blocked) ends it `upstream_blocked`.
// - A chunk carrying `error` ends the step with the mapped code (errors.ts).
// - A field that is present but of the wrong type (text not a string, parts not a list, a
//   call without a name, counts that are not numbers…) fails the step as
//   `upstream_malformed`; unknown fields and part kinds (inline data, code execution) are
//   skipped.
import { decodeWith, parseFrame, StreamDecoder } from '../shared/decode-stream.ts'
import type { SseFrame } from '../shared/sse.ts'
import { type CallDraft, toolCallEvent } from '../shared/tool-calls.ts'
import type { NeutralEvent, NeutralUsage } from '../types.ts'
import { googleError, streamErrorEvent } from './errors.ts'
import { blockedPrompt, type FinishOutcome, finishOutcome } from './finish.ts'

type Json = Record<string, unknown>

interface Call extends CallDraft {
  slot: number
}

/** The usage counts as last reported (each chunk's usage is cumulative). */
export interface GeminiUsage {
  prompt: number | null
  cached: number | null
  candidates: number | null
  thoughts: number | null
  total: number | null
}

export interface GeminiDecoderOptions {
  /** Takes the GenerateContentResponse out of a chunk (the Code Assist envelope's `response`). */
  unwrap?: (chunk: Json) => unknown
}

/** A present field of the wrong type. */
class Malformed extends Error {}

export class GeminiDecoder extends StreamDecoder {
  /** The last non-empty thoughtSignature of each item, by neutral index. */
  readonly signatures = new Map<number, string>()
  /** The last non-empty thoughtSignature of the answer. */
  lastSignature: string | null = null
  readonly #unwrap: GeminiDecoderOptions['unwrap']
  #next = 0
  #open: { kind: 'text' | 'thought'; slot: number } | null = null
  readonly #calls: Call[] = []
  #usage: GeminiUsage = { prompt: null, cached: null, candidates: null, thoughts: null, total: null }
  #sawUsage = false

  constructor(opts: GeminiDecoderOptions = {}) {
    super()
    this.#unwrap = opts.unwrap
  }

  frame(frame: SseFrame): NeutralEvent[] {
    const parsed = parseFrame(frame)
    if (!parsed.ok) return this.finish([parsed.event])
    const chunk = this.#unwrap ? this.#unwrap(parsed.value) : parsed.value
    const err = googleError(parsed.value) ?? (chunk === parsed.value ? null : googleError(chunk))
    if (err) return this.finish([streamErrorEvent(err)])
    const data = object(chunk, 'the chunk')
    if (!data) throw new Malformed('the chunk holds no GenerateContentResponse')
    // Most chunks carry no usage (it comes with the last): nothing to read then.
    if (data.usageMetadata !== undefined) this.#readUsage(data.usageMetadata)
    const candidates = list(data.candidates, 'candidates')
    const candidate = object(candidates?.[0], 'candidates[0]')
    const events = candidate ? this.#candidate(candidate) : []
    const feedback = object(data.promptFeedback, 'promptFeedback')
    const blocked = feedback ? str(feedback.blockReason, 'promptFeedback.blockReason') : undefined
    if (blocked !== undefined) {
      const detail = str(feedback?.blockReasonMessage, 'promptFeedback.blockReasonMessage')
      return this.finish([...events, ...this.#terminal(blockedPrompt(blocked), detail)])
    }
    const reason = candidate ? str(candidate.finishReason, 'finishReason') : undefined
    if (reason === undefined) return events
    const detail = str(candidate?.finishMessage, 'finishMessage')
    for (const event of this.#terminal(finishOutcome(reason), detail)) events.push(event)
    return this.finish(events)
  }

  #candidate(candidate: Json): NeutralEvent[] {
    const content = object(candidate.content, 'content')
    const parts = content ? list(content.parts, 'content.parts') : undefined
    const events: NeutralEvent[] = []
    if (!parts) return events
    for (let i = 0; i < parts.length; i++) {
      const part = object(parts[i], 'a part')
      const event = part ? this.#part(part) : null
      if (event) events.push(event)
    }
    return events
  }

  /** The delta a part makes, if any. Labels are constant: this runs once per streamed part. */
  #part(part: Json): NeutralEvent | null {
    const signature = str(part.thoughtSignature, 'thoughtSignature')
    const call = object(part.functionCall, 'functionCall')
    if (call) {
      const name = str(call.name, 'functionCall.name')
      if (!name) throw new Malformed('a functionCall has no name')
      const args = object(call.args, 'functionCall.args') ?? {}
      const id = str(call.id, 'functionCall.id') ?? ''
      this.#open = null
      const slot = this.#next++
      this.#calls.push({ slot, id, name, args: JSON.stringify(args) })
      this.#sign(slot, signature)
      return null
    }
    const text = str(part.text, 'text')
    const thought = part.thought === undefined ? false : bool(part.thought, 'thought')
    if (text === undefined || text === '') {
      // An empty text carrying a signature signs the item it closes (Gemini 3's last chunk).
      this.#sign(this.#open?.slot ?? this.#next - 1, signature)
      return null
    }
    const kind = thought ? 'thought' : 'text'
    if (this.#open?.kind !== kind) this.#open = { kind, slot: this.#next++ }
    const slot = this.#open.slot
    this.#sign(slot, signature)
    return { type: thought ? 'reasoning_delta' : 'text_delta', index: slot, delta: text }
  }

  #sign(slot: number, signature: string | undefined): void {
    if (!signature) return
    this.lastSignature = signature
    if (slot >= 0) this.signatures.set(slot, signature)
  }

  /**
   * Calls only on a normal STOP, then usage and `done`; a finish that is a failure ends
   * with its `error` after the usage (the tokens were spent) and publishes no call.
   */
  #terminal(outcome: FinishOutcome, detail: string | undefined): NeutralEvent[] {
    const events: NeutralEvent[] = []
    const calls = 'stop' in outcome && outcome.stop === 'stop' ? this.#calls : []
    for (const call of calls) events.push(toolCallEvent(call.slot, call))
    if (this.#sawUsage) events.push({ type: 'usage', usage: neutralUsage(this.#usage) })
    if ('stop' in outcome) {
      const stop = outcome.stop === 'stop' && calls.length > 0 ? 'tool_calls' : outcome.stop
      events.push({ type: 'done', stop_reason: stop })
    } else {
      // Google's own words (finishMessage, blockReasonMessage) say what went wrong.
      const said = detail?.trim() ? `: ${detail.trim().slice(0, 500)}` : ''
      events.push({ type: 'error', code: outcome.code, message: `${outcome.message}${said}`, status: null })
    }
    return events
  }

  #readUsage(value: unknown): void {
    const u = object(value, 'usageMetadata')
    if (!u) return
    const count = (key: string, old: number | null): number | null => {
      const v = u[key]
      if (v === undefined || v === null) return old
      if (typeof v !== 'number' || !Number.isFinite(v))
        throw new Malformed(`usageMetadata.${key} is not a number`)
      this.#sawUsage = true
      return v
    }
    this.#usage = {
      prompt: count('promptTokenCount', this.#usage.prompt),
      cached: count('cachedContentTokenCount', this.#usage.cached),
      candidates: count('candidatesTokenCount', this.#usage.candidates),
      thoughts: count('thoughtsTokenCount', this.#usage.thoughts),
      total: count('totalTokenCount', this.#usage.total),
    }
  }
}

function object(value: unknown, what: string): Json | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'object' || Array.isArray(value)) throw new Malformed(`${what} is not an object`)
  return value as Json
}

function list(value: unknown, what: string): unknown[] | undefined {
  if (value === undefined || value === null) return undefined
  if (!Array.isArray(value)) throw new Malformed(`${what} is not a list`)
  return value
}

function str(value: unknown, what: string): string | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') throw new Malformed(`${what} is not a string`)
  return value
}

function bool(value: unknown, what: string): boolean {
  if (typeof value !== 'boolean') throw new Malformed(`${what} is not a boolean`)
  return value
}

/**
 * One meaning across providers: `prompt_tokens` is every prompt token (Gemini's
 * `promptTokenCount` includes cached content), `cached_prompt_tokens` the cached part,
 * `completion_tokens` every generated token: the answer's and the thoughts'.
 */
export function neutralUsage(u: GeminiUsage): NeutralUsage {
  const completion =
    u.candidates === null && u.thoughts === null ? null : (u.candidates ?? 0) + (u.thoughts ?? 0)
  return {
    prompt_tokens: u.prompt,
    cached_prompt_tokens: u.cached,
    cache_write_tokens: null,
    completion_tokens: completion,
    total_tokens: u.prompt !== null && completion !== null ? u.prompt + completion : u.total,
  }
}

/** Decodes a Gemini event stream; always ends with exactly one `done` or `error`. */
export function decodeGemini(
  bytes: AsyncIterable<Uint8Array>,
  opts: GeminiDecoderOptions = {},
): AsyncGenerator<NeutralEvent> {
  return decodeWith(bytes, new GeminiDecoder(opts))
}
