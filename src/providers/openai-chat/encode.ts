// Neutral request → Chat Completions request body (`POST …/chat/completions`, streamed,
// usage requested). A user message that is one text part is sent as a plain string, the
// form every compatible server accepts; images travel as `image_url` data URLs.
// Reasoning parts are not replayed, except on an assistant message that calls tools: it
// carries them as `reasoning_content`, which thinking models that stream that field
// (DeepSeek, Kimi) require back during a tool loop (a 400 otherwise). Mistral's API is the
// exception: it refuses any field it does not know (422 `extra_forbidden`) and its thinking
// models stream content parts instead, so an endpoint on mistral.ai never gets it.
//
// Tools: `tools` as `{type: "function", function: {name, description, parameters}}` with
// `tool_choice: "auto"`. `parallel_tool_calls` is left to the server's default (true on
// OpenAI): some models and servers refuse the parameter. Tool results are `role: "tool"`
// messages, which take text only, so the images of a run of tool results go in one user
// message right after the last of them (a user message between two tool messages would
// break the pairing of calls and results).

import { replayArguments } from '../shared/tool-calls.ts'
import type {
  AssistantPart,
  NeutralMessage,
  NeutralRequest,
  ToolResultMessage,
  TransportProfile,
  UserPart,
} from '../types.ts'

type ChatMessage = Record<string, unknown>

export function chatBody(profile: TransportProfile, req: NeutralRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: req.model || profile.model,
    messages: chatMessages(req, { reasoningContent: !isMistral(profile.endpoint) }),
    stream: true,
    stream_options: { include_usage: true },
  }
  if (req.effort) body.reasoning_effort = req.effort
  if (req.tools.length > 0) {
    body.tools = req.tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }))
    body.tool_choice = 'auto'
  }
  return body
}

interface MessageOptions {
  /** Send the reasoning of an assistant message with tool calls as `reasoning_content`. */
  reasoningContent: boolean
}

function isMistral(endpoint: string): boolean {
  try {
    const host = new URL(endpoint.trim()).hostname
    return host === 'mistral.ai' || host.endsWith('.mistral.ai')
  } catch {
    return false
  }
}

/** The messages in order; images of consecutive tool results follow the last of them. */
function chatMessages(req: NeutralRequest, opts: MessageOptions): ChatMessage[] {
  const messages: ChatMessage[] = []
  if (req.system) messages.push({ role: 'system', content: req.system })
  let withImages: ToolResultMessage[] = []
  const flushImages = () => {
    if (withImages.length > 0) messages.push(toolImagesMessage(withImages))
    withImages = []
  }
  for (const message of req.messages) {
    if (message.role === 'tool') {
      messages.push(toolMessage(message))
      if (message.images?.length) withImages.push(message)
      continue
    }
    flushImages()
    messages.push(chatMessage(message, opts))
  }
  flushImages()
  return messages
}

function chatMessage(message: Exclude<NeutralMessage, ToolResultMessage>, opts: MessageOptions): ChatMessage {
  if (message.role === 'assistant') return assistantMessage(message.content, opts)
  const only = message.content.length === 1 ? message.content[0] : null
  if (only && only.type === 'text') return { role: 'user', content: only.text }
  return { role: 'user', content: message.content.map(userPart) }
}

function toolMessage(message: ToolResultMessage): ChatMessage {
  const pointer = message.images?.length ? '(the images follow in the next message)' : ''
  return { role: 'tool', tool_call_id: message.tool_call_id, content: message.content || pointer }
}

/** One user message carrying the images of tool results, each introduced by its call id. */
function toolImagesMessage(results: ToolResultMessage[]): ChatMessage {
  const content: Record<string, unknown>[] = []
  for (const result of results) {
    const images = result.images ?? []
    const noun = images.length === 1 ? 'image' : 'images'
    content.push({ type: 'text', text: `The ${noun} returned by tool call ${result.tool_call_id}:` })
    for (const image of images) content.push(userPart({ type: 'image', ...image }))
  }
  return { role: 'user', content }
}

function userPart(part: UserPart): Record<string, unknown> {
  if (part.type === 'text') return { type: 'text', text: part.text }
  return { type: 'image_url', image_url: { url: `data:${part.media_type};base64,${part.data}` } }
}

function assistantMessage(parts: AssistantPart[], opts: MessageOptions): ChatMessage {
  const text = parts
    .filter((p) => p.type === 'text')
    .map((p) => p.text)
    .join('')
  const calls = parts.flatMap((p) =>
    p.type === 'tool_call'
      ? [{ id: p.id, type: 'function', function: { name: p.name, arguments: replayArguments(p.arguments) } }]
      : [],
  )
  const message: ChatMessage = { role: 'assistant', content: text === '' && calls.length > 0 ? null : text }
  if (calls.length === 0) return message
  const reasoning = parts
    .filter((p) => p.type === 'reasoning')
    .map((p) => p.text)
    .join('')
  if (reasoning !== '' && opts.reasoningContent) message.reasoning_content = reasoning
  message.tool_calls = calls
  return message
}
