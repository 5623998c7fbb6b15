// The one provider contract: a provider-neutral request, the neutral stream events a
// transport decodes the vendor's stream into, and the shape every transport exports.
// Transports are pure codecs plus HTTP: they never touch the database and never throw on
// upstream faults; a failed step ends with an `error` event carrying a stable code.

/** A piece of a user message. Images travel as base64 with their media type. */
export type UserPart =
  | { type: 'text'; text: string }
  | { type: 'image'; media_type: ImageMediaType; data: string }

export type ImageMediaType = 'image/png' | 'image/jpeg' | 'image/webp'

/** An image a tool returned (a `read` of an image file), base64. */
export interface ToolResultImage {
  media_type: ImageMediaType
  data: string
}

/** A piece of an assistant message, as replayed to the model on the next step. */
export type AssistantPart =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | EncryptedReasoningPart
  | { type: 'tool_call'; id: string; name: string; arguments: string }

/**
 * Reasoning the provider encrypted for replay (a Responses `reasoning` item with
 * `encrypted_content`, asked for with `include: ["reasoning.encrypted_content"]`): opaque
 * to hearth, kept with the answer, and sent back only to the model that produced it.
 */
export interface EncryptedReasoningPart {
  type: 'encrypted_reasoning'
  /** The item's summary texts, in order. */
  summary: string[]
  encrypted_content: string
  /** The model that produced it. */
  model: string
}

export type NeutralMessage =
  | { role: 'user'; content: UserPart[] }
  | { role: 'assistant'; content: AssistantPart[] }
  | ToolResultMessage

/**
 * A tool's result, answering the assistant's `tool_call` part of the same id. Results
 * follow their calls in the order the model gave the calls. Images travel in the wire's
 * own form: inside the Responses `function_call_output`, in a user message right after
 * the tool messages on Chat Completions (whose tool messages take text only).
 */
export interface ToolResultMessage {
  role: 'tool'
  tool_call_id: string
  content: string
  images?: ToolResultImage[]
  /** The call failed (a tool error, a refusal, a timeout, no result): Messages' `is_error`. */
  is_error?: boolean
}

export interface NeutralTool {
  name: string
  description: string
  parameters: Record<string, unknown>
}

export interface NeutralRequest {
  model: string
  /** A reasoning effort the user chose (`low`, `medium`, `high`…), or null for the provider default. */
  effort: string | null
  /** Instructions sent ahead of the conversation, or null. */
  system: string | null
  messages: NeutralMessage[]
  /** Tools the model may call (none: the request carries no tool fields). */
  tools: NeutralTool[]
  /** The session the step belongs to: a stable key for prompt caching and request ids. */
  session_id: string
  /**
   * Only the whole answer is used (a compaction's summary): no one watches it stream, so a
   * wire with an unstreamed route may take it (vertex's `generateContent`).
   */
  whole?: boolean
  /** Structured output: the answer is JSON that fits this JSON Schema (vertex: `responseJsonSchema`). */
  response_schema?: Record<string, unknown>
}

export type StopReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'other'

export interface NeutralUsage {
  prompt_tokens: number | null
  cached_prompt_tokens: number | null
  cache_write_tokens: number | null
  completion_tokens: number | null
  total_tokens: number | null
}

/** Stable codes a failed step carries; also problem codes of the run's failure event. */
export type UpstreamErrorCode =
  | 'upstream_unauthorized' // 401/403: the key or token is wrong or expired
  | 'upstream_rate_limited' // 429 after retries
  | 'upstream_unavailable' // 5xx after retries, or the connection could not be made
  | 'upstream_timeout' // no byte within the timeout
  | 'upstream_dropped' // the connection ended before the response was complete
  | 'upstream_malformed' // a frame that does not parse or does not fit the format
  | 'upstream_rejected' // another 4xx: the request itself was refused
  | 'upstream_incomplete' // the stream ended without a terminal event
  | 'upstream_blocked' // the provider's filters blocked the prompt or the answer
  | 'upstream_tool_call_invalid' // the model made a call the provider could not accept; none ran
  | 'upstream_stopped' // the provider ended the answer early for a reason of its own
  | 'credentials_not_found' // no local credentials for the provider; nothing was sent
  | 'credentials_unusable' // local credentials that cannot be used; nothing was sent
  | 'aborted' // the caller aborted (interrupt, cancel, shutdown)
  | 'effort_unsupported' // the model cannot take the reasoning effort asked for; nothing was sent

/**
 * The neutral stream. `index` numbers output items in the order the upstream opened them,
 * so deltas of two items never interleave into one text.
 */
export type NeutralEvent =
  | { type: 'start' }
  | { type: 'text_delta'; index: number; delta: string }
  | { type: 'reasoning_delta'; index: number; delta: string }
  | { type: 'tool_call'; index: number; id: string; name: string; arguments: string }
  /** A finished reasoning item the provider encrypted for replay (see EncryptedReasoningPart). */
  | { type: 'encrypted_reasoning'; index: number; summary: string[]; encrypted_content: string }
  | { type: 'usage'; usage: NeutralUsage }
  | { type: 'done'; stop_reason: StopReason }
  | {
      type: 'error'
      code: UpstreamErrorCode
      message: string
      status: number | null
      /**
       * A rate limit's reset, epoch ms, when the upstream said when the credential may be
       * used again (a usage-limit body, Retry-After, limit headers). Signed-in accounts
       * are marked limited until then.
       */
      limited_until_ms?: number
    }

/** What the HTTP layer of a transport sends. */
export interface EncodedRequest {
  url: string
  headers: Record<string, string>
  body: string
  /**
   * Hosts of the same API tried in order after `url` when it cannot be reached or answers
   * 404 or 5xx (a vendor with several equivalent hosts); each gets the request at once, the
   * last one the usual retries. Never on any other 4xx: a refused token or a limit is the
   * account's, the same on every host.
   */
  fallbackUrls?: string[]
}

/** Options every transport's `stream` takes; injected so tests need no globals. */
export interface StreamOptions {
  signal: AbortSignal
  fetch?: typeof globalThis.fetch
  /** Milliseconds to wait for the first byte, and between bytes, before upstream_timeout. */
  idleTimeoutMs?: number
  /** Backoff before retry n (1-based) of a 429 or 5xx before the first token. */
  retryDelayMs?: (attempt: number, retryAfterMs: number | null) => number
  maxRetries?: number
}

/**
 * A profile's connection facts as the transport needs them. Secrets come resolved: the
 * kernel receives them from the daemon for one step and never stores them.
 */
export interface TransportProfile {
  endpoint: string
  protocol: 'responses' | 'chat_completions'
  model: string
  api_key: string | null
  /** Extra headers a provider adds (account ids, beta flags). */
  headers?: Record<string, string>
  /** The cloud project (vertex), from the profile; blank falls back to the provider's env. */
  project?: string
  /** The cloud location or region (vertex), from the profile; blank falls back likewise. */
  location?: string
  /** Longest image edge sent (the profile's image_edge): larger images are scaled down. */
  image_edge?: number
}

export interface Transport {
  /** Streams one step (one model call); never throws; always ends with `done` or `error`. */
  stream(profile: TransportProfile, req: NeutralRequest, opts: StreamOptions): AsyncIterable<NeutralEvent>
}

/**
 * One warm-up step against the throwaway server at `url` (src/kernel/warm.ts), through the
 * code a real step runs; it must read no credential of the user's.
 */
export type WarmStep = (
  url: string,
  request: NeutralRequest,
  opts: StreamOptions,
) => AsyncIterable<NeutralEvent>
