// Scripted tool turns for the fake upstreams, in every wire format (FakeOpenAIUpstream
// speaks Responses, Chat Completions and Anthropic Messages, FakeChatgptBackend the Codex
// Responses dialect):
// builders for the replies, and readers that pull the replayed calls and the tool results
// out of a recorded request body, whatever its wire.
//
//   const fake = await FakeOpenAIUpstream.start()
//   fake.enqueue(
//     // reply 1: call `read`; its arguments stream in 3 pieces
//     callTools({ name: 'read', arguments: { path: 'notes.txt' } }),
//     // reply 2: a function of the request, so it can answer what the tool returned
//     (req) => answer(`The file says: ${toolResultsOf(req.body)[0]?.output}`),
//   )
//   …run a turn with a profile whose endpoint is fake.url…
//   const second = fake.requests[1].body
//   toolCallsOf(second)    // [{call_id: 'call_fake_1', name: 'read', arguments: '{"path":"notes.txt"}'}]
//   toolResultsOf(second)  // [{call_id: 'call_fake_1', output: '…the file…', images: []}]
//
// Several calls in one reply are parallel calls: `callTools(a, b)`. A reply can also say
// something before its calls: `callTools({name: 'shell', arguments: {…}}, {text: 'Let me check.'})`.
import type { FakeScript, FakeToolCall } from './openai-frames.ts'

export interface ToolCallSpec {
  name: string
  /** An object (sent as its JSON) or the exact argument text (invalid JSON included). */
  arguments?: Record<string, unknown> | string
  /** Default: `call_fake_<n>`, n counting every call this process scripted. */
  id?: string
  /** How many pieces the argument text streams in (default 3; 1 sends it whole). */
  pieces?: number
}

export interface ReplyOptions {
  /** Text the model says before its calls. */
  text?: string
  usage?: FakeScript['usage']
  /** Pause before each delta, in ms (to interrupt a turn mid-stream, say). */
  delayMs?: number
}

let scripted = 0

/** A reply that calls these tools, in this order; its stream ends with a tool-calls stop. */
export function callTools(
  ...args: (ToolCallSpec | ReplyOptions)[]
): FakeScript & { toolCalls: FakeToolCall[] } {
  const specs = args.filter((a): a is ToolCallSpec => 'name' in a)
  const options: ReplyOptions = Object.assign({}, ...args.filter((a) => !('name' in a)))
  const toolCalls = specs.map((spec) => {
    const text = typeof spec.arguments === 'string' ? spec.arguments : JSON.stringify(spec.arguments ?? {})
    return {
      id: spec.id ?? `call_fake_${++scripted}`,
      name: spec.name,
      arguments: split(text, spec.pieces ?? 3),
    }
  })
  return {
    toolCalls,
    text: options.text ? [options.text] : undefined,
    usage: options.usage,
    delayMs: options.delayMs,
  }
}

/** A final answer without tool calls, streamed word by word. */
export function answer(text: string, options: Omit<ReplyOptions, 'text'> = {}): FakeScript {
  return { text: text.match(/\S+\s*|\s+/g) ?? [''], usage: options.usage, delayMs: options.delayMs }
}

/** `text` cut into `pieces` parts of about equal length (never an empty part, unless text is empty). */
export function split(text: string, pieces: number): string[] {
  const n = Math.max(1, Math.min(pieces, text.length))
  const size = Math.ceil(text.length / n)
  const parts: string[] = []
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size))
  return parts.length > 0 ? parts : ['']
}

export interface ReplayedCall {
  call_id: string
  name: string
  arguments: string
}

export interface ReplayedResult {
  call_id: string
  /** The text of the result. */
  output: string
  /** Images sent with it (Responses: in the output; Chat: in the user message after the tool messages). */
  images: { media_type: string; data: string }[]
}

