// The accounts the quota poller polls, and what it hands the usage core for each. Two kinds:
//
// - every signed-in account of a provider whose descriptor names a usage feed for its
//   accounts (`quota.feed` with a `handoff`), keyed by provider and account id, labelled by
//   its e-mail, else the name its sign-in gives it (a GitHub login), else its id;
// - every API-key profile whose endpoint host has a feed (`quota.profileFeed`), and every
//   profile of a provider whose signed-in CLI lends a credential (`quota.cliFeed`) while no
//   account of it is stored, keyed and labelled by the profile's name.
//
// A signed-in account's credential comes from the request path's pool (src/auth/pool.ts):
// a stale access token is refreshed there, under the credential lock with a re-read, so a
// turn's refresh and the poll's never both trade the same refresh token. A failed refresh
// keeps the stored credential and comes back here as an auth failure, which the poller
// records as a reading (a report carrying the error); so does a CLI that gives no
// credential (not installed, signed out). Only the hand-off (the access token or
// the key, and public facts) ever reaches the core.
import { AccountError, type AccountPlugin, idOf, listAccounts, withAccounts } from '../auth/accounts.ts'
import type { CredentialFiles } from '../auth/accounts-store.ts'
import { AccountPool } from '../auth/pool.ts'
import type { CoreHandoff, LimitReset } from '../providers/descriptor.ts'
import { PROVIDERS, providerOf } from '../providers/registry.ts'
import { SignInError } from '../providers/shared/sign-in-plugin.ts'
import { DEFAULT_EXTENSION } from '../schemas/extensions.ts'
import type { FileContents } from '../settings/files.ts'
import { enabledExtensions } from '../settings/groups/extensions.ts'
import { keyOf, profilesOf, signInSettings } from '../settings/groups/providers.ts'
import type { UsageReport } from './report.ts'

/** One account or profile the poller polls. */
export interface PolledAccount {
  /** Stable: the provider and the account id, or the profile's name. */
  key: string
  /** The usage feed's provider id (`--provider`, a reading's provider). */
  feed: string
  /** Non-secret: the account's e-mail, else its sign-in's name for it, else its id; a profile's name. */
  label: string
  source: { kind: 'account'; provider: string; id: string } | { kind: 'profile'; name: string }
}

/** What a poll hands the core, or the auth failure to record, or nothing: the account is gone. */
export type Handoff =
  | { kind: 'handoff'; handoff: (dir: string) => CoreHandoff }
  | { kind: 'auth_failure'; report: UsageReport }
  | { kind: 'gone' }

export interface AccountsDeps {
  /** The settings files and the locked update (the daemon's `Settings`). */
  settings: CredentialFiles
  /** The sign-in plugins as settings make them now (AuthService.plugins). */
  plugins: () => ReadonlyMap<string, AccountPlugin>
  now?: () => number
}

/** The providers whose signed-in accounts have a feed. */
const accountFeeds = () => PROVIDERS.filter((p) => p.signIn && p.quota?.feed && p.quota.handoff)

/** The sign-in plugins, made only when some account is stored (an idle daemon's round stays cheap). */
function pluginsIfStored(
  files: FileContents,
  plugins: () => ReadonlyMap<string, AccountPlugin>,
): ReadonlyMap<string, AccountPlugin> {
  const stored = files['creds.json'].accounts
  return stored && typeof stored === 'object' && Object.keys(stored).length > 0 ? plugins() : new Map()
}

/** Every account and profile to poll, as the files say now (extensions turned off are left out). */
export function discoverAccounts(
  files: FileContents,
  plugins: () => ReadonlyMap<string, AccountPlugin>,
): PolledAccount[] {
  const enabled = enabledExtensions(files)
  const out: PolledAccount[] = []
  const byId = pluginsIfStored(files, plugins)
  for (const p of accountFeeds()) {
    const plugin = byId.get(p.id)
    if (!plugin || !enabled.has(p.id)) continue
    for (const credential of listAccounts(files, plugin.accountsKey)) {
      const id = idOf(plugin, credential)
      if (id === null) continue
      // The e-mail, else the name the sign-in knows it by (a GitHub login), else its id.
      const who = plugin.account(credential)
      out.push({
        key: `${p.id}/${id}`,
        feed: p.quota?.feed as string,
        label: who.email ?? who.label ?? id,
        source: { kind: 'account', provider: p.id, id },
      })
    }
  }
  for (const name of Object.keys(profilesOf(files['config.json']))) {
    const feed = profileFeedOf(files, name, byId)
    if (feed)
      out.push({ key: `profile/${name}`, feed: feed.feed, label: name, source: { kind: 'profile', name } })
  }
  return out
}

