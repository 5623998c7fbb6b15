// The usage feed `antigravity` of the usage core: an Antigravity account's model quotas, as
// CodexBar's OAuth source reads them (AntigravityRemoteUsageFetcher, AntigravityStatusSnapshot):
// `POST {base}/v1internal:fetchAvailableModels` with the account's project gives each model's
// remaining fraction and reset; `retrieveUserQuota` stands in when that call is refused (403)
// and confirms an answer where every model is full (which may only prove availability).
// `loadCodeAssist` beside them names the plan (its failure leaves it null). The credential
// is ANTIGRAVITY_OAUTH_CREDENTIALS_JSON (`access_token`, `project_id`, `email`, `expiry_date`).
import type { Static } from 'typebox'
import * as Type from 'typebox'
import type { NamedRateWindow, RateWindow } from '../../quota/report.ts'
import { decodeJwtPayload } from '../chatgpt/jwt.ts'
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
  UsageFailure,
  type UsageFeed,
  windowOf,
  withIdentity,
} from '../shared/usage-fetch.ts'
import { CLIENT_METADATA, CLOUD_CODE_BASE_URL } from './constants.ts'

export const ANTIGRAVITY_FEED = 'antigravity'
export const CREDENTIALS_ENV = 'ANTIGRAVITY_OAUTH_CREDENTIALS_JSON'
/** Test hook (the backend's own, src/providers/antigravity/hosts.ts): replaces the production host. */
export const ANTIGRAVITY_BASE_URL_ENV = 'HEARTH_ANTIGRAVITY_BASE_URL'
const VENDOR = 'Antigravity'

