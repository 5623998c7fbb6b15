// Neutral request → Responses API request body (`POST …/responses`, streamed, not stored).
// Reasoning parts of earlier assistant turns are not replayed: without `store` the API
// only accepts reasoning it encrypted itself, which a neutral transcript does not carry.
import type { AssistantPart, NeutralRequest, TransportProfile, UserPart } from '../types.ts'

type InputItem = Record<string, unknown>

export function responsesBody(profile: TransportProfile, req: NeutralRequest): Record<string, unknown> {
  const body: Record<string, unknown> = { model: req.model || profile.model }
  if (req.system) body.instructions = req.system
  body.input = responsesInput(req)
  body.stream = true
  body.store = false
  if (req.effort) body.reasoning = { effort: req.effort }
  if (req.tools.length > 0) {
    body.tools = req.tools.map((t) => ({
      type: 'function',
      name: t.name,
      description: t.description,
      parameters: t.parameters,
    }))
  }
  if (req.session_id) body.prompt_cache_key = req.session_id
  return body
}

export function responsesInput(req: NeutralRequest): InputItem[] {
  const items: InputItem[] = []
  for (const message of req.messages) {
    if (message.role === 'user') {
      items.push({ type: 'message', role: 'user', content: message.content.map(userPart) })
    } else if (message.role === 'assistant') {
      items.push(...assistantItems(message.content))
    } else {
      items.push({ type: 'function_call_output', call_id: message.tool_call_id, output: message.content })
    }
  }
  return items
}

function userPart(part: UserPart): Record<string, unknown> {
  if (part.type === 'text') return { type: 'input_text', text: part.text }
  return { type: 'input_image', image_url: `data:${part.media_type};base64,${part.data}`, detail: 'auto' }
}

/** Consecutive text parts become one output message; each tool call its own item. */
function assistantItems(parts: AssistantPart[]): InputItem[] {
  const items: InputItem[] = []
  let texts: Record<string, unknown>[] = []
  const flush = () => {
    if (texts.length > 0) items.push({ type: 'message', role: 'assistant', content: texts })
    texts = []
  }
  for (const part of parts) {
    if (part.type === 'text') {
      if (part.text !== '') texts.push({ type: 'output_text', text: part.text })
    } else if (part.type === 'tool_call') {
      flush()
      items.push({ type: 'function_call', call_id: part.id, name: part.name, arguments: part.arguments })
    }
  }
  flush()
  return items
}
