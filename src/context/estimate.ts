// Token estimates of what a request holds. hearth carries no tokenizer per model: an
// estimate is the characters sent divided by four (the usual rule of thumb for English and
// code with the GPT and Claude tokenizers), four tokens of framing per message and a flat
// figure per image. The history's figures come from SQL aggregates over the entries after
// the last compaction (table entry_sizes), so a summary reads no entry's JSON however long
// the session.
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
  /**
   * Entries sent (user, assistant and tool result entries) and the runs they make, as the
   * public field `turns` counts them: display groups with a user message.
   */
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

/** What the entries in (after, through] send, summed: the cached part of an estimate. */
interface Sums {
  after: number
  through: number
  entries: number
  /** Display groups with a user message: the runs (the SQL's `turns`). */
  runs: number
  lo: number | null
  hi: number | null
  chars: { user: number; assistant: number; tool_result: number }
  images: number
}

// One pass over a range of entries' sizes (table entry_sizes, filled by triggers on insert:
// the characters each entry sends and its images, as the same rules measure them).
const RANGE_SQL = `SELECT kind, COUNT(*) AS n, MIN(position) AS lo, MAX(position) AS hi,
    COUNT(DISTINCT CASE WHEN kind = 'user' THEN grp END) AS turns, SUM(chars) AS chars, SUM(images) AS images
  FROM entry_sizes WHERE session_id = ? AND position > ? AND position <= ?
    AND kind IN ('user', 'assistant', 'tool_result')
  GROUP BY kind`

/** Sessions whose sums are kept (least recently used go first). */
const CACHED_SESSIONS = 1024

/**
 * Entries never change once committed (the history only grows), so the sums of a session's
 * range are kept and extended by the entries added since: a summary of a long session reads
 * only what is new. The first estimate of a session after a start reads its whole range.
 */
const cache = new WeakMap<SessionsCore, Map<string, Sums>>()

function addRange(core: SessionsCore, sessionId: string, s: Sums, through: number): Sums {
  if (through <= s.through) return s
  const rows = core.sql(RANGE_SQL).all(sessionId, s.through, through) as KindRow[]
  const next: Sums = { ...s, chars: { ...s.chars }, through }
  for (const r of rows) {
    next.entries += r.n
    next.runs += r.turns
    next.images += r.images ?? 0
    next.lo = next.lo === null ? r.lo : Math.min(next.lo, r.lo)
    next.hi = next.hi === null ? r.hi : Math.max(next.hi, r.hi)
    const kind = r.kind as keyof Sums['chars']
    next.chars[kind] += Math.max(0, r.chars ?? 0)
  }
  return next
}

function sumsOf(core: SessionsCore, sessionId: string, after: number): Sums {
  let sessions = cache.get(core)
  if (!sessions) {
    sessions = new Map()
    cache.set(core, sessions)
  }
  const through = core.row(sessionId)?.transcript_count ?? 0
  const kept = sessions.get(sessionId)
  const start: Sums =
    kept && kept.after === after && kept.through <= through
      ? kept
      : {
          after,
          through: after,
          entries: 0,
          runs: 0,
          lo: null,
          hi: null,
          chars: { user: 0, assistant: 0, tool_result: 0 },
          images: 0,
        }
  const sums = addRange(core, sessionId, start, through)
  sessions.delete(sessionId)
  sessions.set(sessionId, sums)
  if (sessions.size > CACHED_SESSIONS) sessions.delete(sessions.keys().next().value as string)
  return sums
}

export function historyEstimate(core: SessionsCore, sessionId: string, after: number): HistoryEstimate {
  const s = sumsOf(core, sessionId, after)
  const parts = {
    user: tokensOf(s.chars.user),
    assistant: tokensOf(s.chars.assistant),
    tool_results: tokensOf(s.chars.tool_result),
    images: s.images * IMAGE_TOKENS,
    framing: s.entries * MESSAGE_FRAMING_TOKENS,
  }
  return {
    from_position: s.lo,
    to_position: s.hi,
    entries: s.entries,
    turns: s.runs,
    messages: s.entries,
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

/** Each schema's JSON, for toolsChars: a tool's schema object is built once and never changed. */
const schemaJson = new WeakMap<object, string>()

function jsonOfSchema(parameters: unknown): string | undefined {
  if (parameters === null || typeof parameters !== 'object') return JSON.stringify(parameters)
  let json = schemaJson.get(parameters)
  if (json === undefined) {
    json = JSON.stringify(parameters)
    schemaJson.set(parameters, json)
  }
  return json
}

/**
 * The length of toolsText(tools), without writing it: every step offers the same schemas,
 * whose JSON (tens of kilobytes with the built-in tools) is written once per schema object.
 */
export function toolsChars(
  tools: readonly { name: string; description: string; parameters: unknown }[],
): number {
  if (tools.length === 0) return 0
  let chars = 1 + tools.length // the brackets and the commas between the tools
  for (const { name, description, parameters } of tools) {
    const schema = jsonOfSchema(parameters)
    const head = JSON.stringify({ name, description })
    // `{"name":…,"description":…` then `,"parameters":…}`; an undefined schema is left out.
    chars += head.length + (schema === undefined ? 0 : ',"parameters":'.length + schema.length)
  }
  return chars
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
    tools: tokensOf(toolsChars(request.tools)),
    compaction: compacted ? tokensOf(compaction) + MESSAGE_FRAMING_TOKENS : 0,
  }
  return {
    ...sections,
    history,
    total: sections.instructions + sections.tools + sections.compaction + history.tokens,
  }
}
