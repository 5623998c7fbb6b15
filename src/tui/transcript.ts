// The transcript: the session's history as blocks (./blocks.ts), kept up to date from the
// session stream, and a window onto it. Entries come from the history (pages read as the
// reader scrolls up) and from `entry.added`; a running turn's output streams into blocks
// keyed by content id, which the turn's final entries then complete instead of repeating.

import {
  AnswerBlock,
  ApprovalBlock,
  NoticeBlock,
  ReasoningBlock,
  ToolBlock,
  UserBlock,
  wrapped,
} from './blocks.ts'
import type { Component } from './pi.ts'
import type { Theme } from './theme.ts'

export interface HistoryEntry {
  id: string
  position: number
  kind: string
  content: Record<string, any>
}

type Payload = Record<string, any>

export class Transcript {
  readonly theme: Theme
  blocks: Component[] = []
  showReasoning = false
  /** Streaming blocks by content id, and per run the ones its entries have not completed. */
  readonly #live = new Map<string, AnswerBlock | ReasoningBlock>()
  readonly #unfinished = new Map<string, (AnswerBlock | ReasoningBlock)[]>()
  readonly #tools = new Map<string, ToolBlock>()
  readonly #approvals = new Map<string, ApprovalBlock>()
  readonly #pendingUser = new Map<string, UserBlock>()

  constructor(theme: Theme) {
    this.theme = theme
  }

