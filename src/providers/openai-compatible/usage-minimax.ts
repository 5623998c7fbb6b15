// The usage feed `minimax` of the usage core: a MiniMax Token Plan / Coding Plan's quota, as
// CodexBar reads it with an API key (Providers/MiniMax/MiniMaxUsageFetcher.swift,
// MiniMaxModelRemains.swift, MiniMaxUsageSnapshot.swift): `GET {base}/v1/token_plan/remains`,
// then the older `/v1/api/openplatform/coding_plan/remains` when that one is refused or
// missing; the global host first, the China mainland host when the global one rejects the
// key. The key is MINIMAX_CODING_API_KEY, else MINIMAX_API_KEY.
import * as Type from 'typebox'
import type { NamedRateWindow, RateWindow } from '../../quota/report.ts'
import {
  type CallLimits,
  call,
  checkShape,
  type Env,
  FAILURE,
  isoOf,
  nonEmpty,
  parseJson,
  slug,
  UsageFailure,
  type UsageFeed,
  windowOf,
  withIdentity,
} from '../shared/usage-fetch.ts'

export const MINIMAX_FEED = 'minimax'
export const MINIMAX_KEY_ENVS = ['MINIMAX_CODING_API_KEY', 'MINIMAX_API_KEY'] as const
/** Test hook: one base in place of both regions' hosts (no retry on the other region then). */
export const MINIMAX_USAGE_URL_ENV = 'HEARTH_MINIMAX_USAGE_URL'
const REGIONS = ['https://api.minimax.io', 'https://api.minimaxi.com']
const PATHS = ['/v1/token_plan/remains', '/v1/api/openplatform/coding_plan/remains']
const VENDOR = 'MiniMax'

const Num = Type.Union([Type.Number(), Type.String(), Type.Null()])
const Open = { additionalProperties: true } as const
const Remains = Type.Object(
  {
    model_name: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    current_interval_total_count: Type.Optional(Num),
    current_interval_usage_count: Type.Optional(Num),
    current_interval_remaining_percent: Type.Optional(Num),
    current_interval_status: Type.Optional(Num),
    start_time: Type.Optional(Num),
    end_time: Type.Optional(Num),
    remains_time: Type.Optional(Num),
    current_weekly_total_count: Type.Optional(Num),
    current_weekly_usage_count: Type.Optional(Num),
    current_weekly_remaining_percent: Type.Optional(Num),
    current_weekly_status: Type.Optional(Num),
    weekly_start_time: Type.Optional(Num),
    weekly_end_time: Type.Optional(Num),
    weekly_remains_time: Type.Optional(Num),
  },
  Open,
)
const BaseResp = Type.Union([
  Type.Object({ status_code: Type.Optional(Num), status_msg: Type.Optional(Type.Unknown()) }, Open),
  Type.Null(),
])
const Data = Type.Object(
  {
    base_resp: Type.Optional(BaseResp),
    model_remains: Type.Optional(Type.Union([Type.Array(Remains), Type.Null()])),
  },
  Open,
)
const Payload = Type.Object({ base_resp: Type.Optional(BaseResp), data: Type.Optional(Type.Unknown()) }, Open)
type Remains = Record<string, unknown> & { model_name?: string | null }

/** Why a call failed, as the fallbacks need to tell apart. */
class MiniMaxFailure extends UsageFailure {
  readonly reason: 'credentials' | 'missing' | 'other'
  constructor(message: string, reason: 'credentials' | 'missing' | 'other', code: number = FAILURE.failed) {
    super(message, code)
    this.reason = reason
  }
}
const rejected = () => new MiniMaxFailure('MiniMax rejected the API key.', 'credentials')

const num = (v: unknown): number | null => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v
  return typeof n === 'number' && Number.isFinite(n) ? n : null
}
/** Epoch seconds or milliseconds as ms. */
const epochMs = (v: unknown): number | null => {
  const n = num(v)
  if (n === null) return null
  return n > 1e12 ? n : n > 1e9 ? n * 1000 : null
}

function parse(text: string): { plan: string | null; remains: Remains[] } {
  const payload = parseJson<Record<string, unknown>>(text, Payload, VENDOR)
  const data = checkShape<Record<string, any>>(payload.data ?? payload, Data, VENDOR)
  const base = (data.base_resp ?? payload.base_resp) as Record<string, unknown> | null | undefined
  const status = num(base?.status_code)
  if (status !== null && status !== 0) {
    const message = nonEmpty(base?.status_msg) ?? `status_code ${status}`
    const lower = message.toLowerCase()
    if (status === 1004 || lower.includes('login') || lower.includes('log in') || lower === 'invalid api key')
      throw rejected()
    throw new MiniMaxFailure(`MiniMax API error: ${message}`, 'other')
  }
  const remains: Remains[] = data.model_remains ?? []
  if (remains.length === 0)
    throw new MiniMaxFailure('MiniMax response has no coding plan data.', 'other', FAILURE.parse)
  const plan = [data.current_subscribe_title, data.plan_name, data.combo_title, data.current_plan_title]
    .map(nonEmpty)
    .find(Boolean)
  return { plan: plan ?? nonEmpty(data.current_combo_card?.title), remains }
}

const isText = (model: string) => {
  const m = model.toLowerCase()
  return m === 'general' || m.includes('minimax-m') || m.startsWith('m2.')
}

interface Lane {
  model: string
  weekly: boolean
  window: RateWindow
}

