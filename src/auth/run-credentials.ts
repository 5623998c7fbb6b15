// The credential of a run for profiles that sign in, fetched once as the run starts and used
// by all its steps (a manual compaction, a step outside any run, fetches its own). A run
// takes an account from the pool (bound by the profile's account_id, else sticky to the
// session), refreshed under the credential lock when it expires within a minute; the
// transport gets its access token and what the provider needs beside it for this run's
// steps (its sign-in's `runProfile`).
//
// What a refusal does is the provider's (its descriptor's `signIn`): a 401 removes the
// account or expires the access token it was handed, so the next run refreshes it; a 429
// that says when the account may be used again marks it limited until then
// (`limitedUntil`), or only the meter of the run's model when the provider meters its
// quota per model family (`limitedMeters`; the pool is then ordered by that meter).
//
// A provider whose sign-in can borrow a credential (copilot: the signed-in GitHub CLI's
// token) runs a profile that is not bound to an account on it when no account can be used;
// the borrowed credential is read for each run and never stored.

import type { RunContext, SignIn } from '../providers/descriptor.ts'
import { providerOf } from '../providers/registry.ts'
import { SignInError, type SignInPlugin, type StoredCredential } from '../providers/shared/sign-in-plugin.ts'
import type { RunCredentials } from '../runs/engine.ts'
import { HearthError } from '../schemas/problems.ts'
import { signInSettings } from '../settings/groups/providers.ts'
import type { Settings } from '../settings/service.ts'
import { AccountError, idOf, listAccounts, markLimited, withAccounts } from './accounts.ts'
import { AccountPool } from './pool.ts'
import type { AuthService } from './service.ts'

export function runCredentials(auth: AuthService, settings: Settings, context: RunContext): RunCredentials {
  const pluginOf = (extension: string) => auth.plugins().get(extension)
  const signInOf = (extension: string) => providerOf(extension)?.signIn ?? undefined
  const meterOf = (extension: string, model: string) => signInOf(extension)?.meterOf?.(model) ?? undefined
  /** The access token each account last handed to a run (a 401 marks only that one expired). */
  const handedOut = new Map<string, string>()
  return {
    async forRun(sessionId, profile, signal, model) {
      const plugin = pluginOf(profile.extension)
      const signIn = signInOf(profile.extension)
      if (!plugin || !signIn) return { transport: profile.transport, accountId: null }
      let chosen: { id: string | null; credential: StoredCredential }
      try {
        chosen = await new AccountPool({ settings, plugin }).credentialFor({
          sessionId,
          accountId: profile.account_id,
          signal,
          meter: meterOf(profile.extension, model),
        })
      } catch (err) {
        if (!(err instanceof AccountError)) throw err
        const code = err.code === 'signed_out' ? 'signed_out' : 'no_usable_account'
        if (!signIn.borrow || profile.account_id !== null) throw new HearthError(code, err.message)
        chosen = { id: null, credential: await borrowed(settings, signIn, profile.extension, signal) }
      }
      if (chosen.id !== null) handedOut.set(chosen.id, String(chosen.credential.access ?? ''))
      // The run's model (the session's) decides what the provider needs, not the profile's.
      const runs = { ...profile.transport, model: model || profile.transport.model }
      const transport = await signIn.runProfile(runs, chosen.credential, sessionId, context)
      return { accountId: chosen.id, transport }
    },

    /** A used-up account keeps its credential and is tried last until the reset. */
    async limited(profile, accountId, untilMs, model) {
      const plugin = pluginOf(profile.extension)
      if (!plugin) return
      await markLimited(settings, plugin, accountId, untilMs, meterOf(profile.extension, model))
    },

    /**
     * `remove`: the account goes even when a profile is bound to it (its credential is
     * dead). `expire`: the access token is marked expired (the account may refresh), unless
     * a newer one was stored meanwhile.
     */
    async unauthorized(profile, accountId) {
      const plugin = pluginOf(profile.extension)
      if (!plugin) return
      if (signInOf(profile.extension)?.unauthorized === 'expire') {
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

/**
 * A credential to list a provider's models with (GET /models): the profile's bound account,
 * else the pool's first usable one, else one the sign-in lends; null when none can be had.
 */
export function listingCredential(auth: AuthService, settings: Settings) {
  return async (extension: string, accountId: string | null): Promise<StoredCredential | null> => {
    const plugin = auth.plugins().get(extension)
    const signIn = providerOf(extension)?.signIn ?? undefined
    if (!plugin || !signIn) return null
    try {
      return (await new AccountPool({ settings, plugin }).credentialFor({ accountId })).credential
    } catch (err) {
      if (!(err instanceof AccountError)) throw err
    }
    if (!signIn.borrow || accountId !== null) return null
    try {
      return await borrowed(settings, signIn, extension, new AbortController().signal)
    } catch (err) {
      if (err instanceof HearthError) return null
      throw err
    }
  }
}

/** The credential the sign-in lends for one run; a refusal is the run's `signed_out`, saying why. */
async function borrowed(
  settings: Settings,
  signIn: SignIn,
  extension: string,
  signal: AbortSignal,
): Promise<StoredCredential> {
  const config = signInSettings(settings.files()['config.json'])[extension] ?? {}
  try {
    return await signIn.borrow!(config, signal)
  } catch (err) {
    if (err instanceof SignInError) throw new HearthError('signed_out', err.message)
    throw err
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