/**
 * What a profile polls with: its API key's feed (an endpoint host with one), else, for a
 * provider whose accounts are optional, the signed-in CLI's while no account is stored
 * (`byId`: the sign-in plugins, empty when no account of any provider is stored); null
 * when the profile is not polled. Nothing is run here: the CLI is read at poll time.
 */
function profileFeedOf(
  files: FileContents,
  name: string,
  byId: ReadonlyMap<string, AccountPlugin>,
): { feed: string; handoff: (signal: AbortSignal) => Promise<CoreHandoff> | CoreHandoff } | null {
  const profile = profilesOf(files['config.json'])[name]
  if (!profile) return null
  const extension = typeof profile.extension === 'string' ? profile.extension : DEFAULT_EXTENSION
  const quota = enabledExtensions(files).has(extension) ? providerOf(extension)?.quota : undefined
  const key = keyOf(files, name)
  if (quota?.profileFeed && key !== null) {
    const endpoint = typeof profile.endpoint === 'string' ? profile.endpoint : ''
    const feed = quota.profileFeed(endpoint, key)
    return feed && { feed: feed.feed, handoff: () => feed.handoff }
  }
  const cli = quota?.cliFeed
  const plugin = byId.get(extension)
  if (!cli || (plugin && listAccounts(files, plugin.accountsKey).length > 0)) return null
  const settings = signInSettings(files['config.json'])[extension] ?? {}
  return { feed: cli.feed, handoff: (signal) => cli.handoff(settings, signal) }
}

/** What to hand the core for this account now (its credential refreshed when stale, a CLI's read). */
export async function handoffFor(
  account: PolledAccount,
  d: AccountsDeps,
  signal: AbortSignal = new AbortController().signal,
): Promise<Handoff> {
  if (account.source.kind === 'profile') {
    const files = d.settings.files()
    const feed = profileFeedOf(files, account.source.name, pluginsIfStored(files, d.plugins))
    if (!feed || feed.feed !== account.feed) return { kind: 'gone' }
    try {
      const handoff = await feed.handoff(signal)
      return { kind: 'handoff', handoff: () => handoff }
    } catch (err) {
      if (!(err instanceof SignInError)) throw err
      return { kind: 'auth_failure', report: authFailure(account.feed, err.message) }
    }
  }
  const { provider, id } = account.source
  const handoff = providerOf(provider)?.quota?.handoff
  const plugin = d.plugins().get(provider)
  if (!handoff || !plugin) return { kind: 'gone' }
  try {
    const pool = new AccountPool({ settings: d.settings, plugin, now: d.now })
    const { credential } = await pool.credentialFor({ accountId: id })
    return { kind: 'handoff', handoff: (dir) => handoff(credential, dir) }
  } catch (err) {
    if (!(err instanceof AccountError)) throw err
    if (err.code === 'account_not_found' || err.code === 'signed_out') return { kind: 'gone' }
    return { kind: 'auth_failure', report: authFailure(account.feed, err.message) }
  }
}

/** A report of a poll that could not authenticate (no usable credential), as the core reports a provider failure. */
export function authFailure(feed: string, message: string): UsageReport {
  return { provider: feed, source: 'oauth', usage: null, error: { code: 1, message, kind: 'provider' } }
}

/**
 * Heals the account's limit marks with a poll's limits (its provider's `quota.healMarks`),
 * under the credential lock with the account re-read, every other field and section kept.
 * Does nothing when the provider has no rule or the snapshot shows no legacy mark.
 */
export async function healMarks(
  account: PolledAccount,
  limits: readonly LimitReset[],
  d: AccountsDeps,
): Promise<void> {
  if (account.source.kind !== 'account' || limits.length === 0) return
  const { provider, id } = account.source
  const heal = providerOf(provider)?.quota?.healMarks
  const plugin = d.plugins().get(provider)
  if (!heal || !plugin) return
  const stored = listAccounts(d.settings.files(), plugin.accountsKey).find((c) => idOf(plugin, c) === id)
  if (!stored || heal(stored, limits) === null) return // nothing to heal: no lock taken
  await d.settings.update((files) => {
    const list = listAccounts(files, plugin.accountsKey)
    const at = list.findIndex((c) => idOf(plugin, c) === id)
    const healed = at < 0 ? null : heal(list[at], limits)
    if (healed === null) return undefined
    list[at] = healed
    return withAccounts(files, plugin.accountsKey, list)
  })
}
