// What the quota screen and `hearth quota` say about readings: a reading's parts (limit,
// percentage, window, reset, age), the readings grouped per account, and why there are none
// (polling off in extensions.json, no account to poll, or not polled yet), read from what
// the daemon tells: GET /settings?group=extensions and GET /auth.

import { QUOTA_FEEDS } from '../schemas/extensions.ts'
import type { QuotaReading } from '../schemas/server.ts'
import type { HearthClient } from './client.ts'
import { spanText } from './quota.ts'

/** A percentage as shown: `42%`, or `unknown` (never 0 for a percentage the feed did not give). */
export function percentText(p: number | null): string {
  return p === null ? 'unknown' : `${Math.round(p)}%`
}

/** `2026-11-28 14:32` in local time (TZ), to the minute. */
export function localTime(ms: number): string {
  const d = new Date(ms)
  const two = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`
}

/** `resets in 1h 59m`, or `reset passed` once it has. */
export function resetText(resetAtMs: number, now: number): string {
  return resetAtMs > now ? `resets in ${spanText(resetAtMs - now)}` : 'reset passed'
}

/**
 * A reading's parts, in order: label, percentage, window, reset, with `absolute` when it
 * resets (`(2026-11-28 14:32)`), age.
 */
export function readingParts(r: QuotaReading, now: number, absolute = false): string[] {
  const parts = [r.limit_label ?? r.limit_id, percentText(r.used_percent)]
  if (r.window_label) parts.push(r.window_label)
  if (r.reset_at_ms !== null) {
    parts.push(resetText(r.reset_at_ms, now))
    if (absolute) parts.push(`(${localTime(r.reset_at_ms)})`)
  }
  parts.push(`read ${spanText(now - Date.parse(r.observed_at))} ago`)
  return parts
}

export interface AccountReadings {
  provider: string
  account: string
  /** The plan of the newest reading that names one. */
  plan: string | null
  readings: QuotaReading[]
}

/** Shortest window first; a failure without a limit before the limits; unknown windows last. */
export function byWindow(a: QuotaReading, b: QuotaReading): number {
  const rank = (r: QuotaReading) => (r.limit_id === '' ? -1 : (r.window_seconds ?? Number.MAX_SAFE_INTEGER))
  return rank(a) - rank(b) || a.limit_id.localeCompare(b.limit_id)
}

/** Readings grouped per provider and account (in the order they came), each group by window. */
export function byAccount(readings: QuotaReading[]): AccountReadings[] {
  const groups = new Map<string, AccountReadings>()
  for (const r of readings) {
    const key = JSON.stringify([r.provider, r.account])
    const g = groups.get(key) ?? { provider: r.provider, account: r.account, plan: null, readings: [] }
    g.readings.push(r)
    groups.set(key, g)
  }
  for (const g of groups.values()) {
    g.readings.sort(byWindow)
    g.plan =
      g.readings.toSorted((a, b) => b.observed_at.localeCompare(a.observed_at)).find((r) => r.plan)?.plan ??
      null
  }
  return [...groups.values()]
}

/** Why there are no readings: polling is off, there is no account to poll, or none was read yet. */
export type NoReadings =
  | { reason: 'polling_off' }
  | { reason: 'no_account' }
  | { reason: 'not_polled'; accounts: string[] }

/** Whether the daemon polls quota (extensions.json `quota.enabled`, on unless set false). */
export async function quotaPolling(client: HearthClient): Promise<boolean> {
  const { body } = await client.call('settings.get', { query: { group: 'extensions' } })
  return (body as { settings: { quota?: { enabled?: boolean } } }).settings.quota?.enabled !== false
}

/**
 * Why the daemon has no readings. An API-key profile is polled only when its host has a
 * usage feed, which the daemon does not list: with no signed-in account the advice names
 * both ways.
 */
export async function whyNoReadings(client: HearthClient): Promise<NoReadings> {
  if (!(await quotaPolling(client))) return { reason: 'polling_off' }
  const { body } = await client.call('auth.get')
  const polled = body.accounts.filter((a) => QUOTA_FEEDS[a.provider] !== undefined)
  if (polled.length === 0) return { reason: 'no_account' }
  return { reason: 'not_polled', accounts: polled.map((a) => a.email ?? a.label ?? a.id) }
}

/** How a client's user does what the advice asks: sign in (`hearth login`, `/login`). */
export interface Advice {
  login: string
}

/** The command that turns polling on; the same at the shell for both clients. */
export const ENABLE_POLLING = `hearth config set extensions '{"quota":{"enabled":true}}'`

/** What to tell when there are no readings: why, then what to do (one paragraph a line). */
export function noReadingsText(why: NoReadings, advice: Advice): string[] {
  switch (why.reason) {
    case 'polling_off':
      return [
        'No quota readings: quota polling is off (extensions.json: "quota": {"enabled": false}).',
        `Turn it on with: ${ENABLE_POLLING}`,
      ]
    case 'no_account':
      return [
        'No quota readings: no account is signed in.',
        `Sign in with ${advice.login} (chatgpt, claude or antigravity). An API-key profile is polled when its host reports usage (docs/quota.md lists the hosts).`,
      ]
    case 'not_polled':
      return [
        `No quota readings yet: ${why.accounts.join(', ')} ${why.accounts.length === 1 ? 'is' : 'are'} signed in but not polled yet.`,
        'The first reading appears shortly (accounts are polled as they are found, then every 10 minutes).',
      ]
  }
}

/** Said beside readings while polling is off: they are no longer updated. */
export const POLLING_OFF_NOTE = `Quota polling is off: these readings are not updated. Turn it on with: ${ENABLE_POLLING}`
