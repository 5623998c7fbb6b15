// History entries as plain text: the `history` section of a context snapshot (what the
// next request sends, verbatim) and the transcript a summary is written from (long tool
// output clipped to its head and tail, so the older runs fit one request).
import type { SessionsCore } from '../sessions/core.ts'

interface Row {
  position: number
  kind: string
  content: string
}

interface Content {
  text?: string
  images?: unknown[]
  tool_calls?: { type: string; name?: string; arguments?: string }[]
  call_id?: string
  name?: string
  outcome?: string
  output?: string
}

/** Characters of a tool's arguments and output a summary's transcript keeps (head and tail). */
const CLIP_ARGUMENTS = 2000
const CLIP_OUTPUT = 4000

function clip(text: string, max: number | undefined): string {
  if (max === undefined || text.length <= max) return text
  const half = Math.floor(max / 2)
  return `${text.slice(0, half)}\n[… ${text.length - max} characters left out …]\n${text.slice(-half)}`
}

/** One entry as text, or null for kinds a request does not send. */
export function renderEntry(r: Row, clipped: boolean): string | null {
  const c = JSON.parse(r.content) as Content
  const images = c.images?.length ? `\n[${c.images.length} image(s)]` : ''
  if (r.kind === 'user') return `[user #${r.position}]\n${c.text ?? ''}${images}`
  if (r.kind === 'note') return `[note #${r.position}]\n${c.text ?? ''}`
  if (r.kind === 'assistant') {
    const calls = (c.tool_calls ?? [])
      .filter((p) => p.type === 'tool_call')
      .map((p) => `[tool call ${p.name}] ${clip(p.arguments ?? '', clipped ? CLIP_ARGUMENTS : undefined)}`)
    const text = c.text ? [c.text] : []
    if (text.length === 0 && calls.length === 0) return null
    return [`[assistant #${r.position}]`, ...text, ...calls].join('\n')
  }
  if (r.kind === 'tool_result') {
    const output = clip(c.output ?? '', clipped ? CLIP_OUTPUT : undefined)
    return `[tool result ${c.name ?? ''} #${r.position}: ${c.outcome ?? 'ok'}]\n${output}${images}`
  }
  return null
}

/**
 * The newest entries in (after, through] whose text fits `budget` characters, as text in
 * ascending order, and how many older ones were left out. Rows are read newest first and
 * reading stops at the budget, so a long history costs what fits, not what it holds.
 */
export function renderNewest(
  core: SessionsCore,
  sessionId: string,
  after: number,
  through: number,
  budget: number,
): { texts: string[]; omitted: number } {
  const rows = core
    .sql(
      `SELECT position, kind, content FROM entries WHERE session_id = ? AND position > ? AND position <= ?
         AND kind IN ('user', 'assistant', 'tool_result', 'note') ORDER BY position DESC`,
    )
    .iterate(sessionId, after, through) as IterableIterator<Row>
  const texts: string[] = []
  let left = budget
  let last = through + 1
  for (const r of rows) {
    const text = renderEntry(r, true)
    if (text === null) continue
    if (text.length + 2 > left) break
    left -= text.length + 2
    texts.push(text)
    last = r.position
  }
  texts.reverse()
  const { n } = core
    .sql(
      `SELECT COUNT(*) AS n FROM entry_sizes WHERE session_id = ? AND position > ? AND position < ?
         AND kind IN ('user', 'assistant', 'tool_result', 'note')`,
    )
    .get(sessionId, after, last) as { n: number }
  return { texts, omitted: n }
}

/** The entries in (after, through] a request sends, as text. */
export function renderHistory(
  core: SessionsCore,
  sessionId: string,
  after: number,
  through: number,
  clipped: boolean,
): string[] {
  const rows = core
    .sql(
      `SELECT position, kind, content FROM entries WHERE session_id = ? AND position > ? AND position <= ?
         AND kind IN ('user', 'assistant', 'tool_result', 'note') ORDER BY position`,
    )
    .all(sessionId, after, through) as Row[]
  const out: string[] = []
  for (const r of rows) {
    const text = renderEntry(r, clipped)
    if (text !== null) out.push(text)
  }
  return out
}
