// The model request of a step, built from the session's history: user entries (with their
// images) and earlier answers (with their tool calls, and the encrypted reasoning a
// provider asked to get back). Reasoning text and failure notices stay out: they are shown
// to people, not replayed to the model, except reasoning text for a provider whose wire
// takes it back (`reasoningText`: Gemini's thought parts), ahead of the answer it came
// with. The system text is hearth's own instructions, the workspace's instruction files
// (found afresh at each request) and the skills (src/instructions), ending with the run's
// environment block. After a compaction, the exchanges it covers are replaced by one
// message holding its summary (src/context/marks.ts); the rest follows verbatim.

import { compactionMessage, latestCompaction } from '../../context/marks.ts'
import type {
  AssistantPart,
  NeutralMessage,
  NeutralRequest,
  ToolResultMessage,
  UserPart,
} from '../../providers/types.ts'
import type { SessionsCore } from '../../sessions/core.ts'
import { selectionOf } from '../../sessions/views.ts'

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

/** A step's request with what the request log records about it. */
export interface AssembledRequest {
  request: NeutralRequest
  /** The compaction whose summary goes first, if any. */
  compaction: string | null
  span: { from_position: number | null; to_position: number | null; messages: number }
}

/**
 * The messages of a session's history up to a position where no call waits for its result,
 * kept from its last request: entries never change once committed, so the next request
 * reads only the entries added since. Keyed by the compaction it starts after.
 */
interface Prefix {
  after: number
  compaction: string | null
  /** Whether reasoning text is replayed (another extension reads another prefix). */
  reasoning: boolean
  /** The last position the messages cover, and the first one sent (null: none yet). */
  through: number
  first: number | null
  messages: NeutralMessage[]
}

/** Sessions whose prefix is kept (the least recently assembled go first). */
const PREFIXES_KEPT = 64
const prefixes = new WeakMap<SessionsCore, Map<string, Prefix>>()

/** The entry kinds a request is built from (reasoning only for wires that take it back). */
const KINDS = "'user', 'assistant', 'tool_result', 'note'"
const KINDS_WITH_REASONING = `${KINDS}, 'reasoning'`

/** How a note reads to the model: marked as the daemon's, not the person's words. */
function noteText(text: string): string {
  return `[note from hearth] ${text}`
}

function prefixOf(
  core: SessionsCore,
  sessionId: string,
  after: number,
  compaction: string | null,
  reasoning: boolean,
) {
  let kept = prefixes.get(core)
  if (!kept) {
    kept = new Map()
    prefixes.set(core, kept)
  }
  const p = kept.get(sessionId)
  const same = p && p.after === after && p.compaction === compaction && p.reasoning === reasoning
  return { kept, prefix: same ? p : undefined }
}

