// Token estimates of what a request holds. hearth carries no tokenizer per model: an
// estimate is the characters sent divided by four (the usual rule of thumb for English and
// code with the GPT and Claude tokenizers), four tokens of framing per message and a flat
// figure per image. The history's figures come from SQL aggregates over the entries after
// the last compaction, so a summary reads no entry into JavaScript however long the session.
import type { NeutralMessage } from '../providers/types.ts'
import type { SessionsCore } from '../sessions/core.ts'

export const CHARS_PER_TOKEN = 4
export const MESSAGE_FRAMING_TOKENS = 4
export const IMAGE_TOKENS = 1000
export const ESTIMATOR = 'characters / 4, 4 tokens of framing per message, 1000 per image'

export function tokensOf(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN)
}

/** The history a request sends after the compaction boundary, estimated. */
export interface HistoryEstimate {
  /** First and last positions sent verbatim (null: none). */
  from_position: number | null
  to_position: number | null
  /** Entries sent (user, assistant and tool result entries) and the turns they make. */
  entries: number
  turns: number
  messages: number
  /** Tokens by part; `tokens` is their sum. */
  parts: { user: number; assistant: number; tool_results: number; images: number; framing: number }
  tokens: number
}

interface KindRow {
  kind: string
  n: number
  lo: number
  hi: number
  turns: number
  chars: number | null
  images: number | null
}

// One pass over the entries after the boundary: what each kind sends, measured in SQLite.
const HISTORY_SQL = `SELECT kind, COUNT(*) AS n, MIN(position) AS lo, MAX(position) AS hi,
    COUNT(DISTINCT CASE WHEN kind = 'user' THEN grp END) AS turns,
    SUM(CASE kind
      WHEN 'user' THEN COALESCE(length(json_extract(content, '$.text')), 0)
      WHEN 'assistant' THEN COALESCE(length(json_extract(content, '$.text')), 0)
        + CASE WHEN json_array_length(content, '$.tool_calls') > 0
            THEN length(json_extract(content, '$.tool_calls')) ELSE 0 END
        + COALESCE(length(json_extract(content, '$.replay')), 0)
      ELSE COALESCE(length(json_extract(content, '$.output')), 0) END) AS chars,
    SUM(COALESCE(json_array_length(content, '$.images'), 0)) AS images
  FROM entries WHERE session_id = ? AND position > ? AND kind IN ('user', 'assistant', 'tool_result')
  GROUP BY kind`

export function historyEstimate(core: SessionsCore, sessionId: string, after: number): HistoryEstimate {
  const rows = core.sql(HISTORY_SQL).all(sessionId, after) as KindRow[]
  const of = (kind: string) => rows.find((r) => r.kind === kind)
  const chars = (kind: string) => Math.max(0, of(kind)?.chars ?? 0)
  const entries = rows.reduce((n, r) => n + r.n, 0)
  const images = rows.reduce((n, r) => n + (r.images ?? 0), 0)
  const parts = {
    user: tokensOf(chars('user')),
    assistant: tokensOf(chars('assistant')),
    tool_results: tokensOf(chars('tool_result')),
    images: images * IMAGE_TOKENS,
    framing: entries * MESSAGE_FRAMING_TOKENS,
  }
  const positions = rows.flatMap((r) => [r.lo, r.hi])
  return {
    from_position: positions.length > 0 ? Math.min(...positions) : null,
    to_position: positions.length > 0 ? Math.max(...positions) : null,
    entries,
    turns: of('user')?.turns ?? 0,
    messages: entries,
    parts,
    tokens: parts.user + parts.assistant + parts.tool_results + parts.images + parts.framing,
  }
}

/** Estimated tokens of each section of a request, as the context summary names them. */
export interface RequestEstimate {
  instructions: number
  tools: number
  compaction: number
  history: HistoryEstimate['parts'] & { tokens: number }
  total: number
}

/** The tools as a request carries them (name, description, schema), for their estimate. */
export function toolsText(
  tools: readonly { name: string; description: string; parameters: unknown }[],
): string {
  return tools.length === 0
    ? ''
    : JSON.stringify(tools.map(({ name, description, parameters }) => ({ name, description, parameters })))
}

/**
 * Estimates an assembled request with the same rules as historyEstimate (a tool call or a
 * replayed reasoning item counts as its JSON). `compacted`: its first message is a
 * compaction's summary.
 */
export function estimateRequest(
  request: {
    system: string | null
    tools: readonly { name: string; description: string; parameters: unknown }[]
    messages: readonly NeutralMessage[]
  },
  compacted: boolean,
): RequestEstimate {
  const chars = { user: 0, assistant: 0, tool_results: 0 }
  let images = 0
  let compaction = 0
  for (const [i, m] of request.messages.entries()) {
    if (i === 0 && compacted && m.role === 'user') {
      for (const p of m.content) if (p.type === 'text') compaction += p.text.length
      continue
    }
    if (m.role === 'tool') {
      chars.tool_results += m.content.length
      images += m.images?.length ?? 0
      continue
    }
    for (const p of m.content) {
      if (p.type === 'image') images++
      else if (p.type === 'text') chars[m.role] += p.text.length
      else chars.assistant += JSON.stringify(p).length
    }
  }
  const messages = request.messages.length - (compacted ? 1 : 0)
  const history = {
    user: tokensOf(chars.user),
    assistant: tokensOf(chars.assistant),
    tool_results: tokensOf(chars.tool_results),
    images: images * IMAGE_TOKENS,
    framing: messages * MESSAGE_FRAMING_TOKENS,
    tokens: 0,
  }
  history.tokens = history.user + history.assistant + history.tool_results + history.images + history.framing
  const sections = {
    instructions: tokensOf(request.system?.length ?? 0),
    tools: tokensOf(toolsText(request.tools).length),
    compaction: compacted ? tokensOf(compaction) + MESSAGE_FRAMING_TOKENS : 0,
  }
  return {
    ...sections,
    history,
    total: sections.instructions + sections.tools + sections.compaction + history.tokens,
  }
}