/** The function calls a request replays, in order (Responses `function_call` items, Chat `tool_calls`). */
export function toolCallsOf(body: any): ReplayedCall[] {
  if (Array.isArray(body?.input)) {
    return body.input
      .filter((item: any) => item?.type === 'function_call')
      .map((item: any) => ({ call_id: item.call_id, name: item.name, arguments: item.arguments }))
  }
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : []
  if (isMessagesWire(messages)) return messagesCalls(messages)
  return messages.flatMap((m) =>
    m?.role === 'assistant' && Array.isArray(m.tool_calls)
      ? m.tool_calls.map((c: any) => ({
          call_id: c.id,
          name: c.function?.name,
          arguments: c.function?.arguments,
        }))
      : [],
  )
}

/** The tool results a request carries, in order, in either wire format. */
export function toolResultsOf(body: any): ReplayedResult[] {
  if (Array.isArray(body?.input)) {
    return body.input
      .filter((item: any) => item?.type === 'function_call_output')
      .map((item: any) => responsesResult(item))
  }
  const results: ReplayedResult[] = []
  const byId = new Map<string, ReplayedResult>()
  if (isMessagesWire(body?.messages)) return messagesResults(body.messages)
  for (const m of Array.isArray(body?.messages) ? body.messages : []) {
    if (m?.role === 'tool') {
      const result = { call_id: m.tool_call_id, output: m.content, images: [] }
      results.push(result)
      byId.set(m.tool_call_id, result)
    } else if (m?.role === 'user' && Array.isArray(m.content)) {
      // The images of tool results: each run introduced by "… tool call <id>:".
      let owner: ReplayedResult | undefined
      for (const part of m.content) {
        const named = part?.type === 'text' ? /tool call (\S+):$/.exec(part.text) : null
        if (named) owner = byId.get(named[1])
        else if (part?.type === 'image_url' && owner) owner.images.push(dataUrl(part.image_url?.url))
      }
    }
  }
  return results
}

function responsesResult(item: any): ReplayedResult {
  if (typeof item.output === 'string') return { call_id: item.call_id, output: item.output, images: [] }
  const parts: any[] = Array.isArray(item.output) ? item.output : []
  return {
    call_id: item.call_id,
    output: parts
      .filter((p) => p?.type === 'input_text')
      .map((p) => p.text)
      .join(''),
    images: parts.filter((p) => p?.type === 'input_image').map((p) => dataUrl(p.image_url)),
  }
}

function dataUrl(url: unknown): { media_type: string; data: string } {
  const m = /^data:([^;]+);base64,(.*)$/.exec(String(url))
  return m ? { media_type: m[1], data: m[2] } : { media_type: '', data: String(url) }
}

/** Whether messages are Anthropic Messages ones (tool calls and results are content blocks). */
function isMessagesWire(messages: unknown): boolean {
  if (!Array.isArray(messages)) return false
  return messages.some(
    (m) =>
      Array.isArray(m?.content) &&
      m.content.some((b: any) => b?.type === 'tool_use' || b?.type === 'tool_result'),
  )
}

function messagesCalls(messages: any[]): ReplayedCall[] {
  return messages.flatMap((m) =>
    m?.role === 'assistant' && Array.isArray(m.content)
      ? m.content
          .filter((b: any) => b?.type === 'tool_use')
          .map((b: any) => ({ call_id: b.id, name: b.name, arguments: JSON.stringify(b.input ?? {}) }))
      : [],
  )
}

function messagesResults(messages: any[]): ReplayedResult[] {
  const blocks = messages.flatMap((m) => (m?.role === 'user' && Array.isArray(m.content) ? m.content : []))
  return blocks
    .filter((b: any) => b?.type === 'tool_result')
    .map((b: any) => {
      const parts: any[] =
        typeof b.content === 'string' ? [{ type: 'text', text: b.content }] : (b.content ?? [])
      return {
        call_id: b.tool_use_id,
        output: parts
          .filter((p) => p?.type === 'text')
          .map((p) => p.text)
          .join(''),
        images: parts
          .filter((p) => p?.type === 'image')
          .map((p) => ({ media_type: p.source?.media_type ?? '', data: p.source?.data ?? '' })),
      }
    })
}
