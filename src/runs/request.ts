// The model request of a turn, built from the session's history: user entries (with their
// images) and earlier answers (with their tool calls, and the encrypted reasoning a
// provider asked to get back). Reasoning text and failure notices stay out: they are shown
// to people, not replayed to the model, except reasoning text for a provider whose wire
// takes it back (`reasoningText`: Gemini's thought parts), ahead of the answer it came
// with. The system text is the workspace's instruction
// files (src/instructions), found afresh at each request.
import type {
  AssistantPart,
  NeutralMessage,
  NeutralRequest,
  ToolResultMessage,
  UserPart,
} from '../providers/types.ts'
import type { SessionsCore } from '../sessions/core.ts'
import { selectionOf } from '../sessions/views.ts'

interface Row {
  position: number
  kind: string
  content: string
}

interface ImageRow {
  field: string
  media_type: Extract<UserPart, { type: 'image' }>['media_type']
  data: Buffer
}

export function buildRequest(
  core: SessionsCore,
  sessionId: string,
  model: string,
  effort: string | null,
  opts: { reasoningText?: boolean } = {},
): NeutralRequest {
  const rows = core
    .sql('SELECT position, kind, content FROM entries WHERE session_id = ? ORDER BY position')
    .all(sessionId) as Row[]
  const images = core.sql(
    'SELECT field, media_type, data FROM entry_images WHERE session_id = ? AND position = ? ORDER BY field',
  )
  const messages: NeutralMessage[] = []
  const calls = new ToolAnswers(messages)
  let thinking: AssistantPart[] = []
  for (const r of rows) {
    const c = JSON.parse(r.content) as {
      text?: string
      images?: unknown[]
      tool_calls?: AssistantPart[]
      replay?: AssistantPart[]
      call_id?: string
      output?: string
    }
    if (r.kind === 'tool_result') {
      const shown = c.images?.length ? (images.all(sessionId, r.position) as ImageRow[]) : []
      calls.answer(c.call_id as string, {
        content: c.output ?? '',
        images: shown.map((img) => ({ media_type: img.media_type, data: img.data.toString('base64') })),
      })
    }
    if (r.kind === 'user' || r.kind === 'assistant') calls.close()
    if (r.kind === 'reasoning' && opts.reasoningText && c.text)
      thinking.push({ type: 'reasoning', text: c.text })
    if (r.kind === 'user') {
      thinking = []
      const parts: UserPart[] = c.text ? [{ type: 'text', text: c.text }] : []
      if (c.images?.length) {
        for (const img of images.all(sessionId, r.position) as ImageRow[])
          parts.push({ type: 'image', media_type: img.media_type, data: img.data.toString('base64') })
      }
      messages.push({ role: 'user', content: parts })
    } else if (r.kind === 'assistant') {
      // Encrypted reasoning came first in its turn, so it goes first in the replay.
      const parts: AssistantPart[] = [...(c.replay ?? []), ...thinking]
      thinking = []
      if (c.text) parts.push({ type: 'text', text: c.text })
      parts.push(...(c.tool_calls ?? []))
      if (parts.length > 0) messages.push({ role: 'assistant', content: parts })
      calls.ask(c.tool_calls ?? [])
    }
  }
  calls.close()
  return { model, effort, system: systemOf(core, sessionId), messages, tools: [], session_id: sessionId }
}

/** The instruction files of the session's workspace, read as they are at this turn's start. */
function systemOf(core: SessionsCore, sessionId: string): string | null {
  const row = core.row(sessionId)
  return row ? core.instructions.of(row.workspace, selectionOf(row).instructions).system : null
}

/**
 * Tool results follow the answer that asked for them, in the order of its calls (parallel
 * calls may end in any order). A call without a result still gets one (providers refuse a
 * call left unanswered): the run ended before it finished.
 */
class ToolAnswers {
  readonly #messages: NeutralMessage[]
  #asked: string[] = []
  readonly #answers = new Map<string, Pick<ToolResultMessage, 'content' | 'images'>>()

  constructor(messages: NeutralMessage[]) {
    this.#messages = messages
  }

  ask(parts: AssistantPart[]): void {
    for (const p of parts) if (p.type === 'tool_call') this.#asked.push(p.id)
  }

  answer(callId: string, result: Pick<ToolResultMessage, 'content' | 'images'>): void {
    this.#answers.set(callId, result)
  }

  close(): void {
    for (const id of this.#asked) {
      const a = this.#answers.get(id) ?? {
        content: 'The call has no result: the run ended before it finished.',
      }
      const images = a.images?.length ? { images: a.images } : {}
      this.#messages.push({ role: 'tool', tool_call_id: id, content: a.content, ...images })
    }
    this.#asked = []
    this.#answers.clear()
  }
}
