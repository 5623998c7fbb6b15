// Neutral request → Responses API request body (`POST …/responses`, streamed, not stored).
// Reasoning text of earlier assistant messages is not replayed: without `store` the API only
// accepts reasoning it encrypted itself. A provider that asks for encrypted reasoning
// (chatgpt) replays it with `replayEncrypted`, as `reasoning` items, to the same model only.
//
// Tools: `{type: "function", name, description, parameters, strict: false}` (the Responses
// API makes function tools strict by default, which refuses any schema with optional
// properties), `tool_choice: "auto"`, `parallel_tool_calls: true`. Calls are replayed as
// `function_call` items in the order the model gave them, between its reasoning and
// messages; results as `function_call_output` items, whose `output` is the text, or a
// list of `input_text` and `input_image` parts when the tool returned images.

import { replayArguments } from '../shared/tool-calls.ts'
import type {
  AssistantPart,
  NeutralRequest,
  ToolResultMessage,
  TransportProfile,
  UserPart,
} from '../types.ts'

type InputItem = Record<string, unknown>

export interface InputOptions {
  /** Send the encrypted reasoning kept with earlier answers of this model. */
  replayEncrypted?: boolean
}

export function responsesBody(
  profile: TransportProfile,
  req: NeutralRequest,
  opts: InputOptions = {},
): Record<string, unknown> {
  const model = req.model || profile.model
  const body: Record<string, unknown> = { model }
  if (req.system) body.instructions = req.system
  body.input = responsesInput(req, opts.replayEncrypted ? model : null)
  body.stream = true
  body.store = false
  if (req.effort) body.reasoning = { effort: req.effort }
  if (req.tools.length > 0) {
    body.tools = req.tools.map((t) => ({
      type: 'function',
      name: t.name,
      description: t.description,
      parameters: t.parameters,
      strict: false,
    }))
    body.tool_choice = 'auto'
    body.parallel_tool_calls = true
  }
  if (req.session_id) body.prompt_cache_key = req.session_id
  return body
}

/** The input items; with `replayModel`, encrypted reasoning that model produced goes too. */
export function responsesInput(req: NeutralRequest, replayModel: string | null = null): InputItem[] {
  const items: InputItem[] = []
  for (const message of req.messages) {
    if (message.role === 'user') {
      items.push({ type: 'message', role: 'user', content: message.content.map(userPart) })
    } else if (message.role === 'assistant') {
      items.push(...assistantItems(message.content, replayModel))
    } else {
      items.push(functionCallOutput(message))
    }
  }
  return items
}

function functionCallOutput(message: ToolResultMessage): InputItem {
  const images = message.images ?? []
  if (images.length === 0) {
    return { type: 'function_call_output', call_id: message.tool_call_id, output: message.content }
  }
  const output: Record<string, unknown>[] = []
  if (message.content !== '') output.push({ type: 'input_text', text: message.content })
  for (const image of images) output.push(userPart({ type: 'image', ...image }))
  return { type: 'function_call_output', call_id: message.tool_call_id, output }
}

function userPart(part: UserPart): Record<string, unknown> {
  if (part.type === 'text') return { type: 'input_text', text: part.text }
  return { type: 'input_image', image_url: `data:${part.media_type};base64,${part.data}`, detail: 'auto' }
}

/**
 * Consecutive text parts become one output message; each tool call its own item; encrypted
 * reasoning of `replayModel` a `reasoning` item (without an id: nothing is stored upstream).
 */
function assistantItems(parts: AssistantPart[], replayModel: string | null): InputItem[] {
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
      items.push({
        type: 'function_call',
        call_id: part.id,
        name: part.name,
        arguments: replayArguments(part.arguments),
      })
    } else if (part.type === 'encrypted_reasoning' && replayModel !== null && part.model === replayModel) {
      flush()
      items.push({
        type: 'reasoning',
        summary: part.summary.map((text) => ({ type: 'summary_text', text })),
        encrypted_content: part.encrypted_content,
      })
    }
  }
  flush()
  return items
}
