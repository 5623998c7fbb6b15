// `/context` and `/compact` of the chat clients (line mode and the terminal client): the
// context summary as a table, and a compaction with its outcome in a line or two.
import type { Static } from 'typebox'
import type { CompactionResult, ContextSummary } from '../schemas/context.ts'
import type { HearthClient } from './client.ts'

type Summary = Static<typeof ContextSummary>
type Result = Static<typeof CompactionResult>

const n = (v: number) => v.toLocaleString('en-US')

/** The context summary of a session as a table of plain text lines. */
export function contextTable(c: Summary): string {
  const window = c.window_tokens ? `${n(c.window_tokens)}-token window` : 'window unknown'
  const share = c.percent_of_window !== null ? ` (${c.percent_of_window}% of it)` : ''
  const lines = [
    `${c.model} on ${c.provider_profile}, ${window}: the next request holds ~${n(c.estimated_tokens)} tokens${share}`,
  ]
  const width = Math.max(...c.sections.map((s) => n(s.tokens).length), 6)
  const row = (name: string, tokens: number) => `  ${name.padEnd(14)} ${n(tokens).padStart(width)}`
  lines.push(`  ${'section'.padEnd(14)} ${'tokens'.padStart(width)}`)
  for (const s of c.sections) {
    lines.push(row(s.id, s.tokens))
    if (s.id === 'history' && s.parts)
      for (const [part, tokens] of Object.entries(s.parts))
        if (tokens > 0) lines.push(row(`  ${part}`, tokens))
    if (s.id === 'instructions' && s.system_parts)
      for (const [part, chars] of Object.entries(s.system_parts))
        if (chars > 0) lines.push(row(`  ${part}`, Math.ceil(chars / 4)))
  }
  lines.push(row('total', c.estimated_tokens))
  const h = c.history
  const span =
    h.from_position !== null
      ? `entries ${h.from_position}–${h.to_position} verbatim (${h.turns} turns)`
      : 'no turns yet'
  const compacted = h.compacted_through !== null ? `; ${h.compacted_turns} earlier turns compacted` : ''
  lines.push(`history: ${span}${compacted}`)
  lines.push(`tools: ${c.tools.length} (${c.tools.map((t) => t.name).join(', ')})`)
  const k = c.compaction
  lines.push(
    `compaction: automatic ${k.auto ? `at ${k.threshold_percent}%` : 'off'}, ${k.strategy} keeping ${k.keep_turns} turns${k.would_compact ? '; the next request will be compacted first' : ''}`,
  )
  return lines.join('\n')
}

export async function readContext(client: HearthClient, sessionId: string): Promise<string> {
  const { body } = await client.call('sessions.context', { params: { session_id: sessionId }, query: {} })
  return contextTable(body as Summary)
}

/** Parses `/compact` arguments: `[summarize|truncate] [N] [focus…]`. */
export function compactArgs(args: string): {
  strategy?: 'summarize' | 'truncate'
  keep_turns?: number
  focus?: string
} {
  const words = args.split(/\s+/).filter((w) => w !== '')
  const out: { strategy?: 'summarize' | 'truncate'; keep_turns?: number; focus?: string } = {}
  if (words[0] === 'summarize' || words[0] === 'truncate')
    out.strategy = words.shift() as 'summarize' | 'truncate'
  if (words[0] !== undefined && /^\d+$/.test(words[0])) out.keep_turns = Number(words.shift())
  if (words.length > 0) out.focus = words.join(' ')
  return out
}

/** What a compaction did, in a line or two. */
export function compactionText(r: Result): string {
  const lines: string[] = []
  const sel = r.selection
  if (sel.outcome === 'selected')
    lines.push(`strategy: ${sel.strategy}, keeping ${sel.keep_turns} turns (kept for this session)`)
  if (sel.outcome === 'rejected')
    lines.push(`strategy ${sel.strategy} refused: ${sel.problem?.detail ?? sel.problem?.title}`)
  const c = r.compaction
  if (c.outcome === 'completed' && c.entry)
    lines.push(
      `compacted ${c.entry.compacted_turns} turns: ~${n(c.entry.tokens_before)} → ~${n(c.entry.tokens_after)} tokens; the history keeps every entry`,
    )
  else if (c.outcome === 'unchanged') lines.push('nothing to compact: no turn lies before the ones kept')
  else if (c.outcome === 'failed') lines.push(`compaction failed: ${c.problem?.detail ?? c.problem?.title}`)
  return lines.join('\n')
}

export async function compact(client: HearthClient, sessionId: string, args: string): Promise<string> {
  const { body } = await client.call('sessions.compaction', {
    params: { session_id: sessionId },
    body: compactArgs(args),
  })
  return compactionText(body as Result)
}
