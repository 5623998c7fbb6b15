// The usage feed `claude` of the usage core: a Claude subscription's usage, as CodexBar reads
// it (ClaudeOAuthUsageFetcher, ClaudeUsageFetcher.mapOAuthUsage, ClaudeScopedWeeklyLimitMapper):
// `GET {base}/api/oauth/usage` with the OAuth beta, and beside it `/api/oauth/profile` for the
// e-mail and the plan (its failure leaves both null). The credential is the access token in
// CODEXBAR_CLAUDE_OAUTH_TOKEN, its scopes in CODEXBAR_CLAUDE_OAUTH_SCOPES.
import type { Static } from 'typebox'
import * as Type from 'typebox'
import type { NamedRateWindow, RateWindow } from '../../quota/report.ts'
import {
  type Answer,
  baseOf,
  type CallLimits,
  call,
  type Env,
  excerpt,
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
import { CLAUDE_CODE_VERSION, CLAUDE_ENDPOINT, OAUTH_BETA } from './constants.ts'

export const CLAUDE_FEED = 'claude'
export const TOKEN_ENV = 'CODEXBAR_CLAUDE_OAUTH_TOKEN'
export const SCOPES_ENV = 'CODEXBAR_CLAUDE_OAUTH_SCOPES'
/** Test hook: replaces `https://api.anthropic.com` for both calls. */
export const CLAUDE_USAGE_URL_ENV = 'HEARTH_CLAUDE_USAGE_URL'
const VENDOR = 'Claude OAuth'
const WEEK = 7 * 24 * 60

const N = Type.Union([Type.Number(), Type.Null()])
const S = Type.Union([Type.String(), Type.Null()])
const Open = { additionalProperties: true } as const
const Window = Type.Union([
  Type.Object({ utilization: Type.Optional(N), resets_at: Type.Optional(S) }, Open),
  Type.Null(),
])
const Limit = Type.Object(
  {
    kind: Type.Optional(S),
    group: Type.Optional(S),
    percent: Type.Optional(N),
    resets_at: Type.Optional(S),
    scope: Type.Optional(Type.Unknown()),
  },
  Open,
)
const Usage = Type.Object(
  {
    five_hour: Type.Optional(Window),
    seven_day: Type.Optional(Window),
    seven_day_oauth_apps: Type.Optional(Window),
    seven_day_opus: Type.Optional(Window),
    seven_day_sonnet: Type.Optional(Window),
    limits: Type.Optional(Type.Union([Type.Array(Limit), Type.Null()])),
  },
  Open,
)
type Usage = Static<typeof Usage>
type Window = Static<typeof Window>

/** The keys CodexBar reads the Daily Routines window from, in its order. */
const ROUTINE_KEYS = [
  'seven_day_routines',
  'seven_day_claude_routines',
  'claude_routines',
  'routines',
  'routine',
  'seven_day_cowork',
  'cowork',
]

function rateWindow(w: Window | undefined, minutes: number): RateWindow | null {
  if (!w || typeof w.utilization !== 'number') return null
  return windowOf(w.utilization, minutes, isoOf(w.resets_at))
}

const asObject = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {}

/** Model-scoped weekly limits of `limits[]` (not the "All models" scope, which is the weekly window). */
function scopedWeekly(usage: Usage): NamedRateWindow[] {
  const out: NamedRateWindow[] = []
  for (const limit of usage.limits ?? []) {
    if (limit.group !== 'weekly' || limit.kind !== 'weekly_scoped') continue
    if (typeof limit.percent !== 'number' || !Number.isFinite(limit.percent)) continue
    const model = asObject(asObject(limit.scope).model)
    const name = nonEmpty(model.display_name)
    if (!name || slug(name) === 'all-models') continue
    const modelId = nonEmpty(model.id)
    if (modelId && (slug(modelId) === 'all-models' || slug(modelId).endsWith('-all-models'))) continue
    const id = `claude-weekly-scoped-${slug(modelId ?? name)}`
    if (id.endsWith('-') || out.some((w) => w.id === id)) continue
    out.push({ id, title: `${name} only`, window: windowOf(limit.percent, WEEK, isoOf(limit.resets_at)) })
  }
  return out
}

function routines(raw: Record<string, unknown>): NamedRateWindow[] {
  for (const key of ROUTINE_KEYS) {
    if (!(key in raw)) continue
    const w = rateWindow(raw[key] as Window, WEEK)
    if (w) return [{ id: 'claude-routines', title: 'Daily Routines', window: w }]
  }
  return []
}

/** ClaudePlan.oauthLoginMethod: "Claude Max 20x", "Claude Pro" … from the rate-limit tier. */
export function planOf(tier: string | null): string | null {
  const t = (tier ?? '').toLowerCase()
  const plan = t.includes('max')
    ? 'Max'
    : t.includes('pro')
      ? 'Pro'
      : t.includes('team')
        ? 'Team'
        : t.includes('enterprise')
          ? 'Enterprise'
          : null
  if (!plan) return null
  const words = t.split(/[^\p{L}\p{N}]+/u).filter(Boolean)
  const next = plan === 'Max' ? words[words.indexOf('max') + 1] : undefined
  return `Claude ${plan}${next && /^\d+x$/.test(next) ? ` ${next}` : ''}`
}

const Named = Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]))
const Profile = Type.Object({ account: Named, organization: Named }, Open)