export function buildRequest(
  core: SessionsCore,
  sessionId: string,
  model: string,
  effort: string | null,
  opts: { reasoningText?: boolean; environment?: string | null } = {},
): AssembledRequest {
  const mark = latestCompaction(core, sessionId)
  const after = mark?.through_position ?? 0
  const compaction = mark?.compaction_id ?? null
  const reasoning = opts.reasoningText === true
  const { kept, prefix } = prefixOf(core, sessionId, after, compaction, reasoning)
  const kinds = reasoning ? KINDS_WITH_REASONING : KINDS
  const rows = core
    .sql(
      `SELECT position, kind, content FROM entries WHERE session_id = ? AND position > ?
         AND kind IN (${kinds}) ORDER BY position`,
    )
    .all(sessionId, prefix?.through ?? after) as Row[]
  const images = core.sql(
    'SELECT field, media_type, data FROM entry_images WHERE session_id = ? AND position = ? ORDER BY field',
  )
  const messages: NeutralMessage[] = prefix ? prefix.messages.slice() : []
  const calls = new ToolAnswers(messages)
  let thinking: AssistantPart[] = []
  // Notes (work/notes.ts) open the user message they precede, as text of their own.
  let notes: UserPart[] = []
  // The last point where no call waits for a result (and no reasoning for the next answer
  // is held): the prefix the next request reuses.
  let clean = { through: prefix?.through ?? after, length: messages.length }
  for (const r of rows) {
    const c = JSON.parse(r.content) as {
      text?: string
      images?: unknown[]
      tool_calls?: AssistantPart[]
      replay?: AssistantPart[]
      call_id?: string
      output?: string
      outcome?: string
    }
    if (r.kind === 'tool_result') {
      const shown = c.images?.length ? (images.all(sessionId, r.position) as ImageRow[]) : []
      calls.answer(c.call_id as string, {
        content: c.output ?? '',
        images: shown.map((img) => ({ media_type: img.media_type, data: img.data.toString('base64') })),
        failed: c.outcome !== undefined && c.outcome !== 'ok',
      })
    }
    if (r.kind === 'note') notes.push({ type: 'text', text: noteText(c.text ?? '') })
    if (r.kind === 'user' || r.kind === 'assistant') calls.close()
    if (r.kind === 'reasoning' && opts.reasoningText && c.text)
      thinking.push({ type: 'reasoning', text: c.text })
    if (r.kind === 'user') {
      thinking = []
      const parts: UserPart[] = [...notes, ...(c.text ? [{ type: 'text' as const, text: c.text }] : [])]
      notes = []
      if (c.images?.length) {
        for (const img of images.all(sessionId, r.position) as ImageRow[])
          parts.push({ type: 'image', media_type: img.media_type, data: img.data.toString('base64') })
      }
      messages.push({ role: 'user', content: parts })
    } else if (r.kind === 'assistant') {
      // Encrypted reasoning came first in its step, so it goes first in the replay.
      const parts: AssistantPart[] = [...(c.replay ?? []), ...thinking]
      thinking = []
      if (c.text) parts.push({ type: 'text', text: c.text })
      parts.push(...(c.tool_calls ?? []))
      if (parts.length > 0) messages.push({ role: 'assistant', content: parts })
      calls.ask(c.tool_calls ?? [])
    }
    if (calls.idle && thinking.length === 0 && notes.length === 0)
      clean = { through: r.position, length: messages.length }
  }
  calls.close()
  const first = prefix?.first ?? rows[0]?.position ?? null
  kept.delete(sessionId)
  kept.set(sessionId, {
    after,
    compaction,
    reasoning,
    through: clean.through,
    first,
    messages: messages.slice(0, clean.length),
  })
  if (kept.size > PREFIXES_KEPT) kept.delete(kept.keys().next().value as string)
  const sent: NeutralMessage[] = mark
    ? [{ role: 'user', content: [{ type: 'text', text: compactionMessage(mark) }] }, ...messages]
    : messages
  return {
    request: {
      model,
      effort,
      system: systemOf(core, sessionId, opts.environment ?? null),
      messages: sent,
      tools: [],
      session_id: sessionId,
    },
    compaction,
    span: {
      from_position: first,
      to_position: rows.at(-1)?.position ?? prefix?.through ?? null,
      messages: sent.length,
    },
  }
}

/** The system text, with the instruction files of the session's workspace as they are now. */
function systemOf(core: SessionsCore, sessionId: string, environment: string | null): string | null {
  const row = core.row(sessionId)
  return row ? core.instructions.of(row.workspace, selectionOf(row), environment).system : null
}

/** A call's result as the history holds it; `failed` for any outcome but `ok`. */
type Answer = Pick<ToolResultMessage, 'content' | 'images'> & { failed: boolean }

/**
 * Tool results follow the answer that asked for them, in the order of its calls (parallel
 * calls may end in any order). A call without a result still gets one (providers refuse a
 * call left unanswered): the run ended before it finished.
 */
class ToolAnswers {
  readonly #messages: NeutralMessage[]
  #asked: string[] = []
  readonly #answers = new Map<string, Answer>()

  constructor(messages: NeutralMessage[]) {
    this.#messages = messages
  }

  /** No call waits for its result. */
  get idle(): boolean {
    return this.#asked.length === 0
  }

  ask(parts: AssistantPart[]): void {
    for (const p of parts) if (p.type === 'tool_call') this.#asked.push(p.id)
  }

  answer(callId: string, result: Answer): void {
    this.#answers.set(callId, result)
  }

  close(): void {
    for (const id of this.#asked) {
      const a = this.#answers.get(id) ?? {
        content: 'The call has no result: the run ended before it finished.',
        failed: true,
      }
      const images = a.images?.length ? { images: a.images } : {}
      // Only a failure is marked: a wire that takes the flag (Messages) says so to the model.
      const failed = a.failed ? { is_error: true } : {}
      this.#messages.push({ role: 'tool', tool_call_id: id, content: a.content, ...images, ...failed })
    }
    this.#asked = []
    this.#answers.clear()
  }
}