  #add(block: Component): void {
    this.blocks.push(block)
  }

  notice(text: string, style: (s: string) => string = this.theme.dim): void {
    this.#add(new NoticeBlock(text, style))
  }

  /** A message sent from here, shown until its entry arrives. */
  sent(inputId: string, text: string): void {
    const b = new UserBlock(this.theme, text, inputId, true)
    this.#pendingUser.set(inputId, b)
    this.#add(b)
  }

  /** Blocks for history entries (older ones go before what is held). */
  blocksOf(entries: HistoryEntry[]): Component[] {
    const t = this.theme
    const out: Component[] = []
    for (const e of entries) {
      const c = e.content
      if (e.kind === 'tool_call') {
        // A call's block; its result (the next entries, or tool.ended live) completes it.
        const b = this.#tools.get(c.call_id) ?? this.#toolBlock(c)
        if (!out.includes(b) && !this.blocks.includes(b)) out.push(b)
      } else if (e.kind === 'tool_result') {
        const b = this.#tools.get(c.call_id)
        if (b) {
          if (!b.ended) b.end(String(c.outcome), c.output, c.meta)
        } else out.push(new NoticeBlock(`${c.name ?? 'tool'}: ${c.outcome}`, t.dim))
      } else if (e.kind === 'user') out.push(new UserBlock(t, String(c.text ?? ''), c.input_id, false))
      else if (e.kind === 'assistant') out.push(new AnswerBlock(t, c.run_id, String(c.text ?? ''), c.status))
      else if (e.kind === 'reasoning')
        out.push(new ReasoningBlock(t, () => this.showReasoning, c.run_id, String(c.text ?? '')))
      else if (e.kind === 'error') out.push(new NoticeBlock(problemLine(c.problem), t.error))
      else out.push(new NoticeBlock(`[${e.kind}] ${String(c.text ?? c.summary ?? '')}`, t.dim))
    }
    return out
  }

  #toolBlock(p: Payload): ToolBlock {
    const b = new ToolBlock(
      this.theme,
      p.call_id,
      String(p.name),
      String(p.summary ?? ''),
      p.effect ?? undefined,
    )
    this.#tools.set(p.call_id, b)
    return b
  }

  prependHistory(entries: HistoryEntry[]): void {
    if (entries.length === 0) return
    this.blocks = [...this.blocksOf(entries), ...this.blocks]
  }

  /** Applies one session event; returns whether the transcript changed. */
  apply(event: string, p: Payload): boolean {
    const t = this.theme
    switch (event) {
      case 'entry.added':
        return this.#entryAdded(p.entry as HistoryEntry)
      case 'output.started': {
        const b =
          p.kind === 'reasoning'
            ? new ReasoningBlock(t, () => this.showReasoning, p.run_id)
            : new AnswerBlock(t, p.run_id)
        this.#live.set(p.content_id, b)
        const list = this.#unfinished.get(p.run_id) ?? []
        list.push(b)
        this.#unfinished.set(p.run_id, list)
        this.#add(b)
        return true
      }
      case 'output.delta': {
        const b = this.#live.get(p.content_id)
        if (!b) return false
        b.append(String(p.delta))
        return true
      }
      case 'tool.started': {
        // Its tool_call entry, added when the step ended, usually made the block already.
        if (this.#tools.has(p.call_id)) return false
        this.#add(this.#toolBlock(p))
        return true
      }
      case 'tool.progress': {
        const b = this.#tools.get(p.call_id)
        if (!b) return false
        b.progress(String(p.text ?? ''))
        return true
      }
      case 'tool.ended': {
        const b = this.#tools.get(p.call_id)
        if (!b) return false
        b.end(String(p.outcome), p.output, p.meta)
        return true
      }
      case 'approval.requested': {
        if (this.#approvals.has(p.request_id)) return false
        const b = new ApprovalBlock(t, p.request_id, String(p.tool), String(p.summary ?? ''), p.effect)
        this.#approvals.set(p.request_id, b)
        this.#add(b)
        return true
      }
      case 'approval.decided': {
        const b = this.#approvals.get(p.request_id)
        if (!b) return false
        b.decided(String(p.decision))
        return true
      }
      case 'run.ended': {
        for (const b of this.#unfinished.get(p.run_id) ?? []) {
          if (b instanceof AnswerBlock)
            b.finish(undefined, p.outcome === 'interrupted' ? 'interrupted' : undefined)
        }
        this.#unfinished.delete(p.run_id)
        if (p.outcome === 'interrupted') this.notice('(interrupted)', t.warn)
        return true
      }
      default:
        return false
    }
  }

  /** The approval waiting for an answer, the oldest first. */
  get openApproval(): ApprovalBlock | undefined {
    for (const b of this.#approvals.values()) if (b.open) return b
    return undefined
  }

  #entryAdded(e: HistoryEntry): boolean {
    if (!e) return false
    const c = e.content
    if (e.kind === 'user' && c.input_id && this.#pendingUser.has(c.input_id)) {
      this.#pendingUser.get(c.input_id)?.delivered()
      this.#pendingUser.delete(c.input_id)
      return true
    }
    if (e.kind === 'assistant' || e.kind === 'reasoning') {
      // The streamed block of the same kind completes instead of a second copy.
      const list = this.#unfinished.get(c.run_id) ?? []
      const i = list.findIndex((b) => (e.kind === 'assistant') === b instanceof AnswerBlock)
      if (i >= 0) {
        const [b] = list.splice(i, 1)
        const text = c.truncated ? undefined : String(c.text ?? '')
        if (b instanceof AnswerBlock) b.finish(text, c.status)
        else b.finish(text)
        return true
      }
    }
    for (const b of this.blocksOf([e])) this.#add(b)
    return true
  }

  /** Forgets everything (another session is opened in the same screen). */
  clear(): void {
    this.blocks = []
    this.#live.clear()
    this.#unfinished.clear()
    this.#tools.clear()
    this.#approvals.clear()
    this.#pendingUser.clear()
  }

  /** Redraws every block (reasoning shown or hidden, a new width). */
  invalidate(): void {
    for (const b of this.blocks) b.invalidate?.()
  }
}

export function problemLine(problem: Payload | null | undefined): string {
  if (!problem) return 'the turn failed'
  return `${problem.code ?? 'error'}: ${problem.detail ?? problem.title ?? ''}`
}

/**
 * The lines of a window `height` rows tall over the transcript, `offset` rows up from the
 * bottom. Only the blocks that reach the window are rendered; returns the rows and whether
 * the window reaches the top of what is held (then older history can be read).
 */
export function windowOf(
  t: Transcript,
  width: number,
  height: number,
  offset: number,
): { lines: string[]; atTop: boolean; offset: number } {
  const need = height + offset
  const collected: string[][] = []
  let count = 0
  let i = t.blocks.length - 1
  for (; i >= 0 && count < need; i--) {
    const lines = t.blocks[i].render(width)
    // A blank line above each block; the first block's is dropped below.
    collected.push(lines, [''])
    count += lines.length + 1
  }
  const all = collected.reverse().flat()
  const atTop = i < 0
  if (atTop) all.shift()
  // Scrolled past the top: stop at the first line.
  const maxOffset = Math.max(0, all.length - height)
  const off = atTop ? Math.min(offset, maxOffset) : offset
  const end = all.length - off
  const lines = all.slice(Math.max(0, end - height), end)
  return { lines, atTop: atTop && off >= maxOffset, offset: off }
}

export { wrapped }
