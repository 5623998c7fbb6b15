// Where a session's window goes, as blocks of a bar: each section (and the history's and
// instructions' parts) with its share of the window, the free rest, and the compaction
// threshold. Pure arithmetic, so the screen only draws.
import type { Static } from 'typebox'
import type { ContextSummary } from '../../../../schemas/context.ts'

export type Summary = Static<typeof ContextSummary>

export interface Block {
  id: string
  label: string
  tokens: number
  /** Share of the bar, 0–100. */
  percent: number
  kind: 'section' | 'part' | 'free'
}

/** The parts a section splits into (tokens), or undefined to show the section whole. */
function partsOf(s: Summary['sections'][number]): [string, number][] | undefined {
  if (s.id === 'history' && s.parts) return Object.entries(s.parts).filter(([, t]) => t > 0)
  if (s.id === 'instructions' && s.system_parts)
    return Object.entries(s.system_parts)
      .filter(([, chars]) => chars > 0)
      .map(([name, chars]) => [name, Math.ceil(chars / 4)])
  return undefined
}

/**
 * The bar's blocks: against the window when it is known (the rest shown free), else against
 * the estimate. Parts are scaled to their section's tokens so the blocks add up.
 */
export function blocksOf(c: Summary): { blocks: Block[]; whole: number } {
  const whole = Math.max(c.window_tokens ?? 0, c.estimated_tokens, 1)
  const pct = (t: number) => (t / whole) * 100
  const blocks: Block[] = []
  for (const s of c.sections) {
    if (s.tokens === 0) continue
    const parts = partsOf(s)
    const sum = parts?.reduce((n, [, t]) => n + t, 0) ?? 0
    if (!parts || sum === 0) {
      blocks.push({ id: s.id, label: s.title, tokens: s.tokens, percent: pct(s.tokens), kind: 'section' })
      continue
    }
    for (const [name, t] of parts) {
      const tokens = Math.round((t / sum) * s.tokens)
      blocks.push({
        id: `${s.id}.${name}`,
        label: `${s.id}: ${name.replace('_', ' ')}`,
        tokens,
        percent: pct(tokens),
        kind: 'part',
      })
    }
  }
  if (c.window_tokens && c.window_tokens > c.estimated_tokens) {
    const free = c.window_tokens - c.estimated_tokens
    blocks.push({ id: 'free', label: 'free', tokens: free, percent: pct(free), kind: 'free' })
  }
  return { blocks, whole }
}
