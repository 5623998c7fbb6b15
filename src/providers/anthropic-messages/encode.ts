// Neutral request → Messages request body (`POST …/v1/messages`, streamed), shared by the
// `claude` and `bedrock` transports, which add their own URL, headers and fields.
//
// - `system`: the caller's own blocks first (`systemPrefix`: identity or attribution
//   text a provider must send), then the request's system text; left out when empty.
// - User text and images (`image` blocks, base64 source). Empty text is left out: the API
//   refuses empty text blocks.
// - Assistant text and calls: each call a `tool_use` block whose `input` is the call's
//   JSON text parsed; text that is not a JSON object (a model's broken arguments) is sent
//   as `{}`, since the API takes only an object and the tool's error already told the model.
//   Reasoning text is not replayed. Signed thinking (`encrypted_reasoning` parts kept
//   from this codec's decoder) is replayed only with `replayThinking` and only to the
//   model that produced it, first in its message: a part with one summary entry is a
//   `thinking` block (text + signature), one without is `redacted_thinking`.
// - Tool results: `tool_result` blocks in the user message right after the assistant
//   message, in the order of its calls; images go inside the result's content; a failed
//   call's result carries `is_error: true`.
// - Consecutive messages of one role are merged into one (the API wants them alternating).
// - `max_tokens`: see models.ts and thinkingFor; `stream: true`; tools as `{name,
//   description, input_schema}`, the schema flattened into one object schema (the API
//   refuses top-level `oneOf`/`anyOf`/`allOf`: claude/schema.ts); `temperature` only when
//   asked for and thinking is off.

// The Messages family's one schema preparation (it lives with claude, where it began).
import { messagesToolSchema } from '../claude/schema.ts'
import { groupByRole } from '../conversation.ts'
import type { AssistantPart, NeutralRequest, ToolResultMessage, UserPart } from '../types.ts'
import { type ModelFacts, modelFacts } from './models.ts'

export type Block = Record<string, unknown>

export interface WireMessage {
  role: 'user' | 'assistant'
  content: Block[]
}

export interface MessagesBodyOptions {
  /** System blocks sent ahead of the request's system text. */
  systemPrefix?: Block[]
  /** Replay signed thinking blocks to the model that produced them (default: dropped). */
  replayThinking?: boolean
  /** Sent only when thinking is off (the API refuses it beside thinking). */
  temperature?: number
}

/** `max_tokens` asked for without thinking: the model's limit, at most this. */
export const DEFAULT_MAX_TOKENS = 32_000
/** Thinking budgets of the budget-mode models, per effort. */
export const THINKING_BUDGETS: Readonly<Record<string, number>> = {
  minimal: 1_024,
  low: 2_048,
  medium: 8_192,
  high: 16_384,
  xhigh: 32_768,
}
const MIN_BUDGET = 1_024
/** Room kept for the answer when a budget would take the whole output limit. */
const MIN_ANSWER_TOKENS = 1_024

export function messagesBody(req: NeutralRequest, opts: MessagesBodyOptions = {}): Record<string, unknown> {
  const facts = modelFacts(req.model)
  const messages = wireMessages(req, opts.replayThinking === true)
  const body: Record<string, unknown> = { model: req.model }
  const thinking = thinkingFor(req.effort, facts, messages)
  body.max_tokens = thinking.maxTokens
  const system = [...(opts.systemPrefix ?? [])]
  if (req.system) system.push({ type: 'text', text: req.system })
  if (system.length > 0) body.system = system
  body.messages = messages
  if (req.tools.length > 0) {
    body.tools = req.tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: messagesToolSchema(t.parameters),
    }))
  }
  if (thinking.thinking) body.thinking = thinking.thinking
  if (thinking.effort) body.output_config = { effort: thinking.effort }
  if (!thinking.thinking && opts.temperature !== undefined) body.temperature = opts.temperature
  body.stream = true
  return body
}

export interface ThinkingChoice {
  maxTokens: number
  thinking: Record<string, unknown> | null
  effort: string | null
}

/**
 * Effort → thinking. No effort: no thinking fields (the model's default). Adaptive
 * models: `{type: "adaptive"}` and `output_config.effort` — minimal and low → `low`,
 * medium → `medium`, high → `high`, xhigh → `xhigh` where the model takes it, else `max`
 * where it takes that, else `high`. Budget models: `{type: "enabled", budget_tokens}` from
 * THINKING_BUDGETS, `max_tokens` raised by the budget within the model's limit, the budget
 * cut to leave 1,024 tokens to answer. A budget request whose last assistant message called
 * tools without a thinking block ahead (thinking not replayed) goes without thinking:
 * the API refuses that continuation otherwise ("a final assistant message must start with
 * a thinking block"), and adaptive thinking does not ask for it. Models that do not think
 * ignore the effort.
 */
