// The usage feed `codex` of the usage core: a ChatGPT account's plan usage, as CodexBar reads
// it (CodexOAuthUsageFetcher, CodexReconciledState, CodexAdditionalRateLimitMapper):
// `GET {base}/wham/usage` with the access token and the `ChatGPT-Account-Id` header. The
// credential is `$CODEX_HOME/auth.json` (`{"tokens":{"access_token","account_id"}}`).
import { readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import type { Static } from 'typebox'
import * as Type from 'typebox'
import type { NamedRateWindow, RateWindow } from '../../quota/report.ts'
import {
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
import { claimsOf, decodeJwtPayload } from './jwt.ts'

export const CODEX_FEED = 'codex'
/** Test hook: replaces `https://chatgpt.com/backend-api`. */
export const CHATGPT_USAGE_URL_ENV = 'HEARTH_CHATGPT_USAGE_URL'
const BACKEND = 'https://chatgpt.com/backend-api'
const VENDOR = 'Codex'

const N = Type.Union([Type.Number(), Type.Null()])
const S = Type.Union([Type.String(), Type.Null()])
const Open = { additionalProperties: true } as const
const Window = Type.Object(
  { used_percent: Type.Optional(N), reset_at: Type.Optional(N), limit_window_seconds: Type.Optional(N) },
  Open,
)
const Limits = Type.Object(
  {
    primary_window: Type.Optional(Type.Union([Window, Type.Null()])),
    secondary_window: Type.Optional(Type.Union([Window, Type.Null()])),
  },
  Open,
)
const Usage = Type.Object(
  {
    plan_type: Type.Optional(S),
    rate_limit: Type.Optional(Type.Union([Limits, Type.Null()])),
    additional_rate_limits: Type.Optional(
      Type.Union([
        Type.Array(
          Type.Object(
            {
              limit_name: Type.Optional(S),
              metered_feature: Type.Optional(S),
              rate_limit: Type.Optional(Type.Union([Limits, Type.Null()])),
            },
            Open,
          ),
        ),
        Type.Null(),
      ]),
    ),
  },
  Open,
)
type Window = Static<typeof Window>
type Usage = Static<typeof Usage>

interface Credential {
  accessToken: string
  accountId: string | null
  idToken: string | null
}

function authFile(env: Env): string {
  return join(env.CODEX_HOME?.trim() || join(env.HOME?.trim() || homedir(), '.codex'), 'auth.json')
}

function readCredential(env: Env): Credential {
  let text: string
  try {
    text = readFileSync(authFile(env), 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new UsageFailure('Codex auth.json not found.')
    throw new UsageFailure('Codex auth.json could not be read.')
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new UsageFailure('Failed to decode Codex credentials: Invalid JSON')
  }
  const tokens = (json as { tokens?: Record<string, unknown> } | null)?.tokens
  const accessToken = nonEmpty(tokens?.access_token) ?? nonEmpty(tokens?.accessToken)
  if (!tokens || !accessToken) throw new UsageFailure('Codex auth.json exists but contains no tokens.')
  const idToken = nonEmpty(tokens.id_token) ?? nonEmpty(tokens.idToken)
  const accountId =
    nonEmpty(tokens.account_id) ??
    nonEmpty(tokens.accountId) ??
    claimsOf(decodeJwtPayload(idToken)).account_id ??
    claimsOf(decodeJwtPayload(accessToken)).account_id ??
    null
  return { accessToken, accountId, idToken }
}

/** CodexBar's usage URL: `/wham/usage` under a `/backend-api` base, else Codex's `/api/codex/usage`. */
function usageUrl(env: Env): string {
  const base = baseOf(env, CHATGPT_USAGE_URL_ENV, BACKEND)
  return base + (base.includes('/backend-api') ? '/wham/usage' : '/api/codex/usage')
}

function rateWindow(w: Window | null | undefined): RateWindow | null {
  if (!w || typeof w.used_percent !== 'number') return null
  const seconds = w.limit_window_seconds ?? 0
  return windowOf(w.used_percent, seconds > 0 ? Math.floor(seconds / 60) : null, isoOf(w.reset_at))
}

/** CodexRateWindowNormalizer: a 5 h window is the session (primary), a 7 d one the week (secondary). */
function normalize(a: RateWindow | null, b: RateWindow | null): [RateWindow | null, RateWindow | null] {
  const role = (w: RateWindow) => (w.windowMinutes === 300 ? 's' : w.windowMinutes === 10080 ? 'w' : 'u')
  if (a && b) return role(a) === 'w' && role(b) !== 'w' ? [b, a] : [a, b]
  if (a) return role(a) === 'w' ? [null, a] : [a, null]
  if (b) return role(b) === 'w' ? [null, b] : [b, null]
  return [null, null]
}

/** CodexAdditionalRateLimitMapper: model-specific limits as named windows (Spark has fixed ids). */
function extraWindows(limits: Usage['additional_rate_limits']): NamedRateWindow[] {
  const out: NamedRateWindow[] = []
  const used = new Set<string>()
  const add = (id: string, title: string, w: RateWindow | null) => {
    if (!w || used.has(id)) return
    used.add(id)
    out.push({ id, title, window: w })
  }
  for (const entry of limits ?? []) {
    const name = nonEmpty(entry.limit_name)
    const feature = nonEmpty(entry.metered_feature)
    const primary = rateWindow(entry.rate_limit?.primary_window)
    const secondary = rateWindow(entry.rate_limit?.secondary_window)
    if ([name, feature].some((v) => v?.toLowerCase().includes('spark'))) {
      for (const [w, fallback] of [
        [primary, 'five'],
        [secondary, 'week'],
      ] as const) {
        if (!w) continue
        const m = w.windowMinutes ?? 0
        const kind = m > 0 && m <= 360 ? 'five' : m >= 8640 ? 'week' : fallback
        if (kind === 'five') add('codex-spark', 'Codex Spark 5-hour', w)
        else add('codex-spark-weekly', 'Codex Spark Weekly', w)
      }
      continue
    }
    const source = feature ?? name
    const id = source ? slug(source) : ''
    if (id) add(`codex-${id}`, name ?? feature ?? 'Codex extra limit', primary ?? secondary)
  }
  return out
}

async function fetchUsage(env: Env, limits: CallLimits) {
  const cred = readCredential(env)
  const headers: Record<string, string> = {
    Authorization: `Bearer ${cred.accessToken}`,
    Accept: 'application/json',
    'User-Agent': 'hearth',
  }
  if (cred.accountId) headers['ChatGPT-Account-Id'] = cred.accountId
  const answer = await call(usageUrl(env), { headers, vendor: VENDOR }, limits)
  if (answer.status === 401 || answer.status === 403)
    throw new UsageFailure(`Codex OAuth token expired or invalid (HTTP ${answer.status}).`)
  if (answer.status < 200 || answer.status > 299) {
    const body = excerpt(answer.text)
    throw new UsageFailure(`Codex API error ${answer.status}${body ? `: ${body}` : '.'}`)
  }
  const usage = parseJson<Usage>(answer.text, Usage, VENDOR)
  const [primary, secondary] = normalize(
    rateWindow(usage.rate_limit?.primary_window),
    rateWindow(usage.rate_limit?.secondary_window),
  )
  if (!primary && !secondary)
    throw new UsageFailure('No rate limits found in Codex usage response.', FAILURE.parse)
  const extra = extraWindows(usage.additional_rate_limits)
  const claims = claimsOf(decodeJwtPayload(cred.idToken))
  const plan = nonEmpty(usage.plan_type) ?? (cred.idToken ? (claims.plan ?? null) : null)
  const email = cred.idToken ? (claims.email ?? null) : null
  const snapshot = {
    primary,
    secondary,
    tertiary: null,
    ...(extra.length ? { extraRateWindows: extra } : {}),
  }
  return withIdentity(snapshot, CODEX_FEED, email, plan)
}

function secrets(env: Env): string[] {
  try {
    const cred = readCredential(env)
    return [cred.accessToken, cred.idToken ?? ''].filter(Boolean)
  } catch {
    return []
  }
}

export const codexUsageFeed: UsageFeed = { id: CODEX_FEED, source: 'oauth', secrets, fetch: fetchUsage }
