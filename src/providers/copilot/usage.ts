// The usage feed `copilot` of the usage core: a GitHub account's Copilot quotas, as CodexBar
// reads them (CopilotUsageFetcher.swift, docs/copilot.md): `GET {GitHub API}/copilot_internal/user`
// with the GitHub token (`Authorization: token …`, not a Copilot token) and the editor
// headers CodexBar sends. The token is COPILOT_API_TOKEN, CodexBar's variable;
// HEARTH_COPILOT_HOST names a GitHub Enterprise host (its API is `api.<host>`).
// Premium requests are the primary window, chat the secondary; both reset on
// `quota_reset_date`; an unlimited quota is no window.
import * as Type from 'typebox'
import type { RateWindow } from '../../quota/report.ts'
import {
  type CallLimits,
  call,
  type Env,
  excerpt,
  FAILURE,
  type FeedAnswer,
  isoOf,
  nonEmpty,
  parseJson,
  UsageFailure,
  type UsageFeed,
  windowOf,
  withIdentity,
} from '../shared/usage-fetch.ts'
import { type QuotaSnapshot, quotasOf } from './usage-snapshots.ts'

export const COPILOT_FEED = 'copilot'
/** CodexBar's variable: a GitHub OAuth token (the device flow's, or `gh auth token`'s). */
export const COPILOT_TOKEN_ENV = 'COPILOT_API_TOKEN'
/** hearth's: the GitHub Enterprise host of the account, when it is not github.com. */
export const COPILOT_HOST_ENV = 'HEARTH_COPILOT_HOST'
/** Test hook (the sign-in's too): a fake GitHub's base URL, its REST API under `/api`. */
export const COPILOT_GITHUB_URL_ENV = 'HEARTH_COPILOT_GITHUB_URL'
const PATH = '/copilot_internal/user'
const VENDOR = 'Copilot'

/** What CodexBar sends beside the token (its `addCommonHeaders`). */
const HEADERS = {
  Accept: 'application/json',
  'Editor-Version': 'vscode/1.96.2',
  'Editor-Plugin-Version': 'copilot-chat/0.26.7',
  'User-Agent': 'GitHubCopilotChat/0.26.7',
  'X-Github-Api-Version': '2025-04-01',
}

const Answer = Type.Object({}, { additionalProperties: true })
type Json = Record<string, unknown>

/**
 * The GitHub REST API the call goes to: the test's fake (`<base>/api`), the enterprise
 * host's (`api.<host>`), else api.github.com. As `githubUrls` of constants.ts says it;
 * not imported from there, which would bring the package manifest into the core's bundle.
 */
function apiOf(env: Env): string {
  const host = nonEmpty(env[COPILOT_GITHUB_URL_ENV]) ?? nonEmpty(env[COPILOT_HOST_ENV]) ?? 'github.com'
  if (/^https?:\/\//i.test(host)) return `${host.replace(/\/+$/, '')}/api`
  // A bare host only: the token must not go to a URL a stray path or query makes up.
  if (!/^[a-z0-9.-]+(:\d+)?$/i.test(host))
    throw new UsageFailure(`${COPILOT_HOST_ENV} is not a GitHub host name: ${excerpt(host, 80)}`)
  const name = host.toLowerCase()
  return name === 'github.com' ? 'https://api.github.com' : `https://api.${name}`
}

/** `quota_reset_date` as CodexBar reads it: RFC 3339, or a bare date (midnight UTC). */
function resetOf(value: unknown): string | undefined {
  const raw = nonEmpty(value)
  if (raw === null) return undefined
  if (/^\d{4}-\d{2}-\d{2}$/.test(raw)) return isoOf(`${raw}T00:00:00Z`)
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(raw)) return isoOf(raw)
  return undefined
}

/** A quota's window: used = 100 − percent left; none for an unlimited quota or one without a percent. */
function windowOfQuota(s: QuotaSnapshot | null, resetsAt: string | undefined): RateWindow | null {
  if (!s || s.unlimited || s.percentRemaining === null) return null
  const used = Math.max(0, 100 - s.percentRemaining)
  return windowOf(used, undefined, resetsAt, used > 100 ? `${Math.round(used)}% used` : undefined)
}

/** CodexBar's plan label: each space-separated word capitalised (`individual_pro` → `Individual_pro`). */
function planOf(value: unknown): string | null {
  const plan = nonEmpty(value)
  return plan?.toLowerCase().replace(/(^|\s)(\S)/g, (_, space, c) => space + c.toUpperCase()) ?? null
}

function failureOf(status: number, text: string): UsageFailure {
  if (status === 401 || status === 403)
    return new UsageFailure(`GitHub refused the token for Copilot usage (HTTP ${status}): sign in again.`)
  if (status === 404) return new UsageFailure('This GitHub account has no Copilot subscription (HTTP 404).')
  const body = excerpt(text)
  return new UsageFailure(`Copilot usage API error ${status}${body ? `: ${body}` : '.'}`)
}

async function fetchUsage(env: Env, limits: CallLimits): Promise<FeedAnswer> {
  const token = nonEmpty(env[COPILOT_TOKEN_ENV])
  if (!token) throw new UsageFailure(`GitHub token not found (${COPILOT_TOKEN_ENV} is not set).`)
  const headers = { ...HEADERS, Authorization: `token ${token}` }
  const answer = await call(apiOf(env) + PATH, { headers, vendor: VENDOR }, limits)
  if (answer.status !== 200) throw failureOf(answer.status, answer.text)
  const body = parseJson<Json>(answer.text, Answer, VENDOR)
  const resetsAt = resetOf(body.quota_reset_date)
  const { premium, chat } = quotasOf(body)
  const premiumWindow = windowOfQuota(premium, resetsAt)
  const chatWindow = windowOfQuota(chat, resetsAt)
  const unlimited = premium?.unlimited === true || chat?.unlimited === true
  // Token-based billing seats and unlimited quotas have no metered window: the plan alone.
  if (!premiumWindow && !chatWindow && body.token_based_billing !== true && !unlimited)
    throw new UsageFailure('No Copilot quota found in the usage response.', FAILURE.parse)
  const snapshot = { primary: premiumWindow, secondary: chatWindow, tertiary: null }
  return {
    usage: withIdentity(snapshot, COPILOT_FEED, null, planOf(body.copilot_plan)),
    account: nonEmpty(body.login),
  }
}

export const copilotUsageFeed: UsageFeed = {
  id: COPILOT_FEED,
  source: 'api',
  secrets: (env) => [env[COPILOT_TOKEN_ENV]?.trim() ?? ''].filter(Boolean),
  fetch: fetchUsage,
}
