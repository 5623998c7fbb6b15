// What a provider says about polling its usage (its descriptor's `quota`, written in its
// quota.ts): which usage feed reports it, what the usage core is handed for an account or
// an API-key profile, and how readings heal its limit marks. The daemon's poller
// (src/quota/) runs the core and owns the temp dir, the lock and the schedule; these are
// vendor facts only. The core's variables and files are CodexBar's, so its CLI can stand in
// for hearth's core (docs/quota.md, "Credentials").
import type { StoredCredential } from './sign-in-plugin.ts'

/**
 * What the usage core is handed for one poll: variables of its environment and files in a
 * private directory made for the call (paths relative to it). Only an access token or an
 * API key and public facts (account id, project id, e-mail), never a refresh token.
 */
export interface CoreHandoff {
  env: Record<string, string>
  files: Record<string, string>
}

/** A limit of a poll's readings and when it resets (epoch ms; null when unknown). */
export interface LimitReset {
  limitId: string
  /** The limit's title as reported (`Gemini Pro`, `Claude + GPT`), or null. */
  label: string | null
  resetAtMs: number | null
  /** The percent used as reported (0–100, more when over), or null when unknown. */
  usedPercent?: number | null
}

export interface QuotaFacts {
  /** The usage feed of its signed-in accounts, or null when only API-key profiles have one. */
  feed: string | null
  /** The hand-off for a signed-in account; `dir` is the private directory of the call. */
  handoff?: (credential: StoredCredential, dir: string) => CoreHandoff
  /**
   * An API-key profile's feed, by its endpoint: the feed and the hand-off of its key, or
   * null when the endpoint's host has no feed (the profile is not polled).
   */
  profileFeed?: (endpoint: string, apiKey: string) => { feed: string; handoff: CoreHandoff } | null
  /**
   * A profile of this provider's extension with no stored account polls on the credential
   * of the vendor's signed-in CLI (the spec's "the signed-in provider CLI as credential"):
   * the feed, and the hand-off read now from the CLI (a child process) for the sign-in
   * settings (`providers.sign_in.<id>` with its defaults). The read throws a SignInError
   * whose message says why (not installed, signed out) without quoting the CLI's output;
   * the poller records it as the profile's failed reading.
   */
  cliFeed?: {
    feed: string
    handoff: (signInSettings: Readonly<Record<string, unknown>>, signal: AbortSignal) => Promise<CoreHandoff>
  }
  /**
   * Heals the account's limit marks when a poll's readings arrive: the credential to store,
   * or null when nothing changes. Called under the credential lock with the stored account.
   */
  healMarks?: (credential: StoredCredential, limits: readonly LimitReset[]) => StoredCredential | null
}

/** The string at `field`, or null when absent or empty. */
export const textAt = (credential: StoredCredential, field: string): string | null => {
  const v = credential[field]
  return typeof v === 'string' && v !== '' ? v : null
}
