// The transcript's window: of all the entries held, only those near the viewport are mounted;
// the others are replaced by two spacers as tall as they measured when last drawn (or as an
// average entry, when never drawn). A tab holding a 10,000-entry session so keeps about a
// hundred entries' elements, whatever the reader scrolled through.
//
// The reader's place is an anchor: the entry at the top of the viewport and how far below
// the top it starts. The window is computed from the anchor (or from the end, when the
// reader is at the bottom and follows new output), and after each render the scroll offset
// is set so that the anchor entry is where it was: mounting, unmounting, a spacer's estimate
// that was wrong, or a page of older entries put before, never moves what the reader sees.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import type { Entry } from './session-store.ts'

/** How far beyond the viewport, in viewport heights, entries stay mounted on each side. */
const OVERSCAN = 1
/** The most entries mounted at once, however short they are. */
export const MAX_MOUNTED = 150
/** What an entry never drawn is taken to measure, until one is measured. */
const FIRST_ESTIMATE = 60
/** Within this distance of the end, the reader is at the bottom and follows new output. */
const BOTTOM_SLACK = 40

interface Anchor {
  position: number
  /** The entry's top minus the viewport's top, in pixels. */
  offset: number
}

export interface WindowRange {
  start: number
  end: number
  /** Height of the entries before start, and after end, as spacers. */
  before: number
  after: number
}

/** Where the reader is and what each entry measured: the state of one transcript's window. */
export class TranscriptWindow {
  heights = new Map<number, number>()
  measuredSum = 0
  atBottom = true
  anchor: Anchor | undefined
  rendered: WindowRange = { start: 0, end: 0, before: 0, after: 0 }

  heightOf(e: Entry): number {
    return (
      this.heights.get(e.position) ??
      (this.heights.size > 0 ? this.measuredSum / this.heights.size : FIRST_ESTIMATE)
    )
  }

  measure(position: number, height: number): void {
    const old = this.heights.get(position)
    if (old !== undefined) this.measuredSum -= old
    this.heights.set(position, height)
    this.measuredSum += height
  }

  /** The top of each entry in the list, and the list's height as the last value. */
  tops(entries: Entry[]): Float64Array {
    const tops = new Float64Array(entries.length + 1)
    for (let i = 0; i < entries.length; i++) tops[i + 1] = tops[i] + this.heightOf(entries[i])
    return tops
  }

  /** The entries to mount for a viewport of that height, at the anchor or at the end. */
  range(entries: Entry[], viewport: number): WindowRange {
    const n = entries.length
    const tops = this.tops(entries)
    const top = this.viewTop(entries, tops, viewport)
    const from = top - OVERSCAN * viewport
    const to = top + (1 + OVERSCAN) * viewport
    let start = 0
    while (start < n && tops[start + 1] <= from) start++
    let end = start
    while (end < n && tops[end] < to) end++
    // Bounded, keeping the side the reader is on.
    if (end - start > MAX_MOUNTED) {
      const middle = this.atBottom ? end - MAX_MOUNTED / 2 : Math.max(start, firstBelow(tops, top))
      start = Math.max(start, Math.round(middle - MAX_MOUNTED / 2))
      end = Math.min(end, start + MAX_MOUNTED)
    }
    return { start, end, before: tops[start], after: tops[n] - tops[end] }
  }

  /**
   * Whether the entries must be drawn again: the mounted ones no longer hold the viewport and
   * half the overscan on each side. A range that differs only at its edges is kept, so that a
   * boundary entry a fraction of a pixel from the edge cannot flip the window back and forth
   * at every frame (each flip moving the scroll offset, which moves the boundary again).
   */
  stale(entries: Entry[], viewport: number): boolean {
    const want = this.range(entries, viewport)
    if (sameRange(want, this.rendered)) return false
    const { start, end } = this.rendered
    const n = entries.length
    if (end > n || end - start > MAX_MOUNTED) return true
    const tops = this.tops(entries)
    const top = this.viewTop(entries, tops, viewport)
    const margin = (OVERSCAN * viewport) / 2
    const above = start === 0 || tops[start] <= top - margin
    const below = end === n || tops[end] >= top + viewport + margin
    return !(above && below)
  }

  /** Where the viewport's top is in the list, by the anchor (or at the end). */
  private viewTop(entries: Entry[], tops: Float64Array, viewport: number): number {
    if (!this.atBottom && this.anchor) {
      const i = indexOf(entries, this.anchor.position)
      if (i >= 0) return tops[i] - this.anchor.offset
    }
    return tops[entries.length] - viewport
  }
}

