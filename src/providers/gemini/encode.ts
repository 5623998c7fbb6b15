// Neutral request → Gemini `generateContent` request body, shared by the `vertex`
// transport (sent as it is) and the Cloud Code Assist backend (which wraps it as the
// `request` of its envelope). What differs between them is passed in `GeminiBodyOptions`.
//
// - `contents`: user messages as `role: "user"`, assistant messages as `role: "model"`,
//   tool results as `functionResponse` parts of the user message after the calls, in the
//   order of the calls (`response: {output}`, a failed call's `response: {error}`).
//   Consecutive contents of one role are merged.
// - User parts: `{text}` (empty text left out) and `{inlineData: {mimeType, data}}`.
// - Assistant parts: text `{text}`, reasoning text `{text, thought: true}`, each call
//   `{functionCall: {name, args}, thoughtSignature}`; `args` is the call's JSON text
//   parsed (text that is not a JSON object, a model's broken arguments, goes as `{}`).
//   The signature is the caller's choice (`callSignature`); by default every call carries
//   `skip_thought_signature_validator`, the documented placeholder Gemini 3 accepts for a
//   call whose real signature is not replayed. Call ids go only when `callIds` is set:
//   Gemini models pair results by order and name, and may refuse ids they did not make.
// - `systemInstruction: {parts: [{text}]}` when there is system text.
// - `tools: [{functionDeclarations: [{name, description, parametersJsonSchema}]}]` with
//   the schemas as given (full JSON Schema, not flattened), `toolConfig` mode AUTO.
// - `generationConfig.thinkingConfig` only for an explicit effort (models.ts); a request
//   for structured output adds `responseMimeType: "application/json"` and its schema as
//   `responseJsonSchema` (full JSON Schema, not flattened).

import { groupByRole, type ToolCallPart } from '../conversation.ts'
import type { AssistantPart, NeutralRequest, NeutralTool, ToolResultMessage, UserPart } from '../types.ts'
import { thinkingConfigFor } from './models.ts'

export type Part = Record<string, unknown>

export interface Content {
  role: 'user' | 'model'
  parts: Part[]
}

/** The placeholder signature Gemini accepts for a replayed call without its real one. */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator'

export type { ToolCallPart }

export interface GeminiBodyOptions {
  /** The `thoughtSignature` of a replayed call (default: the skip placeholder). */
  callSignature?: (call: ToolCallPart) => string | undefined
  /** Send call ids in `functionCall` and `functionResponse` (default: not sent). */
  callIds?: boolean
  /** A tool's declaration (default: `{name, description, parametersJsonSchema}`). */
  declare?: (tool: NeutralTool) => Record<string, unknown>
}

/** The request body. Throws EffortError (models.ts) for an effort the model does not take. */
export function geminiBody(req: NeutralRequest, opts: GeminiBodyOptions = {}): Record<string, unknown> {
  const thinking = thinkingConfigFor(req.model, req.effort)
  const body: Record<string, unknown> = { contents: geminiContents(req, opts) }
  if (req.system) body.systemInstruction = { parts: [{ text: req.system }] }
  const config: Record<string, unknown> = {}
  if (thinking) config.thinkingConfig = thinking
  if (req.response_schema) {
    config.responseMimeType = 'application/json'
    config.responseJsonSchema = req.response_schema
  }
  if (Object.keys(config).length > 0) body.generationConfig = config
  if (req.tools.length > 0) {
    const declare = opts.declare ?? declareTool
    body.tools = [{ functionDeclarations: req.tools.map(declare) }]
    body.toolConfig = { functionCallingConfig: { mode: 'AUTO' } }
  }
  return body
}

export function declareTool(tool: NeutralTool): Record<string, unknown> {
  return { name: tool.name, description: tool.description, parametersJsonSchema: tool.parameters }
}

/** The conversation as Gemini contents. */
export function geminiContents(req: NeutralRequest, opts: GeminiBodyOptions = {}): Content[] {
  const groups = groupByRole<Content['role'], Part>(
    req.messages,
    { user: 'user', assistant: 'model' },
    {
      user: (parts) => parts.flatMap(userPart),
      assistant: (parts) => parts.flatMap((p) => modelPart(p, opts)),
      results: (results, calls) => resultParts(results, calls, opts.callIds === true),
    },
  )
  return groups.map(({ role, items }) => ({ role, parts: items }))
}

function userPart(part: UserPart): Part[] {
  if (part.type === 'text') return part.text === '' ? [] : [{ text: part.text }]
  return [inlineData(part.media_type, part.data)]
}

function inlineData(mimeType: string, data: string): Part {
  return { inlineData: { mimeType, data } }
}

function modelPart(part: AssistantPart, opts: GeminiBodyOptions): Part[] {
  switch (part.type) {
    case 'text':
      return part.text === '' ? [] : [{ text: part.text }]
    case 'reasoning':
      return part.text === '' ? [] : [{ text: part.text, thought: true }]
    case 'tool_call': {
      const call: Record<string, unknown> = { name: part.name, args: callArgs(part.arguments) }
      if (opts.callIds) call.id = part.id
      const signature = opts.callSignature ? opts.callSignature(part) : SKIP_SIGNATURE
      return [signature ? { functionCall: call, thoughtSignature: signature } : { functionCall: call }]
    }
    default:
      // Encrypted reasoning of other wires means nothing to Gemini.
      return []
  }
}

/** A call's JSON text as the object `functionCall.args` must be; anything else is `{}`. */
export function callArgs(args: string): Record<string, unknown> {
  try {
    const value = JSON.parse(args)
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value
  } catch {
    // broken arguments: the tool already told the model so
  }
  return {}
}

/**
 * One `functionResponse` per result, in the order of the calls they answer (the name is
 * the call's); then each result's images as inline data after a line naming the call.
 */
function resultParts(results: ToolResultMessage[], calls: ToolCallPart[], ids: boolean): Part[] {
  const parts: Part[] = []
  const images: Part[] = []
  for (const result of results) {
    const name = calls.find((c) => c.id === result.tool_call_id)?.name ?? result.tool_call_id
    // Google's convention: `output` holds a result, `error` a failure's details.
    const body = result.is_error ? { error: result.content } : { output: result.content }
    const response: Record<string, unknown> = { name, response: body }
    if (ids) response.id = result.tool_call_id
    parts.push({ functionResponse: response })
    const own = result.images ?? []
    if (own.length === 0) continue
    images.push({ text: `The image(s) returned by tool call ${result.tool_call_id} (${name}):` })
    for (const image of own) images.push(inlineData(image.media_type, image.data))
  }
  return [...parts, ...images]
}
