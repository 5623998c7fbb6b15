// GET /sessions/{id}/context without HTTP: what the session's next request would hold,
// section by section, with token estimates, and the text of one section of a snapshot.
// Reading the context never prepares a request: no kernel, no credential, no provider; the
// instructions are read as a run would read them, the history is measured in SQLite.
import { createHash } from 'node:crypto'
import type { InstructionSource, SystemParts } from '../instructions/index.ts'
import type { ApprovalPolicy } from '../schemas/common.ts'
import { HearthError } from '../schemas/problems.ts'
import type { SessionsCore } from '../sessions/core.ts'
import type { SessionRow } from '../sessions/types.ts'
import { selectionOf } from '../sessions/views.ts'
import {
  ESTIMATOR,
  type HistoryEstimate,
  historyEstimate,
  MESSAGE_FRAMING_TOKENS,
  tokensOf,
  toolsText,
} from './estimate.ts'
import { type CompactionMark, compactionMessage, latestCompaction, type StrategyName } from './marks.ts'
import { renderHistory } from './render.ts'
import type { SessionTool, SessionTools } from './tools.ts'

export interface CompactionSettings {
  auto: boolean
  threshold_percent: number
  strategy: StrategyName
  keep_turns: number
}

export interface ContextDeps {
  core: SessionsCore
  tools: SessionTools
  /** The model window of the session's model, when the catalogue knows it now. */
  window: (row: SessionRow) => Promise<number | null>
  compaction: () => CompactionSettings
  /** The approval policy sessions without their own follow (settings `tools`). */
  defaultPolicy: () => ApprovalPolicy
  /** The environment block a run of the session would start with now (absent: none). */
  environment?: (row: SessionRow) => Promise<string | null>
}

/** The strategy a session compacts with: its own choice, else the settings'. */
export function strategyOf(
  row: SessionRow,
  settings: CompactionSettings,
): { strategy: StrategyName; keep_turns: number; chosen: boolean } {
  if (row.compaction_strategy) {
    const s = JSON.parse(row.compaction_strategy) as { strategy: StrategyName; keep_turns: number }
    return { ...s, chosen: true }
  }
  return { strategy: settings.strategy, keep_turns: settings.keep_turns, chosen: false }
}

export function policyOf(row: SessionRow, fallback: ApprovalPolicy): ApprovalPolicy {
  return (row.approval_policy as ApprovalPolicy | null) ?? fallback
}

/** The next request as the context reads see it. */
interface Snapshot {
  id: string
  row: SessionRow
  mark: CompactionMark | null
  system: string | null
  parts: SystemParts
  sources: InstructionSource[]
  tools: SessionTool[]
  toolsText: string
  history: HistoryEstimate
}

async function snapshotOf(d: ContextDeps, sessionId: string): Promise<Snapshot> {
  const row = d.core.require(sessionId)
  const environment = d.environment ? await d.environment(row) : null
  const composed = d.core.instructions.of(row.workspace, selectionOf(row), environment)
  const tools = d.tools.offered(sessionId, policyOf(row, d.defaultPolicy()), await d.tools.builtin())
  const text = toolsText(tools)
  const mark = latestCompaction(d.core, sessionId)
  const history = historyEstimate(d.core, sessionId, mark?.through_position ?? 0)
  const id = createHash('sha256')
    .update(
      JSON.stringify([
        row.id,
        row.transcript_count,
        mark?.position ?? 0,
        row.provider_profile,
        row.model,
        composed.system,
        text,
      ]),
    )
    .digest('base64url')
    .slice(0, 22)
  return {
    id,
    row,
    mark,
    system: composed.system,
    parts: composed.parts,
    sources: composed.sources,
    tools,
    toolsText: text,
    history,
  }
}

export type SectionId = 'instructions' | 'tools' | 'compaction' | 'history'

/** Characters per page of a section's text. */
export const SECTION_PAGE_CHARS = 65_536

function sectionsOf(s: Snapshot) {
  const sections: { id: SectionId; title: string; tokens: number; detail: Record<string, unknown> }[] = [
    {
      id: 'instructions',
      title: "System text: hearth's instructions, the instruction files, the skills and the environment",
      tokens: tokensOf(s.system?.length ?? 0),
      detail: {
        chars: s.system?.length ?? 0,
        files: s.sources.filter((f) => f.state === 'loaded').length,
        system_parts: s.parts,
      },
    },
    {
      id: 'tools',
      title: 'Tools offered to the model',
      tokens: tokensOf(s.toolsText.length),
      detail: { count: s.tools.length, chars: s.toolsText.length },
    },
  ]
  if (s.mark) {
    const text = compactionMessage(s.mark)
    sections.push({
      id: 'compaction',
      title: 'The summary that stands for the compacted turns',
      tokens: tokensOf(text.length) + MESSAGE_FRAMING_TOKENS,
      detail: { chars: text.length, compaction_id: s.mark.compaction_id, position: s.mark.position },
    })
  }
  sections.push({
    id: 'history',
    title: 'Turns sent verbatim',
    tokens: s.history.tokens,
    detail: { parts: s.history.parts, messages: s.history.messages },
  })
  return sections
}