export function thinkingFor(
  effort: string | null,
  facts: ModelFacts,
  messages: WireMessage[],
): ThinkingChoice {
  const base = Math.min(facts.maxOutput, DEFAULT_MAX_TOKENS)
  const none = { maxTokens: base, thinking: null, effort: null }
  if (!effort || facts.thinking === 'none') return none
  if (facts.thinking === 'adaptive')
    return { maxTokens: base, thinking: { type: 'adaptive' }, effort: adaptiveEffort(effort, facts) }
  if (toolLoopWithoutThinking(messages)) return none
  const wanted = THINKING_BUDGETS[effort] ?? THINKING_BUDGETS.high
  const maxTokens = Math.min(base + wanted, facts.maxOutput)
  const budget = Math.min(wanted, maxTokens - MIN_ANSWER_TOKENS)
  if (budget < MIN_BUDGET) return none
  return { maxTokens, thinking: { type: 'enabled', budget_tokens: budget }, effort: null }
}

function adaptiveEffort(effort: string, facts: ModelFacts): string {
  switch (effort) {
    case 'minimal':
    case 'low':
      return 'low'
    case 'medium':
      return 'medium'
    case 'xhigh':
      return facts.xhigh ? 'xhigh' : facts.max ? 'max' : 'high'
    case 'max':
      return facts.max ? 'max' : 'high'
    default:
      return 'high'
  }
}

/** The conversation ends in tool results answering an assistant message that has no thinking block first. */
function toolLoopWithoutThinking(messages: WireMessage[]): boolean {
  const last = messages.at(-1)
  const before = messages.at(-2)
  if (!last || !before || last.role !== 'user' || before.role !== 'assistant') return false
  if (!last.content.some((b) => b.type === 'tool_result')) return false
  const first = before.content[0]?.type
  return first !== 'thinking' && first !== 'redacted_thinking'
}

/** The conversation as alternating wire messages. */
export function wireMessages(req: NeutralRequest, replayThinking: boolean): WireMessage[] {
  const groups = groupByRole<WireMessage['role'], Block>(
    req.messages,
    { user: 'user', assistant: 'assistant' },
    {
      user: (parts) => parts.flatMap(userBlock),
      assistant: (parts) => assistantBlocks(parts, replayThinking ? req.model : null),
      results: (results) => results.map(toolResultBlock),
    },
  )
  return groups.map(({ role, items }) => ({ role, content: items }))
}

function userBlock(part: UserPart): Block[] {
  if (part.type === 'text') return part.text === '' ? [] : [{ type: 'text', text: part.text }]
  return [imageBlock(part.media_type, part.data)]
}

function imageBlock(mediaType: string, data: string): Block {
  return { type: 'image', source: { type: 'base64', media_type: mediaType, data } }
}

/** Thinking first (the API wants it ahead of text and calls), then text and calls in order. */
function assistantBlocks(parts: AssistantPart[], replayModel: string | null): Block[] {
  const thinking: Block[] = []
  const rest: Block[] = []
  for (const part of parts) {
    if (part.type === 'text' && part.text !== '') rest.push({ type: 'text', text: part.text })
    else if (part.type === 'tool_call')
      rest.push({ type: 'tool_use', id: part.id, name: part.name, input: toolInput(part.arguments) })
    else if (part.type === 'encrypted_reasoning' && replayModel !== null && part.model === replayModel) {
      thinking.push(
        part.summary.length === 0
          ? { type: 'redacted_thinking', data: part.encrypted_content }
          : { type: 'thinking', thinking: part.summary.join(''), signature: part.encrypted_content },
      )
    }
  }
  return [...thinking, ...rest]
}

/** A call's JSON text as the object `tool_use.input` must be; anything else is `{}`. */
export function toolInput(args: string): Record<string, unknown> {
  try {
    const value = JSON.parse(args)
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value
  } catch {
    // broken arguments: see the note at the top
  }
  return {}
}

function toolResultBlock(result: ToolResultMessage): Block {
  const images = result.images ?? []
  const block: Block = { type: 'tool_result', tool_use_id: result.tool_call_id }
  // A failed call says so, as the API asks: the model reads it as an error to act on.
  if (result.is_error) block.is_error = true
  if (images.length === 0) {
    // An empty result is sent without content (optional there) rather than as "".
    if (result.content !== '') block.content = result.content
    return block
  }
  const content: Block[] = result.content === '' ? [] : [{ type: 'text', text: result.content }]
  for (const image of images) content.push(imageBlock(image.media_type, image.data))
  block.content = content
  return block
}
