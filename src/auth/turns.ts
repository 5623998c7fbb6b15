// The credentials of a turn for profiles that sign in. A turn takes an account from the
// pool (bound by the profile's account_id, else sticky to the session), refreshed under the
// credential lock when it expires within a minute; the transport gets its access token and
// what the provider needs beside it for this one turn.
//
// - chatgpt: the workspace header; a 401 removes the account; a 429 that says when the
//   account may be used again marks it limited until then (`limitedUntil`).
// - claude: the access token alone (the transport resolves the endpoint); a 401 marks that
//   access token expired, so the next turn refreshes it (an account without a refresh token
//   is then skipped).
// - antigravity: the account's project and the Antigravity user agent; the pool is ordered
//   by the meter of the turn's model (`limitedMeters`), and a 429 marks that meter only; a
//   401 marks the access token expired, so the next turn refreshes it (a revoked refresh
//   token then signs the account out: pool.ts).

import { antigravityBaseUrl } from '../providers/antigravity/hosts.ts'
import { meterOf } from '../providers/antigravity/meters.ts'
import { antigravityVersion, userAgentOf } from '../providers/antigravity/version.ts'
import { CHATGPT_ENDPOINT } from '../providers/chatgpt/constants.ts'
import { chatgptAccountId } from '../providers/chatgpt/signin.ts'
import type { SignInPlugin, StoredCredential } from '../providers/shared/signin.ts'
import type { TransportProfile } from '../providers/types.ts'
import type { TurnCredentials } from '../runs/engine.ts'
import { HearthError } from '../schemas/problems.ts'
import type { ResolvedProfile } from '../settings/profiles.ts'
import type { Settings } from '../settings/service.ts'
import { AccountError, idOf, listAccounts, markLimited, withAccounts } from './accounts.ts'
import { AccountPool } from './pool.ts'
import type { AuthService } from './service.ts'

export function turnCredentials(auth: AuthService, settings: Settings): TurnCredentials {
  const pluginOf = (extension: string) => auth.plugins().get(extension)
  /** The access token each account last handed to a turn (a 401 marks only that one expired). */
  const handedOut = new Map<string, string>()
  return {
    async forTurn(sessionId, profile, signal, model) {
      const plugin = pluginOf(profile.extension)
      if (!plugin) return { transport: profile.transport, accountId: null }
      const meter = profile.extension === 'antigravity' ? (meterOf(model) ?? undefined) : undefined
      let chosen: { id: string; credential: StoredCredential }
      try {
        chosen = await new AccountPool({ settings, plugin }).credentialFor({
          sessionId,
          accountId: profile.account_id,
          signal,
          meter,
        })
      } catch (err) {
        if (!(err instanceof AccountError)) throw err
        const code = err.code === 'signed_out' ? 'signed_out' : 'no_usable_account'
        throw new HearthError(code, err.message)
      }
      const access = String(chosen.credential.access ?? '')
      handedOut.set(chosen.id, access)
      const transport =
        profile.extension === 'antigravity'
          ? await antigravityTransport(profile, chosen.credential)
          : profile.extension === 'claude'
            ? { ...profile.transport, api_key: access, headers: {} }
            : chatgptTransport(profile, chosen.credential, sessionId)
      return { accountId: chosen.id, transport }
    },

    /** A used-up account keeps its credential and is tried last until the reset. */
    async limited(profile, accountId, untilMs, model) {
      const plugin = pluginOf(profile.extension)
      if (!plugin) return
      const meter = profile.extension === 'antigravity' ? (meterOf(model) ?? undefined) : undefined
      await markLimited(settings, plugin, accountId, untilMs, meter)
    },

    /**
     * chatgpt: removes the account even when a profile is bound to it (its credential is
     * dead). claude, antigravity: marks the access token expired (the account may refresh),
     * unless a newer one was stored meanwhile.
     */
    async unauthorized(profile, accountId) {
      const plugin = pluginOf(profile.extension)
      if (!plugin) return
      if (profile.extension === 'claude' || profile.extension === 'antigravity') {
        await markExpired(settings, plugin, accountId, handedOut.get(accountId))
        return
      }
      await settings.update((files) => {
        const list = listAccounts(files, plugin.accountsKey)
        const at = list.findIndex((c) => idOf(plugin, c) === accountId)
        if (at < 0) return undefined
        list.splice(at, 1)
        return withAccounts(files, plugin.accountsKey, list)
      })
    },
  }
}

/** Sets `expires` to 0 on the account whose stored access token is `access` (any when unknown). */
async function markExpired(
  settings: Settings,
  plugin: SignInPlugin,
  accountId: string,
  access: string | undefined,
): Promise<void> {
  await settings.update((files) => {
    const list = listAccounts(files, plugin.accountsKey)
    const at = list.findIndex((c) => idOf(plugin, c) === accountId)
    if (at < 0 || (access !== undefined && list[at].access !== access)) return undefined
    list[at] = { ...list[at], expires: 0 }
    return withAccounts(files, plugin.accountsKey, list)
  })
}

function chatgptTransport(
  profile: ResolvedProfile,
  credential: StoredCredential,
  sessionId: string,
): TransportProfile {
  const workspace = chatgptAccountId(credential)
  return {
    ...profile.transport,
    endpoint: profile.transport.endpoint || CHATGPT_ENDPOINT,
    api_key: String(credential.access ?? ''),
    headers: { ...(workspace ? { 'chatgpt-account-id': workspace } : {}), session_id: sessionId },
  }
}

/**
 * HEARTH_ANTIGRAVITY_BASE_URL (a test hook) wins over the profile's endpoint; with neither
 * the endpoint stays empty and the transport tries the vendor's hosts in order.
 */
async function antigravityTransport(
  profile: ResolvedProfile,
  credential: StoredCredential,
): Promise<TransportProfile> {
  const base = process.env.HEARTH_ANTIGRAVITY_BASE_URL?.trim()
    ? antigravityBaseUrl()
    : profile.transport.endpoint
  return {
    ...profile.transport,
    endpoint: base,
    api_key: String(credential.access ?? ''),
    project: typeof credential.projectId === 'string' ? credential.projectId : '',
    headers: { 'user-agent': userAgentOf(await antigravityVersion()) },
  }
}
