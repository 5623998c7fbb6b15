// The transcript's pages: which part of the session's history is held, and where live
// blocks go. Entries come in pages (read as the reader scrolls, at most KEEP_PAGES held: a
// long session is never held whole); reading past them drops the page at the other end,
// and while the newest page is not held, live blocks wait aside until it is read again.
// What an entry or an event becomes (its block, and the lookups that let later events and
// entries complete it) is ./transcript.ts, built on this; the pages are kept apart because
// they change with scrolling, the blocks with the session.

import type { Component } from './pi.ts'
import type { HistoryEntry } from './transcript.ts'

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

export abstract class TranscriptPages {
  /** Contiguous pages of the history, oldest first; at most KEEP_PAGES. */
  #pages: Page[] = [emptyPage()]
  /** Whether the last page is the live end of the session (new entries and events go there). */
  #atEnd = true
  /** Whether entries before the first page exist. */
  hasOlder = false
  /** Live blocks made while the end is not held; they join it once it is read again. */
  protected aside: Component[] = []
  /** entry.added events that came while the end was being read; replayed once it is held. */
  #buffered: HistoryEntry[] | undefined
  /** Rows added (+) or dropped (-) below the window since the screen last asked. */
  #shift = 0
  #width = 0
  #flat: Component[] | undefined

  /** Blocks for history entries (./transcript.ts makes them). */
  abstract blocksOf(entries: HistoryEntry[]): Component[]
  /** Puts an entry's block at the end of `into`. */
  protected abstract place(e: HistoryEntry, into: Component[]): void
  /** Whether a block still changes (it stays when its page is dropped). */
  protected abstract isLive(b: Component): boolean
  /** Forgets the lookups of dropped blocks that no longer change. */
  protected abstract forget(blocks: Component[]): void

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

  protected add(block: Component): void {
    if (!this.#atEnd) {
      this.aside.push(block)
      return
    }
    this.#pages[this.#pages.length - 1].blocks.push(block)
    this.#changed()
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
      this.place(e, page.blocks)
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
    this.forget(this.#pages.flatMap((p) => p.blocks))
    const start = entries.length > 0 ? entries[0].position : this.lastPosition + 1
    const page: Page = { first: start, last: start - 1, blocks: [] }
    for (const e of entries) {
      this.place(e, page.blocks)
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
    for (const b of this.aside) page.blocks.push(b)
    this.aside = []
    const buffered = this.#buffered ?? []
    this.#buffered = undefined
    for (const e of buffered) this.entryAdded(e)
  }

  /** Drops the newest page: its live blocks wait aside until the end is read again. */
  #dropNewest(): void {
    const page = this.#pages.pop() as Page
    this.#shift -= this.#rows(page.blocks)
    if (this.#atEnd) {
      this.#atEnd = false
      this.aside = page.blocks.filter((b) => this.isLive(b))
    }
    this.forget(page.blocks)
  }

  protected entryAdded(e: HistoryEntry): boolean {
    if (!e) return false
    if (this.#buffered) {
      this.#buffered.push(e)
      return false
    }
    if (!this.#atEnd) {
      // Not shown: the end is read from the history when scrolled to. A live block it
      // completes leaves the aside list (the history brings it), and the list stays short.
      const gone: Component[] = []
      this.place(e, gone)
      this.forget(gone)
      if (this.aside.length > ASIDE_MAX) this.aside.splice(0, this.aside.length - ASIDE_MAX)
      return false
    }
    const page = this.#pages[this.#pages.length - 1]
    if (e.position <= page.last) return false
    this.place(e, page.blocks)
    if (page.last < page.first) page.first = e.position
    page.last = e.position
    this.#changed()
    return true
  }

  /** Forgets every page (another session is opened in the same screen). */
  clear(): void {
    this.#pages = [emptyPage()]
    this.#atEnd = true
    this.hasOlder = false
    this.aside = []
    this.#buffered = undefined
    this.#shift = 0
    this.#changed()
  }
}
