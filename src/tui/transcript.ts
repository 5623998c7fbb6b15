// The transcript: the session's history as blocks (./blocks.ts), kept up to date from the
// session stream. Entries come from the history pages (./transcript-pages.ts, which this
// builds on: which entries are held, and where live blocks go) and from `entry.added`; a
// output of the run in progress streams into blocks keyed by content id, which the run's final
// entries then complete instead of repeating. The lookups between live blocks and the
// entries that complete them are kept here, with the blocks they make. The window onto it
// is ./window.ts.

import type { ApprovalRequest } from '../client/approval-view.ts'
import {
  AnswerBlock,
  ApprovalBlock,
  type CutText,
  NoticeBlock,
  ReasoningBlock,
  ToolBlock,
  UserBlock,
  wrapped,
} from './blocks.ts'
import type { Component } from './pi.ts'
import type { Theme } from './theme.ts'
import { TranscriptPages } from './transcript-pages.ts'

export interface HistoryEntry {
  id: string
  position: number
  kind: string
  content: Record<string, any>
}

type Payload = Record<string, any>

export class Transcript extends TranscriptPages {
  readonly theme: Theme
  /** Details shown (Ctrl-T): reasoning whole, and all the kept output of tool calls. */
  showReasoning = false
  /** Streaming blocks by content id, and per run the ones its entries have not completed. */
  readonly #live = new Map<string, AnswerBlock | ReasoningBlock>()
  readonly #unfinished = new Map<string, (AnswerBlock | ReasoningBlock)[]>()
  readonly #tools = new Map<string, ToolBlock>()
  readonly #approvals = new Map<string, ApprovalBlock>()
  readonly #pendingUser = new Map<string, UserBlock>()
  /** Runs whose interrupt an answer entry already said, and runs whose `error` entry shows. */
  readonly #interruptedRuns = new Set<string>()
  readonly #failedRuns = new Set<string>()
  /** The open session's workspace: an approval's write is compared with the file there. */
  workspace: string | undefined
  /** Reads an entry's whole text (its content pages); set by the session link. */
  readWhole: (entryId: string) => Promise<string> = () => Promise.reject(new Error('no session'))
  /** Asks for a frame (a whole text arrived). */
  redraw: () => void = () => {}

  constructor(theme: Theme) {
    super()
    this.theme = theme
  }

  notice(text: string, style: (s: string) => string = this.theme.dim): void {
    this.add(new NoticeBlock(text, style))
  }

  /** A message sent from here, shown until its entry arrives. */
  sent(inputId: string, text: string): void {
    const b = new UserBlock(this.theme, text, inputId, true)
    this.#pendingUser.set(inputId, b)
    this.add(b)
  }

  /** Blocks for history entries (a tool call's block is completed by its result). */
  blocksOf(entries: HistoryEntry[]): Component[] {
    const out: Component[] = []
    for (const e of entries) this.place(e, out)
    return out
  }

