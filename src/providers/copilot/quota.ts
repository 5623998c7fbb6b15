// GitHub Copilot's usage: the `copilot` feed, read with the account's GitHub token in
// CodexBar's variable COPILOT_API_TOKEN. `copilot_internal/user` takes only the GitHub
// token (not the short-lived Copilot token it is exchanged for), and that token is the
// access token of GitHub's API: it does not expire and no refresh token stands behind it.
// A copilot profile with no stored account polls on the signed-in GitHub CLI's token
// (`gh auth token`, read at each poll, never stored). Readings that show premium requests
// left clear the account's `limitedUntil`.
import { type CoreHandoff, type LimitReset, type QuotaFacts, textAt } from '../shared/quota.ts'
import { SignInError, type StoredCredential } from '../shared/sign-in-plugin.ts'
import { GITHUB_HOST, githubHostOf } from './constants.ts'
import { ghAuthToken } from './gh.ts'
import { COPILOT_FEED, COPILOT_HOST_ENV, COPILOT_TOKEN_ENV } from './usage.ts'

/** The token, and the GitHub Enterprise host when the account is not on github.com (a public fact). */
function handoffOf(token: string, host: string | null): CoreHandoff {
  const env: Record<string, string> = { [COPILOT_TOKEN_ENV]: token }
  if (host && host.toLowerCase() !== GITHUB_HOST) env[COPILOT_HOST_ENV] = host
  return { env, files: {} }
}

/** `gh auth token` for the sign-in settings' host; failures said plainly, never with gh's output. */
async function ghHandoff(
  settings: Readonly<Record<string, unknown>>,
  signal: AbortSignal,
): Promise<CoreHandoff> {
  const configured = typeof settings.host === 'string' && settings.host !== '' ? settings.host : GITHUB_HOST
  const host = githubHostOf(configured)
  try {
    return handoffOf(await ghAuthToken(host, signal), /^https?:\/\//i.test(host) ? null : host)
  } catch (err) {
    if (!(err instanceof SignInError)) throw err
    // gh's stderr may say more than it should: the reading keeps only what went wrong.
    if (err.code === 'cli_signed_out')
      throw new SignInError(
        err.code,
        'the GitHub CLI gave no token (gh auth token failed): run gh auth login',
      )
    throw err
  }
}

/**
 * Clears `limitedUntil` when the poll shows premium requests left (or unlimited: the feed
 * reports no premium window then) and no reported quota used up; null when there is no
 * mark or it still stands.
 */
export function healMarks(
  credential: StoredCredential,
  limits: readonly LimitReset[],
): StoredCredential | null {
  if (credential.limitedUntil === undefined) return null
  const premium = limits.find((l) => l.limitId === 'primary')
  const left = premium === undefined || (typeof premium.usedPercent === 'number' && premium.usedPercent < 100)
  const usedUp = limits.some((l) => typeof l.usedPercent === 'number' && l.usedPercent >= 100)
  if (!left || usedUp) return null
  const { limitedUntil: _, ...healed } = credential
  return healed
}

export const quota: QuotaFacts = {
  feed: COPILOT_FEED,
  handoff: (credential) => handoffOf(textAt(credential, 'github') ?? '', textAt(credential, 'host')),
  cliFeed: { feed: COPILOT_FEED, handoff: ghHandoff },
  healMarks,
}