export async function contextSummary(d: ContextDeps, sessionId: string) {
  const s = await snapshotOf(d, sessionId)
  const sections = sectionsOf(s)
  const total = sections.reduce((n, x) => n + x.tokens, 0)
  const window = await d.window(s.row)
  const settings = d.compaction()
  const strategy = strategyOf(s.row, settings)
  const usage = s.row.usage
    ? (JSON.parse(s.row.usage) as { prompt_tokens?: number | null; observed_at?: string })
    : null
  return {
    view: 'summary' as const,
    snapshot_id: s.id,
    provider_profile: s.row.provider_profile,
    model: s.row.model,
    window_tokens: window,
    estimated_tokens: total,
    percent_of_window: window ? Math.round((1000 * total) / window) / 10 : null,
    estimator: ESTIMATOR,
    sections: sections.map((x) => ({ id: x.id, title: x.title, tokens: x.tokens, ...x.detail })),
    instructions: s.sources,
    tools: s.tools.map((t) => ({
      name: t.name,
      source: t.source,
      effect: t.effect,
      tokens: tokensOf(toolsText([t]).length),
    })),
    history: {
      high_water: s.row.transcript_count,
      from_position: s.history.from_position,
      to_position: s.history.to_position,
      entries: s.history.entries,
      turns: s.history.turns,
      compacted_through: s.mark?.through_position ?? null,
      compacted_turns: s.mark?.compacted_turns ?? 0,
    },
    compaction: {
      auto: settings.auto,
      threshold_percent: settings.threshold_percent,
      strategy: strategy.strategy,
      keep_turns: strategy.keep_turns,
      strategy_source: strategy.chosen ? ('session' as const) : ('settings' as const),
      would_compact: settings.auto && window !== null && total > (window * settings.threshold_percent) / 100,
      latest: s.mark
        ? {
            compaction_id: s.mark.compaction_id,
            position: s.mark.position,
            created_at: s.mark.created_at,
            strategy: s.mark.strategy,
            trigger: s.mark.trigger,
            through_position: s.mark.through_position,
          }
        : null,
    },
    last_request:
      usage?.prompt_tokens != null
        ? { prompt_tokens: usage.prompt_tokens, observed_at: usage.observed_at ?? null }
        : null,
  }
}

/** The text of a section as the next request sends it. */
function sectionText(d: ContextDeps, s: Snapshot, id: SectionId): string | null {
  if (id === 'instructions') return s.system ?? ''
  if (id === 'tools') return s.tools.length === 0 ? '' : JSON.stringify(JSON.parse(s.toolsText), null, 2)
  if (id === 'compaction') return s.mark ? compactionMessage(s.mark) : null
  return renderHistory(d.core, s.row.id, s.mark?.through_position ?? 0, s.row.transcript_count, false).join(
    '\n\n',
  )
}

/** Page boundaries of a text: SECTION_PAGE_CHARS each, never inside a surrogate pair. */
function pageBounds(text: string): number[] {
  const bounds = [0]
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + SECTION_PAGE_CHARS)
    const code = text.charCodeAt(end - 1)
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end--
    bounds.push(end)
    at = end
  }
  return bounds
}

export async function contextSection(
  d: ContextDeps,
  sessionId: string,
  snapshotId: string,
  sectionId: string,
  page: number,
) {
  const s = await snapshotOf(d, sessionId)
  if (s.id !== snapshotId)
    throw new HearthError(
      'context_changed',
      'The context changed since this snapshot: read the summary again',
    )
  const known = sectionsOf(s).find((x) => x.id === sectionId)
  const text = known ? sectionText(d, s, known.id) : null
  if (!known || text === null)
    throw new HearthError('section_not_found', `The snapshot has no section ${sectionId}`)
  const bounds = pageBounds(text)
  const pages = Math.max(1, bounds.length - 1)
  if (page >= pages) throw new HearthError('section_not_found', `Section ${sectionId} has ${pages} page(s)`)
  return {
    view: 'section' as const,
    snapshot_id: s.id,
    section_id: known.id,
    page,
    pages,
    next_page: page + 1 < pages ? page + 1 : null,
    tokens: known.tokens,
    text: text.slice(bounds[page] ?? 0, bounds[page + 1] ?? 0),
  }
}