function firstBelow(tops: Float64Array, y: number): number {
  let i = 0
  while (i < tops.length - 1 && tops[i + 1] <= y) i++
  return i
}

/** Index of the entry at a history position (entries are in position order). */
function indexOf(entries: Entry[], position: number): number {
  let lo = 0
  let hi = entries.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const p = entries[mid].position
    if (p === position) return mid
    if (p < position) lo = mid + 1
    else hi = mid - 1
  }
  return -1
}

const sameRange = (a: WindowRange, b: WindowRange) => a.start === b.start && a.end === b.end

type ElementRef = { current: HTMLElement | null }

/** The mounted entries' elements, in order. */
function mountedElements(list: HTMLElement): HTMLElement[] {
  return [...list.children].filter(
    (c): c is HTMLElement => c instanceof HTMLElement && c.dataset.position !== undefined,
  )
}

/** The reader's place as the page shows it now. */
function readAnchor(w: TranscriptWindow, scroller: HTMLElement, list: HTMLElement, entries: Entry[]): void {
  const viewTop = scroller.getBoundingClientRect().top
  for (const el of mountedElements(list)) {
    const box = el.getBoundingClientRect()
    if (box.bottom > viewTop) {
      if (box.top < viewTop + scroller.clientHeight) {
        w.anchor = { position: Number(el.dataset.position), offset: box.top - viewTop }
        return
      }
      break
    }
  }
  // The viewport is over a spacer (a jump of the scroll bar): the entry there by the estimates.
  if (entries.length === 0) return
  const tops = w.tops(entries)
  const y = viewTop - list.getBoundingClientRect().top
  const i = firstBelow(tops, y)
  w.anchor = { position: entries[Math.min(i, entries.length - 1)].position, offset: tops[i] - y }
}

/**
 * Keeps the transcript windowed: returns the range of entries to mount, and the ref of the
 * element that holds them (between its two spacers).
 */
export function useTranscriptWindow(scroller: ElementRef, entries: Entry[]) {
  const [w] = useState(() => new TranscriptWindow())
  const [, setTick] = useState(0)
  const list = useRef<HTMLDivElement>(null)
  const latest = useRef(entries)
  latest.current = entries
  const viewport = scroller.current?.clientHeight || 800
  const range = w.range(entries, viewport)
  w.rendered = range
  // Focus inside an entry this render unmounts would fall to the page, and the keys would stop
  // scrolling the transcript: the layout effect gives it to the transcript instead.
  const focusInList = list.current?.contains(document.activeElement) ?? false

  useEffect(() => {
    const el = scroller.current
    if (!el) return
    let frame = 0
    const onScroll = () => {
      w.atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < BOTTOM_SLACK
      if (list.current) readAnchor(w, el, list.current, latest.current)
      if (frame) return
      frame = requestAnimationFrame(() => {
        frame = 0
        if (w.stale(latest.current, el.clientHeight)) setTick((n) => n + 1)
      })
    }
    el.addEventListener('scroll', onScroll, { passive: true })
    return () => {
      el.removeEventListener('scroll', onScroll)
      cancelAnimationFrame(frame)
    }
  }, [])

  useLayoutEffect(() => {
    const el = scroller.current
    const holder = list.current
    if (!el || !holder) return
    if (focusInList && !holder.contains(document.activeElement)) el.focus({ preventScroll: true })
    const mounted = mountedElements(holder)
    // Where the anchor is now, before the measures change any estimate.
    const anchorEl = w.anchor && mounted.find((m) => Number(m.dataset.position) === w.anchor?.position)
    // Heights as laid out, fractions included: spacers summed from rounded heights would be off
    // by a pixel every few entries, and each mount or unmount would move the entries below.
    for (const m of mounted) w.measure(Number(m.dataset.position), m.getBoundingClientRect().height)
    if (w.atBottom) el.scrollTop = el.scrollHeight
    else if (anchorEl && w.anchor) {
      const moved = anchorEl.getBoundingClientRect().top - el.getBoundingClientRect().top - w.anchor.offset
      // Less than a pixel is the scroll offset's rounding: setting it would only fire a scroll.
      if (Math.abs(moved) >= 1) el.scrollTop += moved
    }
    // Spacers drawn from estimates the measures just replaced: draw again if the window moves.
    if (w.stale(latest.current, el.clientHeight)) setTick((n) => n + 1)
  })

  return { range, list, window: w }
}
