// A usage report as the rows the store keeps: one per limit, raw (docs/quota.md). Nothing is
// derived here beyond naming: the percent, the window and the reset are the feed's own
// figures, a value the feed did not give stays null (an unknown percent is never 0).
import type { NamedRateWindow, RateWindow, UsageReport } from './report.ts'

/** One stored reading: the columns of `quota_readings` (migration 14) but its id. */
export interface ReadingRow {
  account: string
  provider: string
  plan: string | null
  /** `primary`, `secondary`, `tertiary`, an extra window's id, or '' for a failure with no limits. */
  limit_id: string
  limit_label: string | null
  used_percent: number | null
  window_label: string | null
  window_seconds: number | null
  reset_at_ms: number | null
  scope: string | null
  status: string | null
  error: string | null
  observed_at_ms: number
  source: 'poll'
}

type Fixed = 'primary' | 'secondary' | 'tertiary'
const FIXED: readonly Fixed[] = ['primary', 'secondary', 'tertiary']

/**
 * What each feed's fixed windows are, as CodexBar names them in its menus (its providers'
 * `sessionLabel`, `weeklyLabel`, `opusLabel`): the report carries no label for them. A feed
 * not listed leaves them unlabelled and clients show the window instead.
 */
const FIXED_LABELS: Readonly<Record<string, Readonly<Record<Fixed, string | null>>>> = {
  codex: { primary: 'Session', secondary: 'Weekly', tertiary: null },
  claude: { primary: 'Session', secondary: 'Weekly', tertiary: 'Sonnet' },
  antigravity: { primary: 'Gemini Models', secondary: 'Claude and GPT', tertiary: null },
  zai: { primary: '5-hour', secondary: 'Weekly', tertiary: null },
  minimax: { primary: 'Prompts', secondary: 'Window', tertiary: null },
  copilot: { primary: 'Premium', secondary: 'Chat', tertiary: null },
}

/**
 * The rows of one report observed at `observedAtMs` for `account` (a non-secret label).
 * A report with limits gives one row per limit, each carrying the report's error when it
 * has one too (the limits are still the feed's latest figures, and the error says the poll
 * was not clean). A report with an error and no limits gives one row under limit id ''.
 * A report with neither gives no rows.
 */
export function readingsOf(account: string, report: UsageReport, observedAtMs: number): ReadingRow[] {
  const usage = report.usage ?? null
  const common = {
    account,
    provider: report.provider,
    plan: usage?.loginMethod ?? usage?.identity?.loginMethod ?? null,
    scope: usage?.identity?.accountOrganization ?? null,
    status: report.status?.indicator ?? null,
    error: report.error?.message ?? null,
    observed_at_ms: observedAtMs,
    source: 'poll' as const,
  }
  const rows: ReadingRow[] = []
  const labels = FIXED_LABELS[report.provider]
  for (const id of FIXED) {
    const window = usage?.[id]
    if (window) rows.push({ ...common, limit_id: id, limit_label: labels?.[id] ?? null, ...windowOf(window) })
  }
  for (const extra of usage?.extraRateWindows ?? []) rows.push({ ...common, ...extraOf(extra) })
  if (rows.length === 0 && common.error !== null) rows.push({ ...common, ...NO_LIMIT })
  return rows
}

const NO_LIMIT = {
  limit_id: '',
  limit_label: null,
  used_percent: null,
  window_label: null,
  window_seconds: null,
  reset_at_ms: null,
} as const

function extraOf(extra: NamedRateWindow) {
  const figures = windowOf(extra.window)
  return {
    limit_id: extra.id,
    limit_label: extra.title,
    ...figures,
    used_percent: extra.usageKnown === false ? null : figures.used_percent,
  }
}

function windowOf(w: RateWindow) {
  const minutes = w.windowMinutes ?? null
  return {
    used_percent: Number.isFinite(w.usedPercent) ? w.usedPercent : null,
    window_label: minutes === null ? null : windowLabelOf(minutes),
    window_seconds: minutes === null ? null : minutes * 60,
    reset_at_ms: resetOf(w.resetsAt),
  }
}

/** A window's length in its largest whole unit: 300 → `5h`, 10080 → `7d`, 90 → `90m`. */
export function windowLabelOf(minutes: number): string {
  if (minutes > 0 && minutes % 1440 === 0) return `${minutes / 1440}d`
  if (minutes > 0 && minutes % 60 === 0) return `${minutes / 60}h`
  return `${minutes}m`
}

/** RFC 3339 / ISO 8601 date-time with a zone (CodexBar encodes dates so); the seconds may be left out. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})$/

/** Epoch ms of an ISO 8601 reset time; null when absent or not one (never a guess). */
export function resetOf(resetsAt: string | null | undefined): number | null {
  if (typeof resetsAt !== 'string' || !ISO_DATE_TIME.test(resetsAt)) return null
  const ms = Date.parse(resetsAt.replace(' ', 'T'))
  return Number.isFinite(ms) ? ms : null
}
