// The model request of a turn, built from the session's history: user entries (with their
// images) and earlier answers (with their tool calls, and the encrypted reasoning a
// provider asked to get back). Reasoning text and failure notices stay out: they are shown
// to people, not replayed to the model. The system text is the workspace's instruction
// files (src/instructions), found afresh at each request.
import type { AssistantPart, NeutralMessage, NeutralRequest, UserPart } from '../providers/types.ts'
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
): NeutralRequest {
  const rows = core
    .sql('SELECT position, kind, content FROM entries WHERE session_id = ? ORDER BY position')
    .all(sessionId) as Row[]
  const images = core.sql(
    'SELECT field, media_type, data FROM entry_images WHERE session_id = ? AND position = ? ORDER BY field',
  )
  const messages: NeutralMessage[] = []
  for (const r of rows) {
    const c = JSON.parse(r.content) as {
      text?: string
      images?: unknown[]
      tool_calls?: AssistantPart[]
      replay?: AssistantPart[]
    }
    if (r.kind === 'user') {
      const parts: UserPart[] = c.text ? [{ type: 'text', text: c.text }] : []
      if (c.images?.length) {
        for (const img of images.all(sessionId, r.position) as ImageRow[])
          parts.push({ type: 'image', media_type: img.media_type, data: img.data.toString('base64') })
      }
      messages.push({ role: 'user', content: parts })
    } else if (r.kind === 'assistant') {
      // Encrypted reasoning came first in its turn, so it goes first in the replay.
      const parts: AssistantPart[] = [...(c.replay ?? [])]
      if (c.text) parts.push({ type: 'text', text: c.text })
      parts.push(...(c.tool_calls ?? []))
      if (parts.length > 0) messages.push({ role: 'assistant', content: parts })
    }
  }
  return { model, effort, system: systemOf(core, sessionId), messages, tools: [], session_id: sessionId }
}

/** The instruction files of the session's workspace, read as they are at this turn's start. */
function systemOf(core: SessionsCore, sessionId: string): string | null {
  const row = core.row(sessionId)
  return row ? core.instructions.of(row.workspace, selectionOf(row).instructions).system : null
}