/** The e-mail and plan of `/api/oauth/profile`, or nulls when it did not answer. */
function profileOf(answer: Answer | null): { email: string | null; plan: string | null } {
  if (answer?.status !== 200) return { email: null, plan: null }
  let json: Static<typeof Profile>
  try {
    json = parseJson(answer.text, Profile, VENDOR)
  } catch {
    return { email: null, plan: null }
  }
  const account = json.account ?? {}
  const org = json.organization ?? {}
  const emailOf = (o: Record<string, unknown>) =>
    nonEmpty(o.email_address) ?? nonEmpty(o.emailAddress) ?? nonEmpty(o.email)
  return {
    email: emailOf(account) ?? emailOf(json),
    plan: planOf(nonEmpty(org.rate_limit_tier)) ?? planOf(nonEmpty(org.organization_type)),
  }
}

function failureOf(answer: Answer): UsageFailure {
  if (answer.status === 401) return new UsageFailure('Claude OAuth request unauthorized (HTTP 401).')
  if (answer.status === 429) {
    const after = answer.headers.get('retry-after')?.trim()
    return new UsageFailure(
      `Claude OAuth usage endpoint is rate limited (HTTP 429)${after ? `; retry after ${after}` : ''}.`,
    )
  }
  if (answer.status === 403 && answer.text.includes('user:profile'))
    return new UsageFailure("Claude OAuth token does not meet scope requirement 'user:profile' (HTTP 403).")
  const body = excerpt(answer.text)
  return new UsageFailure(`Claude OAuth error: HTTP ${answer.status}${body ? ` – ${body}` : ''}`)
}

async function fetchUsage(env: Env, limits: CallLimits) {
  const token = nonEmpty(env[TOKEN_ENV])
  if (!token) throw new UsageFailure(`Claude OAuth token not found (${TOKEN_ENV} is not set).`)
  const scopes = (env[SCOPES_ENV] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  if (scopes.length > 0 && !scopes.includes('user:profile'))
    throw new UsageFailure(
      `Claude OAuth token missing 'user:profile' scope (has: ${scopes.join(', ')}).`,
      FAILURE.parse,
    )
  const base = baseOf(env, CLAUDE_USAGE_URL_ENV, CLAUDE_ENDPOINT)
  const headers = {
    Authorization: `Bearer ${token}`,
    Accept: 'application/json',
    'Content-Type': 'application/json',
  }
  const profile = call(`${base}/api/oauth/profile`, { headers, vendor: VENDOR }, limits).catch(() => null)
  const usageHeaders = {
    ...headers,
    'anthropic-beta': OAUTH_BETA,
    'User-Agent': `claude-code/${CLAUDE_CODE_VERSION}`,
  }
  const answer = await call(`${base}/api/oauth/usage`, { headers: usageHeaders, vendor: VENDOR }, limits)
  if (answer.status !== 200) throw failureOf(answer)
  const usage = parseJson<Usage>(answer.text, Usage, VENDOR)
  const primary =
    rateWindow(usage.five_hour, 300) ??
    rateWindow(usage.seven_day, WEEK) ??
    rateWindow(usage.seven_day_oauth_apps, WEEK) ??
    rateWindow(usage.seven_day_sonnet, WEEK) ??
    rateWindow(usage.seven_day_opus, WEEK)
  if (!primary) throw new UsageFailure('Claude usage response has no session data.', FAILURE.parse)
  const extra = [...scopedWeekly(usage), ...routines(usage as Record<string, unknown>)]
  const snapshot = {
    primary,
    secondary: rateWindow(usage.seven_day, WEEK),
    tertiary: rateWindow(usage.seven_day_sonnet ?? usage.seven_day_opus, WEEK),
    ...(extra.length ? { extraRateWindows: extra } : {}),
  }
  const { email, plan } = profileOf(await profile)
  return withIdentity(snapshot, CLAUDE_FEED, email, plan)
}

export const claudeUsageFeed: UsageFeed = {
  id: CLAUDE_FEED,
  source: 'oauth',
  secrets: (env) => [env[TOKEN_ENV]?.trim() ?? ''].filter(Boolean),
  fetch: fetchUsage,
}
