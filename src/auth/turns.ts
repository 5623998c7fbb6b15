// The credentials of a turn for profiles that sign in. A chatgpt turn takes an account from
// the pool (bound by the profile's account_id, else sticky to the session), refreshed under
// the credential lock when it expires within a minute; the transport gets its access token
// and workspace for this one turn. A 401 from the backend removes that account; a 429 that
// says when the account may be used again marks it limited until then (`limitedUntil`).

import { CHATGPT_ENDPOINT } from '../providers/chatgpt/constants.ts'
import { chatgptAccountId } from '../providers/chatgpt/signin.ts'
import type { TurnCredentials } from '../runs/engine.ts'
import { HearthError } from '../schemas/problems.ts'
import type { Settings } from '../settings/service.ts'
import { AccountError, idOf, listAccounts, markLimited, withAccounts } from './accounts.ts'
import { AccountPool } from './pool.ts'
import type { AuthService } from './service.ts'

export function turnCredentials(auth: AuthService, settings: Settings): TurnCredentials {
  const pluginOf = (extension: string) => auth.plugins().get(extension)
  return {
    async forTurn(sessionId, profile, signal) {
      const plugin = pluginOf(profile.extension)
      if (!plugin) return { transport: profile.transport, accountId: null }
      let chosen: { id: string; credential: Record<string, unknown> }
      try {
        chosen = await new AccountPool({ settings, plugin }).credentialFor({
          sessionId,
          accountId: profile.account_id,
          signal,
        })
      } catch (err) {
        if (!(err instanceof AccountError)) throw err
        const code = err.code === 'signed_out' ? 'signed_out' : 'no_usable_account'
        throw new HearthError(code, err.message)
      }
      const workspace = chatgptAccountId(chosen.credential)
      return {
        accountId: chosen.id,
        transport: {
          ...profile.transport,
          endpoint: profile.transport.endpoint || CHATGPT_ENDPOINT,
          api_key: String(chosen.credential.access ?? ''),
          headers: { ...(workspace ? { 'chatgpt-account-id': workspace } : {}), session_id: sessionId },
        },
      }
    },

    /** A used-up account keeps its credential and is tried last until the reset. */
    async limited(profile, accountId, untilMs) {
      const plugin = pluginOf(profile.extension)
      if (plugin) await markLimited(settings, plugin, accountId, untilMs)
    },

    /** Removes the account even when a profile is bound to it: its credential is dead. */
    async unauthorized(profile, accountId) {
      const plugin = pluginOf(profile.extension)
      if (!plugin) return
      await settings.update((files) => {
        const list = listAccounts(files, plugin.accountsKey)
        const left = list.filter((c) => idOf(plugin, c) !== accountId)
        return left.length === list.length ? undefined : withAccounts(files, plugin.accountsKey, left)
      })
    },
  }
}
