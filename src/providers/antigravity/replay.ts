// Thought signatures across steps. Gemini signs its reasoning with `thoughtSignature` on
// parts (thoughts, calls, text) and wants the signed parts back, exactly where they were,
// when the conversation continues with the same model; another model cannot use them.
//
// After a finished answer with at least one signature the transport emits one
// `encrypted_reasoning` event whose `encrypted_content` is the reasoning-details entry
// `{"type": "antigravity.parts", "parts": [...]}`: the answer's parts in order (thoughts
// `{text, thought: true}`, text, `{functionCall: {name, args}}`), each with its signature
// when it had one. The run engine keeps it, with the model, on the answer (`replay`).
//
// Encoding a later request: an answer with an entry made by the request's model replays
// the entry's parts in place of its own text and calls (a call that had no signature gets
// the skip placeholder); any other answer replays as plain text and calls, each call with
// the skip placeholder.
import { callArgs, geminiBody, type Part, SKIP_SIGNATURE } from '../gemini/encode.ts'
import type { AssistantPart, NeutralEvent, NeutralRequest, NeutralTool } from '../types.ts'

export const PARTS_ENTRY = 'antigravity.parts'

/** Marks where an answer's stored parts go in the encoded contents (never sent). */
const MARK = '\u0000antigravity.parts\u0000'

type Item =
  | { kind: 'text' | 'thought'; text: string }
  | { kind: 'call'; name: string; args: string; id: string }

/** Collects an answer's parts from its neutral events, to sign them at the end. */
export class PartsRecorder {
  readonly #items = new Map<number, Item>()

  see(event: NeutralEvent): void {
    if (event.type === 'text_delta' || event.type === 'reasoning_delta') {
      const kind = event.type === 'text_delta' ? 'text' : 'thought'
      const item = this.#items.get(event.index)
      if (item && item.kind !== 'call') item.text += event.delta
      else this.#items.set(event.index, { kind, text: event.delta })
    } else if (event.type === 'tool_call') {
      this.#items.set(event.index, { kind: 'call', name: event.name, args: event.arguments, id: event.id })
    }
  }

  /** The entry event for these parts and signatures (by item index), or null when nothing was signed. */
  entry(signatures: ReadonlyMap<number, string>): NeutralEvent | null {
    if (signatures.size === 0) return null
    const indexes = [...this.#items.keys()].sort((a, b) => a - b)
    const parts: Part[] = indexes.map((i) => {
      const item = this.#items.get(i) as Item
      const part: Part =
        item.kind === 'call'
          ? { functionCall: { name: item.name, args: callArgs(item.args) } }
          : item.kind === 'thought'
            ? { text: item.text, thought: true }
            : { text: item.text }
      const signature = signatures.get(i)
      if (signature) part.thoughtSignature = signature
      return part
    })
    // A signature on an item that made no event (an empty closing text) goes on the last part.
    const unplaced = [...signatures.keys()].filter((i) => !this.#items.has(i))
    if (unplaced.length > 0 && parts.length > 0 && !parts.at(-1)?.thoughtSignature)
      parts[parts.length - 1].thoughtSignature = signatures.get(unplaced.at(-1) as number)
    const index = indexes.length > 0 ? (indexes.at(-1) as number) + 1 : 0
    return {
      type: 'encrypted_reasoning',
      index,
      summary: [],
      encrypted_content: JSON.stringify({ type: PARTS_ENTRY, parts }),
    }
  }
}

/** The stored parts of an answer, when its entry was made by `model`. */
function storedParts(content: AssistantPart[], model: string): Part[] | null {
  for (const part of content) {
    if (part.type !== 'encrypted_reasoning' || part.model !== model) continue
    try {
      const entry = JSON.parse(part.encrypted_content)
      if (entry?.type === PARTS_ENTRY && Array.isArray(entry.parts)) return entry.parts as Part[]
    } catch {
      // another provider's reasoning: not ours
    }
  }
  return null
}

export interface AntigravityBodyOptions {
  callIds: boolean
  declare: (tool: NeutralTool) => Record<string, unknown>
}

/**
 * The Gemini request body of an Antigravity step: the shared codec's, with answers the same
 * model signed replayed from their stored parts.
 */
export function antigravityRequestBody(
  req: NeutralRequest,
  opts: AntigravityBodyOptions,
): Record<string, unknown> {
  const stored: Part[][] = []
  const messages = req.messages.map((m) => {
    if (m.role !== 'assistant') return m
    const parts = storedParts(m.content, req.model)
    if (!parts) return m
    stored.push(parts)
    const calls = m.content.filter((p) => p.type === 'tool_call')
    return { ...m, content: [{ type: 'text' as const, text: MARK }, ...calls] }
  })
  const body = geminiBody({ ...req, messages }, { callIds: opts.callIds, declare: opts.declare })
  if (stored.length === 0) return body
  const queue = [...stored]
  for (const content of body.contents as { role: string; parts: Part[] }[]) {
    const out: Part[] = []
    for (let i = 0; i < content.parts.length; i++) {
      const part = content.parts[i]
      if (part.text !== MARK) {
        out.push(part)
        continue
      }
      const parts = queue.shift() ?? []
      // The marked answer's own calls follow the mark: the stored ones replace them, in order.
      const own: Part[] = []
      const calls = parts.filter((p) => p.functionCall !== undefined).length
      while (own.length < calls && content.parts[i + 1]?.functionCall !== undefined)
        own.push(content.parts[++i])
      let call = 0
      for (const p of parts) {
        if (p.functionCall === undefined) {
          out.push(p)
          continue
        }
        const id = (own[call++]?.functionCall as { id?: unknown } | undefined)?.id
        const functionCall = id === undefined ? p.functionCall : { ...(p.functionCall as object), id }
        out.push({ ...p, functionCall, thoughtSignature: p.thoughtSignature || SKIP_SIGNATURE })
      }
    }
    content.parts = out
  }
  return body
}
