// The quota screen (/quota): per account and limit, the latest reading (GET /server `quota`)
// and its trail (src/client/quota.ts: back as far as the limit's window, at most five pages
// of 200) drawn as a small chart, with the span it really covers. A reading older than 30
// minutes or past its reset is marked stale. Without readings it says why (polling off, no
// account signed in, not polled yet) and what to do; with polling off it says the readings
// are not updated.

import type { HearthClient } from '../client/client.ts'
import { isStale, latestQuota, readTrail, type Trail, trailLabel } from '../client/quota.ts'
import { trailChart } from '../client/quota-chart.ts'
import {
  byAccount,
  type NoReadings,
  noReadingsText,
  POLLING_OFF_NOTE,
  quotaPolling,
  readingParts,
  whyNoReadings,
} from '../client/quota-view.ts'
import type { QuotaReading } from '../schemas/server.ts'
import { keyStep } from './list-picker.ts'
import { type Component, type Focusable, matchesKey, truncateToWidth, wrapTextWithAnsi } from './pi.ts'
import type { Theme } from './theme.ts'

// The chart is the client's, shared with `hearth quota`.
export { trailChart }

export interface QuotaScreenOptions {
  theme: Theme
  rows: () => number
  requestRender: () => void
  close: () => void
  client: () => HearthClient
  now?: () => number
}

/** Trails read at once. */
const PARALLEL = 3

/** The latest reading's line: label, percentage, window, reset. */
export function readingLine(r: QuotaReading, now: number): string {
  return readingParts(r, now).join('  ')
}

export class QuotaScreen implements Component, Focusable {
  focused = false
  readonly #o: QuotaScreenOptions
  #latest: QuotaReading[] | null | undefined
  /** Why there are no readings, once read. */
  #why: NoReadings | undefined
  /** False once the daemon said polling is off. */
  #polling = true
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
    this.#why = undefined
    this.#polling = true
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
    void this.#explain(!this.#latest?.length)
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

  /** Reads why there are no readings, or whether the ones shown are still polled. */
  async #explain(none: boolean): Promise<void> {
    const client = this.#o.client()
    try {
      if (none) this.#why = await whyNoReadings(client)
      else this.#polling = await quotaPolling(client)
      this.#o.requestRender()
    } catch {
      // the screen says no more than it has
    }
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
    if (this.#latest === null || this.#latest.length === 0) {
      if (!this.#why) return [t.dim('No quota readings.')]
      return noReadingsText(this.#why, { login: '/login' }).flatMap((l, i) =>
        wrapTextWithAnsi(i === 0 ? l : t.dim(l), width),
      )
    }
    const now = this.#now()
    const out: string[] = this.#polling ? [] : [...wrapTextWithAnsi(t.warn(POLLING_OFF_NOTE), width), '']
    for (const { provider, account, plan, readings } of byAccount(this.#latest)) {
      out.push(t.bold(`${provider} · ${account}${plan ? `  (${plan})` : ''}`))
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