const N = Type.Union([Type.Number(), Type.Null()])
const S = Type.Union([Type.String(), Type.Null()])
const Open = { additionalProperties: true } as const
const QuotaInfo = Type.Object({ remainingFraction: Type.Optional(N), resetTime: Type.Optional(S) }, Open)
const Models = Type.Object(
  {
    models: Type.Optional(
      Type.Union([
        Type.Record(
          Type.String(),
          Type.Object(
            {
              displayName: Type.Optional(S),
              label: Type.Optional(S),
              quotaInfo: Type.Optional(Type.Union([QuotaInfo, Type.Null()])),
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
const Buckets = Type.Object(
  {
    buckets: Type.Optional(
      Type.Union([
        Type.Array(
          Type.Object(
            { modelId: Type.Optional(S), remainingFraction: Type.Optional(N), resetTime: Type.Optional(S) },
            Open,
          ),
        ),
        Type.Null(),
      ]),
    ),
  },
  Open,
)
const Tier = Type.Optional(
  Type.Union([Type.Object({ id: Type.Optional(S), name: Type.Optional(S) }, Open), Type.Null()]),
)
const CodeAssist = Type.Object(
  {
    planInfo: Type.Optional(Type.Union([Type.Object({ planType: Type.Optional(S) }, Open), Type.Null()])),
    currentTier: Tier,
  },
  Open,
)
type Models = Static<typeof Models>
type Buckets = Static<typeof Buckets>

interface Quota {
  label: string
  modelId: string
  remaining: number | null
  resetsAt: string | undefined
}

interface Credential {
  accessToken: string
  projectId: string | null
  email: string | null
  idToken: string | null
}

function readCredential(env: Env): Credential {
  const raw = env[CREDENTIALS_ENV]
  if (raw === undefined || raw.trim() === '')
    throw new UsageFailure(`Antigravity Google auth not found (${CREDENTIALS_ENV} is not set).`)
  let json: Record<string, unknown>
  try {
    json = JSON.parse(raw)
  } catch {
    throw new UsageFailure('Could not decode the Antigravity account credentials.')
  }
  const accessToken = nonEmpty(json?.access_token) ?? nonEmpty(json?.accessToken)
  if (!accessToken) throw new UsageFailure('Antigravity credentials carry no access token.')
  return {
    accessToken,
    projectId: nonEmpty(json.project_id) ?? nonEmpty(json.projectId),
    email: nonEmpty(json.email),
    idToken: nonEmpty(json.id_token) ?? nonEmpty(json.idToken),
  }
}

class Backend {
  readonly #base: string
  readonly #token: string
  readonly #limits: CallLimits
  constructor(env: Env, token: string, limits: CallLimits) {
    this.#base = baseOf(env, ANTIGRAVITY_BASE_URL_ENV, CLOUD_CODE_BASE_URL)
    this.#token = token
    this.#limits = limits
  }

  post(method: string, body: unknown): Promise<Answer> {
    const headers = { Authorization: `Bearer ${this.#token}`, 'User-Agent': 'antigravity' }
    return call(
      `${this.#base}/v1internal:${method}`,
      { method: 'POST', headers, body, vendor: VENDOR },
      this.#limits,
    )
  }
}

/** A non-200 answer as CodexBar words it; a 403 is told apart (a fallback may follow). */
function failureOf(answer: Answer): UsageFailure & { denied?: boolean } {
  if (answer.status === 401) return new UsageFailure('Antigravity Google auth expired or invalid (HTTP 401).')
  const body = excerpt(answer.text) || `HTTP ${answer.status}`
  if (answer.status === 403)
    return Object.assign(new UsageFailure(`Antigravity remote API permission denied: ${body}`), {
      denied: true,
    })
  return new UsageFailure(`Antigravity remote API error: HTTP ${answer.status}: ${body}`)
}

async function availableModels(backend: Backend, body: unknown): Promise<Quota[]> {
  const answer = await backend.post('fetchAvailableModels', body)
  if (answer.status !== 200) throw failureOf(answer)
  const models = parseJson<Models>(answer.text, Models, VENDOR).models ?? {}
  return Object.entries(models).flatMap(([modelId, m]) =>
    m.quotaInfo
      ? [
          {
            label: nonEmpty(m.displayName) ?? nonEmpty(m.label) ?? modelId,
            modelId,
            remaining: m.quotaInfo.remainingFraction ?? null,
            resetsAt: isoOf(m.quotaInfo.resetTime),
          },
        ]
      : [],
  )
}

/** `retrieveUserQuota`'s buckets, the lowest fraction per model; null when the call is refused. */
async function userQuota(backend: Backend, body: unknown): Promise<Quota[] | null> {
  const answer = await backend.post('retrieveUserQuota', body)
  if (answer.status === 403) return null
  if (answer.status !== 200) throw failureOf(answer)
  const buckets = parseJson<Buckets>(answer.text, Buckets, VENDOR).buckets
  if (!buckets)
    throw new UsageFailure('Could not parse Antigravity remote usage: no quota buckets.', FAILURE.parse)
  const byModel = new Map<string, Quota>()
  for (const b of buckets) {
    const modelId = nonEmpty(b.modelId)
    if (!modelId) continue
    const next = {
      label: modelId,
      modelId,
      remaining: b.remainingFraction ?? null,
      resetsAt: isoOf(b.resetTime),
    }
    const had = byModel.get(modelId)
    if (!had || (next.remaining ?? Infinity) < (had.remaining ?? Infinity)) byModel.set(modelId, next)
  }
  return [...byModel.keys()].sort().map((k) => byModel.get(k) as Quota)
}

/** CodexBar's fetchModelQuotas: models, verified by the buckets when all read full. */
async function quotas(backend: Backend, body: unknown): Promise<Quota[]> {
  let models: Quota[]
  try {
    models = await availableModels(backend, body)
  } catch (err) {
    if (!(err as { denied?: boolean }).denied) throw err
    return (await userQuota(backend, body)) ?? []
  }
  const allFull = models.length > 0 && models.every((q) => q.remaining !== null && q.remaining >= 0.999)
  if (!allFull) return models
  const verified = await userQuota(backend, body)
  if (!verified?.some((q) => q.remaining !== null)) return []
  const byId = new Map(verified.map((q) => [q.modelId.toLowerCase(), q]))
  const merged = models.flatMap((m) => {
    const v = byId.get(m.modelId.toLowerCase())
    if (!v) return []
    byId.delete(m.modelId.toLowerCase())
    return [{ ...m, remaining: v.remaining ?? m.remaining, resetsAt: v.resetsAt ?? m.resetsAt }]
  })
  const rest = [...byId.values()]
    .filter((q) => q.remaining !== null)
    .sort((a, b) => a.modelId.localeCompare(b.modelId))
  return [...merged, ...rest]
}

async function planOf(backend: Backend, hostedDomain: string | null): Promise<string | null> {
  const answer = await backend.post('loadCodeAssist', { metadata: CLIENT_METADATA }).catch(() => null)
  if (answer?.status !== 200) return null
  let json: Static<typeof CodeAssist>
  try {
    json = parseJson(answer.text, CodeAssist, VENDOR)
  } catch {
    return null
  }
  const planType = nonEmpty(json.planInfo?.planType)
  if (planType) return planType
  const tier = nonEmpty(json.currentTier?.id)
  if (tier === 'standard-tier') return 'Paid'
  if (tier === 'free-tier') return hostedDomain ? 'Workspace' : 'Free'
  if (tier === 'legacy-tier') return 'Legacy'
  return nonEmpty(json.currentTier?.name)
}

// The mapping of AntigravityStatusSnapshot.toUsageSnapshot: Gemini models draw on one pool
// (primary), Claude and GPT models on another (secondary); each pool is shown by its most
// used selectable text model. Models outside the pools that are partly used, and pools known
// only by their reset, are named windows.

type Pool = 'gemini' | 'claude-gpt'
const POOLS: Record<Pool, { id: string; title: string }> = {
  gemini: { id: 'antigravity-gemini', title: 'Gemini Models' },
  'claude-gpt': { id: 'antigravity-claude-gpt', title: 'Claude and GPT models' },
}

function familyOf(text: string): 'claude' | 'gpt' | 'gemini-pro' | 'gemini-flash' | null {
  if (text.includes('claude')) return 'claude'
  if (text.includes('gpt') || text.includes('openai')) return 'gpt'
  if (text.includes('gemini') && text.includes('pro')) return 'gemini-pro'
  if (text.includes('gemini') && text.includes('flash')) return 'gemini-flash'
  return null
}

function poolOf(q: Quota): Pool | null {
  const family = familyOf(q.modelId.toLowerCase()) ?? familyOf(q.label.toLowerCase())
  if (!family) return null
  return family.startsWith('gemini') ? 'gemini' : 'claude-gpt'
}

function selectable(q: Quota): boolean {
  const id = q.modelId.toLowerCase()
  const label = q.label.toLowerCase()
  const has = (word: string) => id.includes(word) || label.includes(word)
  return !has('lite') && !has('autocomplete') && !id.startsWith('tab_') && !has('image')
}

const remainingPercent = (q: Quota) =>
  q.remaining === null ? 0 : Math.max(0, Math.min(100, q.remaining * 100))
const rateWindow = (q: Quota): RateWindow => windowOf(100 - remainingPercent(q), null, q.resetsAt)

function representative(candidates: Quota[], pool: Pool): Quota | null {
  const known = candidates.filter((q) => poolOf(q) === pool && q.remaining !== null)
  known.sort(
    (a, b) =>
      remainingPercent(a) - remainingPercent(b) ||
      (a.resetsAt && b.resetsAt
        ? a.resetsAt.localeCompare(b.resetsAt)
        : a.resetsAt
          ? -1
          : b.resetsAt
            ? 1
            : 0) ||
      a.label.localeCompare(b.label),
  )
  return known[0] ?? null
}

const FAMILY_RANK = ['claude', 'gpt', 'gemini-pro', 'gemini-flash']

/** CodexBar's order of model windows: family, newer version first, higher tier first, label. */
function modelOrder(a: Quota, b: Quota): number {
  const rank = (q: Quota) => {
    const family = familyOf(q.modelId.toLowerCase()) ?? familyOf(q.label.toLowerCase())
    return family ? FAMILY_RANK.indexOf(family) : FAMILY_RANK.length
  }
  const version = (q: Quota) => {
    const m = /(\d+)(?:[.-](\d+))?/.exec(q.label.toLowerCase())
    return m ? Number(m[1]) * 1000 + Number(m[2] ?? 0) : -1
  }
  const tier = (q: Quota) => {
    const text = `${q.label} ${q.modelId}`.toLowerCase()
    return text.includes('high') ? 0 : text.includes('medium') ? 1 : text.includes('low') ? 2 : 1
  }
  return rank(a) - rank(b) || version(b) - version(a) || tier(a) - tier(b) || a.label.localeCompare(b.label)
}

/** A model id as CodexBar titles it when the backend gives no display name (`gemini-3-pro` → "Gemini 3 Pro"). */
function titleOf(q: Quota): string {
  if (q.label.trim() && q.label !== q.modelId) return q.label
  return q.modelId
    .split('-')
    .map((p) =>
      ['ai', 'api', 'gpt', 'oss'].includes(p) ? p.toUpperCase() : p.charAt(0).toUpperCase() + p.slice(1),
    )
    .join(' ')
}

export function snapshotOf(models: Quota[]) {
  if (models.length === 0) throw new UsageFailure('Antigravity reported no quota models.', FAILURE.parse)
  const candidates = models.filter((q) => poolOf(q) !== null && selectable(q))
  const primary = representative(candidates, 'gemini')
  const secondary = representative(candidates, 'claude-gpt')
  const extra: NamedRateWindow[] = []
  for (const [pool, rep] of [
    ['gemini', primary],
    ['claude-gpt', secondary],
  ] as const) {
    if (rep) continue
    const resetOnly = candidates.find((q) => poolOf(q) === pool && q.remaining === null && q.resetsAt)
    if (resetOnly) extra.push({ ...POOLS[pool], window: rateWindow(resetOnly), usageKnown: false })
  }
  const distinct = models
    .filter(
      (q) =>
        !candidates.includes(q) &&
        (q.remaining === null ? q.resetsAt !== undefined : remainingPercent(q) < 99.9),
    )
    .sort(modelOrder)
  for (const q of distinct) {
    const w: NamedRateWindow = { id: q.modelId, title: titleOf(q), window: rateWindow(q) }
    if (q.remaining === null) w.usageKnown = false
    extra.push(w)
  }
  return {
    primary: primary && rateWindow(primary),
    secondary: secondary && rateWindow(secondary),
    tertiary: null,
    ...(extra.length ? { extraRateWindows: extra } : {}),
  }
}

async function fetchUsage(env: Env, limits: CallLimits) {
  const cred = readCredential(env)
  const backend = new Backend(env, cred.accessToken, limits)
  const claims = decodeJwtPayload(cred.idToken)
  const plan = planOf(backend, nonEmpty(claims.hd))
  const body = cred.projectId ? { project: cred.projectId } : {}
  const snapshot = snapshotOf(await quotas(backend, body))
  const email = nonEmpty(claims.email) ?? cred.email
  return withIdentity(snapshot, ANTIGRAVITY_FEED, email, await plan)
}

function secrets(env: Env): string[] {
  try {
    const cred = readCredential(env)
    return [cred.accessToken, cred.idToken ?? ''].filter(Boolean)
  } catch {
    return []
  }
}

export const antigravityUsageFeed: UsageFeed = {
  id: ANTIGRAVITY_FEED,
  source: 'oauth',
  secrets,
  fetch: fetchUsage,
}