  /**
   * Puts an entry's block at the end of `into`: a live block it completes (a streamed answer,
   * a message sent from here, a tool call's block) moves there, else a block is made.
   */
  protected place(e: HistoryEntry, into: Component[]): void {
    const t = this.theme
    const c = e.content
    const move = (b: Component) => {
      const i = this.aside.indexOf(b)
      if (i >= 0) this.aside.splice(i, 1)
      if (!into.includes(b)) into.push(b)
    }
    if (e.kind === 'user' && c.input_id && this.#pendingUser.has(c.input_id)) {
      const b = this.#pendingUser.get(c.input_id) as UserBlock
      this.#pendingUser.delete(c.input_id)
      b.delivered()
      move(b)
    } else if (e.kind === 'assistant' || e.kind === 'reasoning') {
      // The streamed block of the same kind completes instead of a second copy.
      const list = this.#unfinished.get(c.run_id) ?? []
      const i = list.findIndex((b) => (e.kind === 'assistant') === b instanceof AnswerBlock)
      if (c.status === 'interrupted' && c.run_id) this.#interruptedRuns.add(c.run_id)
      if (i >= 0) {
        // The streamed text is whole; the entry's may be cut.
        const [b] = list.splice(i, 1)
        const text = c.truncated ? undefined : String(c.text ?? '')
        if (b instanceof AnswerBlock) b.finish(text, c.status)
        else b.finish(text)
        move(b)
      } else if (e.kind === 'assistant') {
        const b = new AnswerBlock(t, c.run_id, String(c.text ?? ''), c.status)
        if (c.truncated) b.cut(this.#wholeOf(e, c))
        into.push(b)
      } else into.push(new ReasoningBlock(t, () => this.showReasoning, c.run_id, String(c.text ?? '')))
    } else if (e.kind === 'tool_call') {
      // A call's block; its result (the next entries, or tool.ended live) completes it.
      move(this.#tools.get(c.call_id) ?? this.#toolBlock(c))
    } else if (e.kind === 'tool_result') {
      const b = this.#tools.get(c.call_id)
      if (b) {
        if (!b.ended) b.end(String(c.outcome), c.output, c.meta)
      } else into.push(new NoticeBlock(`${c.name ?? 'tool'}: ${c.outcome}`, t.dim))
    } else if (e.kind === 'user') {
      const b = new UserBlock(t, String(c.text ?? ''), c.input_id, false)
      if (c.truncated) b.cut(this.#wholeOf(e, c))
      into.push(b)
    } else if (e.kind === 'error') {
      if (c.run_id) this.#failedRuns.add(c.run_id)
      into.push(new NoticeBlock(problemLine(c.problem), t.error))
    } else into.push(new NoticeBlock(`[${e.kind}] ${String(c.text ?? c.summary ?? '')}`, t.dim))
  }

  /** How a cut entry's whole text is read once its block comes into view. */
  #wholeOf(e: HistoryEntry, c: Payload): CutText {
    return {
      bytes: Number(c.text_bytes) || undefined,
      read: () => this.readWhole(e.id),
      redraw: () => this.redraw(),
    }
  }

  #toolBlock(p: Payload): ToolBlock {
    const b = new ToolBlock(
      this.theme,
      p.call_id,
      String(p.name),
      String(p.summary ?? ''),
      p.effect ?? undefined,
      () => this.showReasoning,
    )
    this.#tools.set(p.call_id, b)
    return b
  }

  /** Whether a block still changes (it stays when its page is dropped). */
  protected isLive(b: Component): boolean {
    if (b instanceof ToolBlock) return !b.ended
    if (b instanceof ApprovalBlock) return b.open
    if (b instanceof UserBlock) return b.inputId !== undefined && this.#pendingUser.get(b.inputId) === b
    if (b instanceof AnswerBlock || b instanceof ReasoningBlock)
      return b.runId !== undefined && (this.#unfinished.get(b.runId)?.includes(b) ?? false)
    return false
  }

  /** Forgets the lookups of dropped blocks that no longer change. */
  protected forget(blocks: Component[]): void {
    for (const b of blocks) {
      if (this.isLive(b) && this.aside.includes(b)) continue
      if (b instanceof ToolBlock && this.#tools.get(b.callId) === b) this.#tools.delete(b.callId)
      if (b instanceof ApprovalBlock && !b.open) this.#approvals.delete(b.requestId)
    }
  }

  /** Applies one session event; returns whether the transcript changed. */
  apply(event: string, p: Payload): boolean {
    const t = this.theme
    switch (event) {
      case 'entry.added':
        return this.entryAdded(p.entry as HistoryEntry)
      case 'output.started': {
        const b =
          p.kind === 'reasoning'
            ? new ReasoningBlock(t, () => this.showReasoning, p.run_id)
            : new AnswerBlock(t, p.run_id)
        this.#live.set(p.content_id, b)
        const list = this.#unfinished.get(p.run_id) ?? []
        list.push(b)
        this.#unfinished.set(p.run_id, list)
        this.add(b)
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
        this.add(this.#toolBlock(p))
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
        const request = { ...p, tool: String(p.tool), summary: String(p.summary ?? '') } as ApprovalRequest
        const b = new ApprovalBlock(t, request, p.run_id, this.workspace)
        this.#approvals.set(p.request_id, b)
        // Asked under the call's own block when it shows, so the call is named once.
        const call = p.call_id === undefined ? undefined : this.#tools.get(p.call_id)
        if (call && !call.ended) call.ask(b)
        else this.add(b)
        return true
      }
      case 'approval.decided': {
        const b = this.#approvals.get(p.request_id)
        if (!b) return false
        b.decided(String(p.decision), p.remember)
        return true
      }
      case 'run.ended':
        return this.#runEnded(p)
      default:
        return false
    }
  }

  /**
   * A run ended: its streamed answers are finished, its approvals no longer wait (the daemon
   * expires them), and an interrupt is said once: by the answer it cut, else by a notice.
   */
  #runEnded(p: Payload): boolean {
    const interrupted = p.outcome === 'interrupted'
    let said = this.#interruptedRuns.has(p.run_id)
    for (const b of this.#unfinished.get(p.run_id) ?? []) {
      if (!(b instanceof AnswerBlock)) continue
      b.finish(undefined, interrupted ? 'interrupted' : undefined)
      said = true
    }
    this.#unfinished.delete(p.run_id)
    for (const [id, b] of this.#live) if (b.runId === p.run_id) this.#live.delete(id)
    for (const b of this.#approvals.values())
      if (b.runId === undefined || b.runId === p.run_id) b.close('not answered: the run ended')
    if (interrupted && !said) this.notice('(interrupted)', this.theme.warn)
    this.#interruptedRuns.delete(p.run_id)
    return true
  }

  /** Whether the run's failure was shown (its `error` entry), so it is not said twice. */
  failureShown(runId: string): boolean {
    return this.#failedRuns.has(runId)
  }

  /** The approval that keys answer: the oldest one open and not yet answered from here. */
  get openApproval(): ApprovalBlock | undefined {
    for (const b of this.#approvals.values()) if (b.askable) return b
    return undefined
  }

  /**
   * The session's own state says which request waits (`status.blocking_reason`, read again):
   * any other still open here was decided or expired while this client did not see it.
   */
  settleApprovals(waiting: string | undefined): void {
    for (const b of this.#approvals.values())
      if (b.requestId !== waiting) b.close('no longer waiting (decided elsewhere or expired)')
  }

  /** Closes one request the daemon said is no longer pending. */
  closeApproval(requestId: string, why: string): void {
    this.#approvals.get(requestId)?.close(why)
  }
  /** Forgets everything (another session is opened in the same screen). */
  override clear(): void {
    super.clear()
    this.#live.clear()
    this.#unfinished.clear()
    this.#tools.clear()
    this.#approvals.clear()
    this.#pendingUser.clear()
    this.#interruptedRuns.clear()
    this.#failedRuns.clear()
  }

  /** Redraws every block (reasoning shown or hidden, a new width). */
  invalidate(): void {
    for (const b of this.blocks) b.invalidate?.()
    for (const b of this.aside) b.invalidate?.()
  }
}

export function problemLine(problem: Payload | null | undefined): string {
  if (!problem) return 'the turn failed'
  return `${problem.code ?? 'error'}: ${problem.detail ?? problem.title ?? ''}`
}

export { wrapped }
