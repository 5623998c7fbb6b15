// How `copilot_internal/user` describes an account's Copilot quotas, read as CodexBar reads
// it (CopilotUsageModels.swift): a quota snapshot has an entitlement, what remains of it
// and the percent remaining, any of which may come as a number or as a string; an unlimited
// one counts as 100 % left; a snapshot with nothing entitled and nothing left is a
// placeholder (token-based billing seats) and carries no quota. The premium requests and
// the chat quota are picked from `quota_snapshots` by name, else from the older
// `monthly_quotas` / `limited_user_quotas` counts.

/** One quota as read: null figures were not in the answer. */
export interface QuotaSnapshot {
  entitlement: number | null
  remaining: number | null
  /** The percent left (100 when unlimited), or null when the answer gives no way to know it. */
  percentRemaining: number | null
  creditsUsed: number | null
  unlimited: boolean
}

export interface CopilotQuotas {
  premium: QuotaSnapshot | null
  chat: QuotaSnapshot | null
}

type Json = Record<string, unknown>

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v)

/** A number, or a string holding one ("300", "87.5"); null for anything else. */
export function numberOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  if (typeof value !== 'string' || value.trim() === '') return null
  const n = Number(value)
  return Number.isFinite(n) ? n : null
}

/** One snapshot object as read (the percent derived from the counts when not given). */
export function snapshotOf(json: Json): QuotaSnapshot {
  const entitlement = numberOf(json.entitlement)
  const remaining = numberOf(json.remaining)
  const unlimited = json.unlimited === true
  let percentRemaining = numberOf(json.percent_remaining)
  if (unlimited) percentRemaining = 100
  else if (percentRemaining === null && entitlement !== null && entitlement > 0 && remaining !== null)
    percentRemaining = (remaining / entitlement) * 100
  return { entitlement, remaining, percentRemaining, creditsUsed: numberOf(json.credits_used), unlimited }
}

/** Nothing entitled and nothing left: no quota to show (an absent figure counts as 0 only without a percent). */
export function isPlaceholder(s: QuotaSnapshot): boolean {
  if (s.unlimited) return false
  if (s.entitlement === 0 && s.remaining === 0) return true
  return (s.entitlement ?? 0) === 0 && (s.remaining ?? 0) === 0 && s.percentRemaining === null
}

/** A snapshot worth keeping: not a placeholder, unless it counts credits used. */
const kept = (s: QuotaSnapshot | null) => (s && (!isPlaceholder(s) || s.creditsUsed !== null) ? s : null)

/** A snapshot that makes a window: a percent, not a placeholder. */
export const usable = (s: QuotaSnapshot | null): QuotaSnapshot | null =>
  s && !isPlaceholder(s) && s.percentRemaining !== null ? s : null

/**
 * The premium and chat snapshots of `quota_snapshots`: by their names, else the first other
 * key naming chat, or premium / completion / code; with neither, the first usable snapshot
 * as chat.
 */
function fromSnapshots(snapshots: Json): CopilotQuotas {
  const at = (key: string) => (isObject(snapshots[key]) ? snapshotOf(snapshots[key] as Json) : null)
  let premium = kept(at('premium_interactions'))
  let chat = kept(at('chat'))
  if (premium && chat) return { premium, chat }
  let first: QuotaSnapshot | null = null
  let otherChat: QuotaSnapshot | null = null
  let otherPremium: QuotaSnapshot | null = null
  for (const [key, value] of Object.entries(snapshots)) {
    const s = isObject(value) ? kept(snapshotOf(value)) : null
    if (!s) continue
    first ??= s
    const name = key.toLowerCase()
    if (name.includes('chat')) otherChat ??= s
    else if (['premium', 'completion', 'code'].some((w) => name.includes(w))) otherPremium ??= s
  }
  premium ??= otherPremium
  chat ??= otherChat
  if (!premium && !chat) chat = first
  return { premium, chat }
}

/** A snapshot from the older counts: `monthly` entitled, `limited` left. */
function fromCounts(monthly: unknown, limited: unknown): QuotaSnapshot | null {
  const entitlement = numberOf(monthly)
  const left = numberOf(limited)
  if (entitlement === null || left === null || entitlement <= 0) return null
  const remaining = Math.max(0, left)
  const percentRemaining = Math.max(0, Math.min(100, (remaining / entitlement) * 100))
  return { entitlement, remaining, percentRemaining, creditsUsed: null, unlimited: false }
}

/** The snapshot to show: a usable direct one, else the usable one from the counts (credits kept). */
function preferred(direct: QuotaSnapshot | null, fallback: QuotaSnapshot | null): QuotaSnapshot | null {
  const other = usable(fallback)
  if (direct?.unlimited && other) return { ...other, creditsUsed: direct.creditsUsed }
  if (usable(direct)) return direct
  if (!other) return null
  return direct?.creditsUsed != null ? { ...other, creditsUsed: direct.creditsUsed } : other
}

/** The premium and chat quotas of a `copilot_internal/user` answer. */
export function quotasOf(answer: Json): CopilotQuotas {
  const direct = isObject(answer.quota_snapshots)
    ? fromSnapshots(answer.quota_snapshots)
    : { premium: null, chat: null }
  const monthly = isObject(answer.monthly_quotas) ? answer.monthly_quotas : {}
  const limited = isObject(answer.limited_user_quotas) ? answer.limited_user_quotas : {}
  const premium = preferred(direct.premium, fromCounts(monthly.completions, limited.completions))
  const chat = preferred(direct.chat, fromCounts(monthly.chat, limited.chat))
  return premium || chat ? { premium, chat } : direct
}
