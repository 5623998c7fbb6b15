// The credentials of a turn for profiles that sign in. A chatgpt or claude turn takes an
// account from the pool (bound by the profile's account_id, else sticky to the session),
// refreshed under the credential lock when it expires within a minute; the transport gets its
// access token (and for chatgpt the workspace) for this one turn. A 401 from the ChatGPT
// backend removes that account; a 401 from Claude marks its access token expired, so the next
// turn refreshes it (an account without a refresh token is then skipped). A 429 that says when
// the account may be used again marks it limited until then (`limitedUntil`).

import { CHATGPT_ENDPOINT } from '../providers/chatgpt/constants.ts'
import { chatgptAccountId } from '../providers/chatgpt/signin.ts'
import type { TurnCredentials } from '../runs/engine.ts'
import { HearthError } from '../schemas/problems.ts'
import type { Settings } from '../settings/service.ts'
import { AccountError, idOf, listAccounts, markLimited, withAccounts } from './accounts.ts'
import { AccountPool } from './pool.ts'
import type { AuthService } from './service.ts'
import type { SignInPlugin } from './types.ts'

export function turnCredentials(auth: AuthService, settings: Settings): TurnCredentials {
  const pluginOf = (extension: string) => auth.plugins().get(extension)
  /** The access token each account last handed to a turn (a 401 marks only that one expired). */
  const handedOut = new Map<string, string>()
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
      const access = String(chosen.credential.access ?? '')
      handedOut.set(chosen.id, access)
      if (profile.extension === 'claude') {
        // The transport resolves the endpoint (the test hook, else the profile's, else Anthropic's).
        return { accountId: chosen.id, transport: { ...profile.transport, api_key: access, headers: {} } }
      }
      const workspace = chatgptAccountId(chosen.credential)
      return {
        accountId: chosen.id,
        transport: {
          ...profile.transport,
          endpoint: profile.transport.endpoint || CHATGPT_ENDPOINT,
          api_key: access,
          headers: { ...(workspace ? { 'chatgpt-account-id': workspace } : {}), session_id: sessionId },
        },
      }
    },

    /** A used-up account keeps its credential and is tried last until the reset. */
    async limited(profile, accountId, untilMs) {
      const plugin = pluginOf(profile.extension)
      if (plugin) await markLimited(settings, plugin, accountId, untilMs)
    },

    /**
     * chatgpt: removes the account even when a profile is bound to it (its credential is
     * dead). claude: marks the access token expired, unless a newer one was stored meanwhile.
     */
    async unauthorized(profile, accountId) {
      const plugin = pluginOf(profile.extension)
      if (!plugin) return
      if (profile.extension === 'claude') {
        await markExpired(settings, plugin, accountId, handedOut.get(accountId))
        return
      }
      await settings.update((files) => {
        const list = listAccounts(files, plugin.accountsKey)
        const left = list.filter((c) => idOf(plugin, c) !== accountId)
        return left.length === list.length ? undefined : withAccounts(files, plugin.accountsKey, left)
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
