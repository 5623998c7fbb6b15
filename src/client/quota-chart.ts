// A limit's trail drawn in the terminal, for the quota screen and `hearth quota`: used percent
// over time as a block chart a few rows high, one column per slice of the span. Columns are
// slices of time, not readings (polls are irregular: every 10 minutes, every 2 when busy,
// none while the daemon is down), so each column shows the reading that held at its end;
// time before the first reading and readings without a percentage stay empty, never 0.

import type { QuotaReading } from '../schemas/server.ts'

const BARS = ' ▁▂▃▄▅▆▇█'
export const CHART_ROWS = 3

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

/** The chart with a percent scale on its left: `100% ▕` on the top row, `  0% ▕` on the bottom. */
export function scaledTrailChart(
  readings: Pick<QuotaReading, 'observed_at' | 'used_percent'>[],
  start: number,
  end: number,
  width: number,
  rows = CHART_ROWS,
): string[] {
  const scale = (r: number) => (r === 0 ? '100% ' : r === rows - 1 ? '  0% ' : '     ')
  const chart = trailChart(readings, start, end, Math.max(1, width - SCALE_WIDTH), rows)
  return chart.map((line, r) => `${scale(r)}▕${line}`)
}

/** The columns the scale of scaledTrailChart takes. */
export const SCALE_WIDTH = 6
