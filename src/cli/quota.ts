// `hearth quota`: the latest quota readings (GET /server `quota`) per provider and account,
// each limit with its percentage, window, reset (in how long, and when), plan, a stale mark
// and its trail as a small chart (src/client/quota-chart.ts); failed polls with their error.
// Without readings it says why and what to do. --json prints the readings as the daemon
// gives them. Colour only at a terminal and without NO_COLOR; lines fit the terminal's width.
import { HearthClient } from '../client/client.ts'
import { isStale, latestQuota, readTrails, spanText, type Trail, trailLabel } from '../client/quota.ts'
import { SCALE_WIDTH, scaledTrailChart } from '../client/quota-chart.ts'
import {
  byAccount,
  noReadingsText,
  POLLING_OFF_NOTE,
  quotaPolling,
  readingParts,
  whyNoReadings,
} from '../client/quota-view.ts'
import { homeOf, parseCommand } from '../command-line/args.ts'
import type { Out } from '../command-line/errors.ts'
import type { QuotaReading } from '../schemas/server.ts'
import { colourWanted, makeTheme, type Theme } from '../tui/theme.ts'
import { writeJson } from './output.ts'

/** The width lines are fitted to when the output is not a terminal. */
const DEFAULT_WIDTH = 80
/** The narrowest width lines are fitted to. */
const MIN_WIDTH = 20
/** Wider charts add columns, not information: a week in 96 columns is under two hours each. */
const MAX_CHART = 96 + SCALE_WIDTH

export async function quotaCommand(args: string[], out: Out, help: string): Promise<number> {
  const parsed = parseCommand(args, { json: { type: 'boolean' } }, out, help)
  if (!parsed) return 0
  const client = HearthClient.fromHome(homeOf(parsed.values.home))
  const latest = await latestQuota(client)
  if (parsed.values.json) {
    writeJson(out, latest ?? [])
    return 0
  }
  const width = Math.max(MIN_WIDTH, terminalWidth())
  const theme = process.stdout.isTTY ? makeTheme(colourWanted()) : PLAIN
  if (!latest || latest.length === 0) {
    const lines = noReadingsText(await whyNoReadings(client), { login: 'hearth login' })
    out.write(fitted(lines, width).join('\n') + '\n')
    return 0
  }
  const now = Date.now()
  const [polling, trails] = await Promise.all([quotaPolling(client), readTrails(client, latest, now)])
  const lines = polling ? [] : [...wrapWords(POLLING_OFF_NOTE, width).map(theme.warn), '']
  for (const g of byAccount(latest)) {
    lines.push(...cut([theme.bold(`${g.provider} · ${g.account}${g.plan ? `  (${g.plan})` : ''}`)], width))
    for (const r of g.readings) lines.push(...readingLines(r, trails.get(r), now, width, theme))
    lines.push('')
  }
  out.write(lines.join('\n'))
  return 0
}

/** No styles at all: the output is not a terminal. */
const PLAIN: Theme = (() => {
  const t = makeTheme(false)
  const same = (s: string) => s
  return { ...t, bold: same, dim: same, italic: same, underline: same, strike: same, inverse: same }
})()

/** The terminal's columns, else $COLUMNS, else 80. */
function terminalWidth(): number {
  if (process.stdout.isTTY && process.stdout.columns) return process.stdout.columns
  const env = Number(process.env.COLUMNS)
  return Number.isInteger(env) && env > 0 ? env : DEFAULT_WIDTH
}

/** One reading: its failure, its line (wrapped part by part), its chart and the chart's span. */
function readingLines(
  r: QuotaReading,
  trail: Trail | Error | undefined,
  now: number,
  width: number,
  t: Theme,
): string[] {
  const stale = isStale(r, now)
  const lines: string[] = []
  if (r.error) lines.push(...cut([`  ${t.error(`poll failed: ${r.error}`)}`], width))
  if (r.limit_id === '') {
    lines.push(
      ...packed(
        [`read ${spanText(now - Date.parse(r.observed_at))} ago`, ...(stale ? [t.warn('stale')] : [])],
        width,
        '    ',
      ),
    )
    return lines
  }
  lines.push(...packed([...readingParts(r, now, true), ...(stale ? [t.warn('stale')] : [])], width, '  '))
  if (trail instanceof Error) lines.push(...cut([`    ${t.error(`trail: ${trail.message}`)}`], width))
  else if (trail) {
    const start = trail.capped ? now - trail.spanMs : trail.since
    const chartWidth = Math.min(MAX_CHART, width - 4)
    lines.push(...scaledTrailChart(trail.readings, start, now, chartWidth).map((l) => `    ${t.accent(l)}`))
    const n = trail.readings.length
    const label = `${trailLabel(trail, now)} · ${n} reading${n === 1 ? '' : 's'}`
    const under = ' '.repeat(4 + SCALE_WIDTH)
    lines.push(...wrapWords(label, width - under.length).map((l) => `${under}${t.dim(l)}`))
  }
  return lines
}

const SGR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g')

/** Visible length: without colour sequences, one column a code point. */
function visible(s: string): number {
  return [...s.replace(SGR, '')].length
}

/** Parts two spaces apart, a new line (indented further) when the next does not fit. */
function packed(parts: string[], width: number, indent: string): string[] {
  const lines: string[] = []
  let line = indent
  for (const part of parts) {
    const fresh = line.trim() === ''
    if (!fresh && visible(line) + 2 + visible(part) > width) {
      lines.push(line)
      line = `${indent}  `
    }
    line += line.trim() === '' ? part : `  ${part}`
  }
  lines.push(line)
  return cut(lines, width)
}

/** Words wrapped to `width` (a plain text's lines). */
function wrapWords(text: string, width: number): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line && visible(line) + 1 + visible(word) > width) {
      lines.push(line)
      line = word
    } else line = line ? `${line} ${word}` : word
  }
  lines.push(line)
  return cut(lines, width)
}

/** Each line wrapped at spaces to `width`. */
function fitted(lines: string[], width: number): string[] {
  return lines.flatMap((l) => wrapWords(l, width))
}

/** Lines longer than `width` cut with `…` (colour sequences kept only on lines that fit). */
function cut(lines: string[], width: number): string[] {
  return lines.map((l) => {
    if (visible(l) <= width) return l
    const plain = [...l.replace(SGR, '')]
    return `${plain.slice(0, width - 1).join('')}…`
  })
}
