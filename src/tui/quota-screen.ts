// The quota screen (/quota): per account and limit, the latest reading (GET /server `quota`)
// and its trail (src/client/quota.ts: back as far as the limit's window, at most five pages
// of 200) drawn as a small chart, with the span it really covers. A reading older than 30
// minutes or past its reset is marked stale. Until the daemon records quota it says so.

import type { HearthClient } from '../client/client.ts'
import { isStale, latestQuota, readTrail, spanText, type Trail, trailLabel } from '../client/quota.ts'
import type { QuotaReading } from '../schemas/server.ts'
import { keyStep } from './list-picker.ts'
import { type Component, type Focusable, matchesKey, truncateToWidth } from './pi.ts'
import type { Theme } from './theme.ts'

export interface QuotaScreenOptions {
  theme: Theme
  rows: () => number
  requestRender: () => void
  close: () => void
  client: () => HearthClient
  now?: () => number
}

const BARS = ' ▁▂▃▄▅▆▇█'
const CHART_ROWS = 3
/** Trails read at once. */
const PARALLEL = 3

/**
 * A bar chart of used percent over time, `rows` high and `width` wide, from `start` to
 * `end` (ms). Each column shows the last reading at or before its end (a reading holds until
 * the next); columns before the first reading, and readings without a percentage, are empty.
 */
export function trailChart(
  readings: Pick<QuotaReading, 'observed_at' | 'used_percent'>[],
  start: number,
  end: number,
  width: number,
  rows = CHART_ROWS,
): string[] {
  const cols = Math.max(1, width)
  const levels = rows * 8
  const heights: number[] = []
  let i = 0
  let current: number | null | undefined
  for (let c = 0; c < cols; c++) {
    const colEnd = start + ((end - start) * (c + 1)) / cols
    while (i < readings.length && Date.parse(readings[i].observed_at) <= colEnd) {
      current = readings[i].used_percent
      i++
    }
    heights.push(
      current === undefined || current === null
        ? 0
        : Math.max(1, Math.round((Math.min(100, Math.max(0, current)) / 100) * levels)),
    )
  }
  const out: string[] = []
  for (let r = rows - 1; r >= 0; r--) {
    out.push(heights.map((h) => BARS[Math.max(0, Math.min(8, h - r * 8))]).join(''))
  }
  return out
}

/** The latest reading's line: label, percentage, window, reset. */
export function readingLine(r: QuotaReading, now: number): string {
  const pct = r.used_percent === null ? '?%' : `${Math.round(r.used_percent)}%`
  const parts = [r.limit_label ?? r.limit_id, pct]
  if (r.window_label) parts.push(r.window_label)
  if (r.reset_at_ms !== null)
    parts.push(r.reset_at_ms > now ? `resets in ${spanText(r.reset_at_ms - now)}` : 'reset passed')
  parts.push(`read ${spanText(now - Date.parse(r.observed_at))} ago`)
  return parts.join('  ')
}

export class QuotaScreen implements Component, Focusable {
  focused = false
  readonly #o: QuotaScreenOptions
  #latest: QuotaReading[] | null | undefined
  readonly #trails = new Map<QuotaReading, Trail | Error>()
  #footer = ''
  #scroll = 0

  constructor(o: QuotaScreenOptions) {
    this.#o = o
    void this.#load()
  }

  #now(): number {
    return this.#o.now?.() ?? Date.now()
  }

  async #load(): Promise<void> {
    this.#latest = undefined
    this.#trails.clear()
    this.#footer = ''
    this.#o.requestRender()
    try {
      this.#latest = await latestQuota(this.#o.client())
    } catch (err) {
      this.#footer = `could not read the quota: ${(err as Error).message}`
      this.#latest = null
      this.#o.requestRender()
      return
    }
    this.#o.requestRender()
    const limits = (this.#latest ?? []).filter((r) => r.limit_id !== '')
    let next = 0
    const worker = async () => {
      while (next < limits.length) {
        const r = limits[next++]
        const trail = await readTrail(this.#o.client(), r, this.#now()).catch((err: Error) => err)
        this.#trails.set(r, trail)
        this.#o.requestRender()
      }
    }
    await Promise.all(Array.from({ length: PARALLEL }, worker))
  }

  handleInput(data: string): void {
    if (matchesKey(data, 'escape') || matchesKey(data, 'ctrl+c')) {
      this.#o.close()
      return
    }
    const page = Math.max(1, this.#o.rows() - 5)
    const step = keyStep(data, page)
    if (step !== null) {
      this.#scroll = Math.max(0, this.#scroll + step)
      this.#o.requestRender()
      return
    }
    if (data === 'r') void this.#load()
  }

  invalidate(): void {}

  render(width: number): string[] {
    const t = this.#o.theme
    const rows = Math.max(5, this.#o.rows())
    const head = [t.bold(`Quota${this.#latest === undefined ? ' · loading…' : ''}`), t.dim('─'.repeat(width))]
    const foot = [
      t.dim('─'.repeat(width)),
      this.#footer ? t.error(this.#footer) : '',
      t.dim('Up/Down scroll · r read again · Esc back'),
    ]
    const height = Math.max(1, rows - head.length - foot.length)
    const body = this.#body(width)
    this.#scroll = Math.min(this.#scroll, Math.max(0, body.length - height))
    const lines = body.slice(this.#scroll, this.#scroll + height)
    while (lines.length < height) lines.push('')
    return [...head, ...lines, ...foot].map((l) => truncateToWidth(l, width, '…'))
  }

  #body(width: number): string[] {
    const t = this.#o.theme
    if (this.#latest === undefined) return []
    if (this.#latest === null || this.#latest.length === 0)
      return [t.dim('No quota readings: the daemon has recorded none yet.')]
    const now = this.#now()
    const out: string[] = []
    for (const [account, readings] of byAccount(this.#latest)) {
      const plan = readings.find((r) => r.plan)?.plan
      out.push(t.bold(`${account}${plan ? `  (${plan})` : ''}`))
      for (const r of readings) {
        const stale = isStale(r, now) ? `  ${t.warn('stale')}` : ''
        if (r.error) out.push(`  ${t.error(`poll failed: ${r.error}`)}${stale}`)
        if (r.limit_id === '') continue
        out.push(`  ${readingLine(r, now)}${stale}`)
        const trail = this.#trails.get(r)
        if (trail === undefined) out.push(t.dim('    reading the trail…'))
        else if (trail instanceof Error) out.push(t.error(`    trail: ${trail.message}`))
        else {
          const start = trail.capped ? now - trail.spanMs : trail.since
          const chart = trailChart(trail.readings, start, now, Math.max(10, width - 4))
          out.push(...chart.map((l) => `    ${t.accent(l)}`))
          const n = trail.readings.length
          out.push(t.dim(`    ${trailLabel(trail, now)} · ${n} reading${n === 1 ? '' : 's'}`))
        }
      }
      out.push('')
    }
    return out
  }
}

/** Readings grouped per provider and account, in the order they came. */
function byAccount(readings: QuotaReading[]): Map<string, QuotaReading[]> {
  const groups = new Map<string, QuotaReading[]>()
  for (const r of readings) {
    const key = `${r.provider} · ${r.account}`
    groups.set(key, [...(groups.get(key) ?? []), r])
  }
  return groups
}
