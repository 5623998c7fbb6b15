// Neutral request → Chat Completions request body (`POST …/chat/completions`, streamed,
// usage requested). A user message that is one text part is sent as a plain string, the
// form every compatible server accepts; images travel as `image_url` data URLs.
// Reasoning parts of earlier assistant turns are not replayed.
import type { AssistantPart, NeutralMessage, NeutralRequest, TransportProfile, UserPart } from '../types.ts'

type ChatMessage = Record<string, unknown>

export function chatBody(profile: TransportProfile, req: NeutralRequest): Record<string, unknown> {
  const messages: ChatMessage[] = []
  if (req.system) messages.push({ role: 'system', content: req.system })
  for (const message of req.messages) messages.push(chatMessage(message))
  const body: Record<string, unknown> = {
    model: req.model || profile.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
  }
  if (req.effort) body.reasoning_effort = req.effort
  if (req.tools.length > 0) {
    body.tools = req.tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }))
  }
  return body
}

function chatMessage(message: NeutralMessage): ChatMessage {
  if (message.role === 'user') {
    const only = message.content.length === 1 ? message.content[0] : null
    if (only && only.type === 'text') return { role: 'user', content: only.text }
    return { role: 'user', content: message.content.map(userPart) }
  }
  if (message.role === 'assistant') return assistantMessage(message.content)
  return { role: 'tool', tool_call_id: message.tool_call_id, content: message.content }
}

function userPart(part: UserPart): Record<string, unknown> {
  if (part.type === 'text') return { type: 'text', text: part.text }
  return { type: 'image_url', image_url: { url: `data:${part.media_type};base64,${part.data}` } }
}

function assistantMessage(parts: AssistantPart[]): ChatMessage {
  const text = parts
    .filter((p) => p.type === 'text')
    .map((p) => p.text)
    .join('')
  const calls = parts.flatMap((p) =>
    p.type === 'tool_call'
      ? [{ id: p.id, type: 'function', function: { name: p.name, arguments: p.arguments } }]
      : [],
  )
  const message: ChatMessage = { role: 'assistant', content: text === '' && calls.length > 0 ? null : text }
  if (calls.length > 0) message.tool_calls = calls
  return message
}
