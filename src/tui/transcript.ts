// The transcript: the session's history as blocks (./blocks.ts), kept up to date from the
// session stream. Entries come from the history in pages (read as the reader scrolls, at most
// KEEP_PAGES held: a long session is never held whole) and from `entry.added`; a running
// turn's output streams into blocks keyed by content id, which the turn's final entries then
// complete instead of repeating. The window onto it is ./window.ts. One model, kept in one
// file: the pages, the live blocks and the lookups between them change together.

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

export interface HistoryEntry {
  id: string
  position: number
  kind: string
  content: Record<string, any>
}

type Payload = Record<string, any>

/** Pages held at most: reading past them drops the page at the other end (read again later). */
export const KEEP_PAGES = 4
/** Entries that arrived while the newest page was not held, kept at most (then read again). */
const ASIDE_MAX = 200

/** A run of history entries [first, last] and their blocks (the newest page also holds live ones). */
interface Page {
  first: number
  last: number
  blocks: Component[]
}

const emptyPage = (): Page => ({ first: 1, last: 0, blocks: [] })

export class Transcript {
  readonly theme: Theme
  /** Details shown (Ctrl-T): reasoning whole, and all the kept output of tool calls. */
  showReasoning = false
  /** Contiguous pages of the history, oldest first; at most KEEP_PAGES. */
  #pages: Page[] = [emptyPage()]
  /** Whether the last page is the live end of the session (new entries and events go there). */
  #atEnd = true
  /** Whether entries before the first page exist. */
  hasOlder = false
  /** Live blocks made while the end is not held; they join it once it is read again. */
  #aside: Component[] = []
  /** entry.added events that came while the end was being read; replayed once it is held. */
  #buffered: HistoryEntry[] | undefined
  /** Rows added (+) or dropped (-) below the window since the screen last asked. */
  #shift = 0
  #width = 0
  #flat: Component[] | undefined
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
    this.theme = theme
  }

  /** Every block held, oldest first. */
  get blocks(): Component[] {
    this.#flat ??= this.#pages.flatMap((p) => p.blocks)
    return this.#flat
  }

  /** Whether the newest entries are held (live events show). */
  get atEnd(): boolean {
    return this.#atEnd
  }

  /** The positions of the first and last entries held. */
  get firstPosition(): number {
    return this.#pages[0].first
  }
  get lastPosition(): number {
    return this.#pages[this.#pages.length - 1].last
  }

  /** How many history entries the pages hold (what memory grows with). */
  get heldEntries(): number {
    return this.#pages.reduce((n, p) => n + Math.max(0, p.last - p.first + 1), 0)
  }

  get heldPages(): number {
    return this.#pages.length
  }

  /** Rows added or dropped below the window since the last call (the screen keeps its place). */
  takeShift(): number {
    const s = this.#shift
    this.#shift = 0
    return s
  }

  /** The width the window was last drawn at (to count the rows of pages added or dropped). */
  set width(w: number) {
    this.#width = w
  }

  #changed(): void {
    this.#flat = undefined
  }

  #rows(blocks: Component[]): number {
    if (this.#width <= 0) return 0
    return blocks.reduce((n, b) => n + b.render(this.#width).length + 1, 0)
  }

  #add(block: Component): void {
    if (!this.#atEnd) {
      this.#aside.push(block)
      return
    }
    this.#pages[this.#pages.length - 1].blocks.push(block)
    this.#changed()
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

  /** Blocks for history entries (a tool call's block is completed by its result). */
  blocksOf(entries: HistoryEntry[]): Component[] {
    const out: Component[] = []
    for (const e of entries) this.#place(e, out)
    return out
  }

  /**
   * Puts an entry's block at the end of `into`: a live block it completes (a streamed answer,
   * a message sent from here, a tool call's block) moves there, else a block is made.
   */
  #place(e: HistoryEntry, into: Component[]): void {
    const t = this.theme
    const c = e.content
    const move = (b: Component) => {
      const i = this.#aside.indexOf(b)
      if (i >= 0) this.#aside.splice(i, 1)
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

  /**
   * The page of entries before the first held (`more`: whether older ones exist). Past
   * KEEP_PAGES the newest page is dropped; its live blocks wait aside.
   */
  prependHistory(entries: HistoryEntry[], more = false): void {
    this.hasOlder = more
    if (entries.length === 0) return
    const blocks = this.blocksOf(entries)
    const first = this.#pages[0]
    const range = { first: entries[0].position, last: entries[entries.length - 1].position }
    // The first page read into a transcript with no entries yet (only notices) takes its place.
    if (first.last < first.first) this.#pages[0] = { ...range, blocks: [...blocks, ...first.blocks] }
    else this.#pages.unshift({ ...range, blocks })
    while (this.#pages.length > KEEP_PAGES) this.#dropNewest()
    this.#changed()
  }

  /**
   * The page of entries after the last held; `end`: it reaches the newest entry, so the
   * transcript is live again (the blocks made aside join it). Past KEEP_PAGES the oldest
   * page is dropped.
   */
  appendHistory(entries: HistoryEntry[], end: boolean): void {
    const before = this.#atEnd
    const page: Page = { first: this.lastPosition + 1, last: this.lastPosition, blocks: [] }
    for (const e of entries) {
      if (e.position <= page.last) continue
      this.#place(e, page.blocks)
      page.last = e.position
    }
    this.#pages.push(page)
    if (end && !before) this.#attach(page)
    else this.#buffered = undefined
    this.#shift += this.#rows(page.blocks)
    while (this.#pages.length > KEEP_PAGES) {
      this.#pages.shift()
      this.hasOlder = true
    }
    this.#changed()
  }

  /** Starts reading the end: entries that arrive meanwhile wait for it. */
  readingEnd(): void {
    if (!this.#atEnd) this.#buffered ??= []
  }

  /** The read of the end failed: entries that arrive are not kept for it. */
  readFailed(): void {
    this.#buffered = undefined
  }

  /** Replaces what is held with the newest page (`more`: older entries exist). */
  showNewest(entries: HistoryEntry[], more: boolean): void {
    this.#forget(this.#pages.flatMap((p) => p.blocks))
    const start = entries.length > 0 ? entries[0].position : this.lastPosition + 1
    const page: Page = { first: start, last: start - 1, blocks: [] }
    for (const e of entries) {
      this.#place(e, page.blocks)
      page.last = e.position
    }
    this.#pages = [page]
    if (!this.#atEnd) this.#attach(page)
    this.hasOlder = more
    this.#shift = 0
    this.#changed()
  }

  /** The newest page is held again: the live blocks made aside and the entries that came meanwhile join it. */
  #attach(page: Page): void {
    this.#atEnd = true
    for (const b of this.#aside) page.blocks.push(b)
    this.#aside = []
    const buffered = this.#buffered ?? []
    this.#buffered = undefined
    for (const e of buffered) this.#entryAdded(e)
  }

  /** Drops the newest page: its live blocks wait aside until the end is read again. */
  #dropNewest(): void {
    const page = this.#pages.pop() as Page
    this.#shift -= this.#rows(page.blocks)
    if (this.#atEnd) {
      this.#atEnd = false
      this.#aside = page.blocks.filter((b) => this.#isLive(b))
    }
    this.#forget(page.blocks)
  }

  /** Whether a block still changes (it stays when its page is dropped). */
  #isLive(b: Component): boolean {
    if (b instanceof ToolBlock) return !b.ended
    if (b instanceof ApprovalBlock) return b.open
    if (b instanceof UserBlock) return b.inputId !== undefined && this.#pendingUser.get(b.inputId) === b
    if (b instanceof AnswerBlock || b instanceof ReasoningBlock)
      return b.runId !== undefined && (this.#unfinished.get(b.runId)?.includes(b) ?? false)
    return false
  }

  /** Forgets the lookups of dropped blocks that no longer change. */
  #forget(blocks: Component[]): void {
    for (const b of blocks) {
      if (this.#isLive(b) && this.#aside.includes(b)) continue
      if (b instanceof ToolBlock && this.#tools.get(b.callId) === b) this.#tools.delete(b.callId)
      if (b instanceof ApprovalBlock && !b.open) this.#approvals.delete(b.requestId)
    }
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
        const request = { ...p, tool: String(p.tool), summary: String(p.summary ?? '') } as ApprovalRequest
        const b = new ApprovalBlock(t, request, p.run_id, this.workspace)
        this.#approvals.set(p.request_id, b)
        // Asked under the call's own block when it shows, so the call is named once.
        const call = p.call_id === undefined ? undefined : this.#tools.get(p.call_id)
        if (call && !call.ended) call.ask(b)
        else this.#add(b)
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

  #entryAdded(e: HistoryEntry): boolean {
    if (!e) return false
    if (this.#buffered) {
      this.#buffered.push(e)
      return false
    }
    if (!this.#atEnd) {
      // Not shown: the end is read from the history when scrolled to. A live block it
      // completes leaves the aside list (the history brings it), and the list stays short.
      const gone: Component[] = []
      this.#place(e, gone)
      this.#forget(gone)
      if (this.#aside.length > ASIDE_MAX) this.#aside.splice(0, this.#aside.length - ASIDE_MAX)
      return false
    }
    const page = this.#pages[this.#pages.length - 1]
    if (e.position <= page.last) return false
    this.#place(e, page.blocks)
    if (page.last < page.first) page.first = e.position
    page.last = e.position
    this.#changed()
    return true
  }

  /** Forgets everything (another session is opened in the same screen). */
  clear(): void {
    this.#pages = [emptyPage()]
    this.#atEnd = true
    this.hasOlder = false
    this.#aside = []
    this.#buffered = undefined
    this.#shift = 0
    this.#changed()
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
    for (const b of this.#aside) b.invalidate?.()
  }
}

export function problemLine(problem: Payload | null | undefined): string {
  if (!problem) return 'the turn failed'
  return `${problem.code ?? 'error'}: ${problem.detail ?? problem.title ?? ''}`
}

export { wrapped }
