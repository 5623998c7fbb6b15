// The usage feed `zai` of the usage core: a z.ai / GLM Coding Plan's quota, as CodexBar's
// z.ai plugin reads it (Sources/CodexBarCore/Resources/Plugins/zai.js, Providers/Zai/):
// `GET {base}/api/monitor/usage/quota/limit` with the API key as bearer. The key is
// Z_AI_API_KEY; Z_AI_API_HOST names the region's host (open.bigmodel.cn for BigModel CN).
import type { Static } from 'typebox'
import * as Type from 'typebox'
import type { RateWindow } from '../../quota/report.ts'
import {
  type CallLimits,
  call,
  checkShape,
  type Env,
  isoOf,
  nonEmpty,
  parseJson,
  UsageFailure,
  type UsageFeed,
  windowOf,
  withIdentity,
} from '../shared/usage-fetch.ts'

export const ZAI_FEED = 'zai'
export const ZAI_KEY_ENV = 'Z_AI_API_KEY'
export const ZAI_HOST_ENV = 'Z_AI_API_HOST'
/** Test hook: replaces the region's base (`https://api.z.ai`). */
export const ZAI_USAGE_URL_ENV = 'HEARTH_ZAI_USAGE_URL'
const GLOBAL = 'https://api.z.ai'
const PATH = '/api/monitor/usage/quota/limit'
const VENDOR = 'z.ai'

const Limit = Type.Object(
  {
    type: Type.String(),
    unit: Type.Integer(),
    number: Type.Integer(),
    percentage: Type.Number(),
    usage: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    currentValue: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    remaining: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    nextResetTime: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  },
  { additionalProperties: true },
)
const Root = Type.Object(
  {
    success: Type.Optional(Type.Unknown()),
    code: Type.Optional(Type.Unknown()),
    msg: Type.Optional(Type.Unknown()),
    data: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: true },
)
const Data = Type.Object({ limits: Type.Array(Limit) }, { additionalProperties: true })
type Limit = Static<typeof Limit>
type Root = Static<typeof Root>

/** Minutes of one `unit`: 1 days, 3 hours, 5 minutes, 6 weeks. */
const UNIT_MINUTES: Record<number, number> = { 1: 1440, 3: 60, 5: 1, 6: 10080 }
const UNIT_NAMES: Record<number, string> = { 1: 'day', 3: 'hour', 5: 'minute', 6: 'week' }

function baseOf(env: Env): string {
  const override = env[ZAI_USAGE_URL_ENV]?.trim()
  if (override) return override.replace(/\/+$/, '')
  const host = nonEmpty(env[ZAI_HOST_ENV])
  if (!host) return GLOBAL
  return (host.includes('://') ? host : `https://${host}`).replace(/\/+$/, '')
}

/** The used percent: from the counts when the limit has them, else the vendor's percentage; 0–100. */
function percentOf(l: Limit): number {
  let percent = l.percentage
  const usage = l.usage ?? null
  const current = l.currentValue ?? null
  const remaining = l.remaining ?? null
  if (usage !== null && usage > 0) {
    let used: number | null = null
    if (remaining !== null) used = Math.max(usage - remaining, current ?? usage - remaining)
    else if (current !== null) used = current
    if (used !== null) percent = (Math.max(0, Math.min(usage, used)) * 100) / usage
  }
  return Math.max(0, Math.min(100, percent))
}

function minutesOf(l: Limit): number | null {
  return l.number > 0 && UNIT_MINUTES[l.unit] ? l.number * UNIT_MINUTES[l.unit] : null
}

function windowOfLimit(l: Limit): RateWindow {
  const minutes = minutesOf(l)
  const mcp = l.type === 'TIME_LIMIT'
  const windowMinutes = mcp && l.unit === 5 && l.number === 1 ? 30 * 24 * 60 : minutes
  let description: string | undefined
  if (mcp) description = 'MCP'
  else if (minutes === 300) description = '5-hour'
  else if (minutes !== null && UNIT_NAMES[l.unit])
    description = `${l.number} ${UNIT_NAMES[l.unit]}${l.number === 1 ? '' : 's'} window`
  return windowOf(percentOf(l), windowMinutes, isoOf(l.nextResetTime ?? undefined), description)
}

async function fetchUsage(env: Env, limits: CallLimits) {
  const key = nonEmpty(env[ZAI_KEY_ENV])
  if (!key) throw new UsageFailure(`z.ai API token not found (${ZAI_KEY_ENV} is not set).`)
  const headers = { Authorization: `Bearer ${key}`, Accept: 'application/json' }
  const answer = await call(baseOf(env) + PATH, { headers, vendor: VENDOR }, limits)
  if (answer.status !== 200) throw new UsageFailure(`z.ai quota API error: HTTP ${answer.status}`)
  const root = parseJson<Root>(answer.text, Root, VENDOR)
  if (root.success !== true || root.code !== 200)
    throw new UsageFailure(`z.ai quota API error: ${nonEmpty(root.msg) ?? 'invalid response'}`)
  const data = checkShape<{ limits: Limit[] } & Record<string, unknown>>(root.data, Data, VENDOR)
  const known = data.limits.filter((l) => ['TOKENS_LIMIT', 'TIME_LIMIT', 'CREDIT_LIMIT'].includes(l.type))
  const tokens = known
    .filter((l) => l.type !== 'TIME_LIMIT')
    .sort((a, b) => (minutesOf(a) ?? Number.MAX_SAFE_INTEGER) - (minutesOf(b) ?? Number.MAX_SAFE_INTEGER))
  const time = known.filter((l) => l.type === 'TIME_LIMIT').pop() ?? null
  const longest = tokens.at(-1) ?? null
  const session = tokens.length >= 2 ? tokens[0] : null
  const primary = session ?? longest ?? time
  const snapshot = {
    primary: primary ? windowOfLimit(primary) : windowOf(0),
    secondary: session && longest ? windowOfLimit(longest) : null,
    tertiary: null,
    ...((longest ?? session) && time
      ? { extraRateWindows: [{ id: 'zai-mcp', title: 'MCP', window: windowOfLimit(time) }] }
      : {}),
  }
  const plan = [data.planName, data.plan, data.plan_type, data.packageName, data.level]
    .map(nonEmpty)
    .find(Boolean)
  return withIdentity(snapshot, ZAI_FEED, null, plan ?? null)
}

export const zaiUsageFeed: UsageFeed = {
  id: ZAI_FEED,
  source: 'api',
  secrets: (env) => [env[ZAI_KEY_ENV]?.trim() ?? ''].filter(Boolean),
  fetch: fetchUsage,
}