/** One lane of a model (its interval or its week), or null for a lane the plan does not include. */
function laneOf(r: Remains, weekly: boolean, now: number): Lane | null {
  const model = r.model_name as string
  const f = (interval: string, week: string) => r[weekly ? week : interval]
  const total = num(f('current_interval_total_count', 'current_weekly_total_count'))
  const remaining = num(f('current_interval_usage_count', 'current_weekly_usage_count'))
  const remainingPercent = num(f('current_interval_remaining_percent', 'current_weekly_remaining_percent'))
  const status = num(f('current_interval_status', 'current_weekly_status'))
  const start = epochMs(f('start_time', 'weekly_start_time'))
  const end = epochMs(f('end_time', 'weekly_end_time'))
  const remainsTime = num(f('remains_time', 'weekly_remains_time'))
  const full = remainingPercent !== null && remainingPercent >= 100
  const unlimited =
    weekly && status === 3 && full && ['general', 'text generation'].includes(model.toLowerCase())
  if (!unlimited && status === 3 && !total && !remaining && full) return null
  const minutes = start !== null && end !== null && end > start ? Math.floor((end - start) / 60_000) : null
  if (unlimited) return { model, weekly, window: windowOf(0, minutes, undefined, 'Unlimited') }
  let used: number
  if (remainingPercent !== null) used = 100 - remainingPercent
  else if (total !== null && total > 0 && remaining !== null) used = ((total - remaining) / total) * 100
  else return null
  const resetMs =
    end !== null && end > now
      ? end
      : remainsTime
        ? now + (remainsTime > 1e6 ? remainsTime : remainsTime * 1000)
        : null
  return { model, weekly, window: windowOf(Math.max(0, Math.min(100, used)), minutes, isoOf(resetMs)) }
}

/** MiniMaxUsageSnapshot's lanes in its order: text lanes first, each interval before its week. */
export function snapshotOf(remains: Remains[], now = Date.now()) {
  const lanes: Lane[] = []
  for (const r of remains) {
    if (typeof r.model_name !== 'string') continue
    const interval = laneOf(r, false, now)
    if (interval) lanes.push(interval)
    const week = isText(r.model_name) ? laneOf(r, true, now) : null
    if (week) lanes.push(week)
  }
  lanes.sort(
    (a, b) => Number(!isText(a.model)) - Number(!isText(b.model)) || Number(a.weekly) - Number(b.weekly),
  )
  const extra: NamedRateWindow[] = lanes.slice(3).map((l) => ({
    id: `minimax-${slug(l.model)}-${l.weekly ? 'weekly' : 'interval'}`,
    title: `${l.model}${l.weekly ? ' weekly' : ''}`,
    window: l.window,
  }))
  return {
    primary: lanes[0]?.window ?? null,
    secondary: lanes[1]?.window ?? null,
    tertiary: lanes[2]?.window ?? null,
    ...(extra.length ? { extraRateWindows: extra } : {}),
  }
}

async function remainsAt(url: string, key: string, limits: CallLimits) {
  const headers = { Authorization: `Bearer ${key}`, Accept: 'application/json', 'MM-API-Source': 'hearth' }
  let answer: Awaited<ReturnType<typeof call>>
  try {
    answer = await call(url, { headers, vendor: VENDOR }, limits)
  } catch (err) {
    const failure = err as UsageFailure
    throw new MiniMaxFailure(failure.message, 'missing', failure.code)
  }
  if (answer.status === 401 || answer.status === 403) throw rejected()
  if (answer.status === 404 || answer.status === 405)
    throw new MiniMaxFailure(`MiniMax API error: HTTP ${answer.status}`, 'missing')
  if (answer.status !== 200) throw new MiniMaxFailure(`MiniMax API error: HTTP ${answer.status}`, 'other')
  try {
    return parse(answer.text)
  } catch (err) {
    if (err instanceof MiniMaxFailure) throw err
    throw new MiniMaxFailure((err as Error).message, 'missing', FAILURE.parse)
  }
}

/** The token-plan endpoint, then the coding-plan one when the first is refused, missing or unreadable. */
async function atBase(base: string, key: string, limits: CallLimits) {
  try {
    return await remainsAt(base + PATHS[0], key, limits)
  } catch (err) {
    const first = err as MiniMaxFailure
    if (first.reason === 'other' || first.code === FAILURE.timeout) throw first
    try {
      return await remainsAt(base + PATHS[1], key, limits)
    } catch (second) {
      throw first.reason === 'credentials' ? rejected() : second
    }
  }
}

async function fetchUsage(env: Env, limits: CallLimits) {
  const key = MINIMAX_KEY_ENVS.map((k) => nonEmpty(env[k])).find(Boolean)
  if (!key)
    throw new UsageFailure(`MiniMax API token not found (${MINIMAX_KEY_ENVS.join(' or ')} is not set).`)
  const override = env[MINIMAX_USAGE_URL_ENV]?.trim().replace(/\/+$/, '')
  const bases = override ? [override] : REGIONS
  let found: { plan: string | null; remains: Remains[] } | undefined
  for (const [i, base] of bases.entries()) {
    try {
      found = await atBase(base, key, limits)
      break
    } catch (err) {
      if ((err as MiniMaxFailure).reason !== 'credentials' || i === bases.length - 1) throw err
    }
  }
  const { plan, remains } = found as NonNullable<typeof found>
  return withIdentity(snapshotOf(remains), MINIMAX_FEED, null, plan)
}

export const minimaxUsageFeed: UsageFeed = {
  id: MINIMAX_FEED,
  source: 'api',
  secrets: (env) => MINIMAX_KEY_ENVS.map((k) => env[k]?.trim() ?? '').filter(Boolean),
  fetch: fetchUsage,
}
