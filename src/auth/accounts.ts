// The account store: creds.json `accounts.<store key>`, one object for one account, an
// array for two or more, the key removed for none. Credentials are opaque (the plugin
// shaped them); hearth names them only through the plugin and adds three bookkeeping
// fields of its own: `selected`, `limitedUntil` (epoch ms, account-wide) and
// `limitedMeters` (meter key → epoch ms). Every mutation runs through the credential lock,
// re-reads the files inside it, and rewrites `accounts.<key>` only: every other section
// and store key is written back as it is under the lock. See docs/accounts.md.

import type { AccountPlugin, SignInPlugin, StoredCredential } from '../providers/shared/sign-in-plugin.ts'
import type { FileContents, JsonObject } from '../settings/files.ts'
import { CodedError } from '../util/coded-error.ts'
import type { CredentialFiles } from './accounts-store.ts'

export type { AccountPlugin } from '../providers/shared/sign-in-plugin.ts'
export type { CredentialFiles } from './accounts-store.ts'

/** Codes an account operation fails with; the API maps them to problems. */
export type AccountErrorCode = 'account_not_found' | 'account_in_use' | 'signed_out' | 'no_usable_account'

export class AccountError extends CodedError<AccountErrorCode> {
  override readonly name = 'AccountError'
}

/** The redacted view of a saved account (GET /auth, a login's `accounts`): no token. */
export interface AccountDescriptor {
  id: string
  provider: string
  label: string | null
  email: string | null
  plan: string | null
  selected: boolean
  limited_until: string | null
  expires_at: string | null
  refreshable: boolean
}

/** Fields hearth keeps on a credential; a new sign-in or a refresh carries them over. */
const BOOKKEEPING = ['selected', 'limitedUntil', 'limitedMeters'] as const

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v)

/** The accounts under one store key, in stored order (entries that are not objects are skipped). */
export function listAccounts(files: FileContents, key: string): StoredCredential[] {
  const accounts = files['creds.json'].accounts
  if (!isObject(accounts)) return []
  const stored = accounts[key]
  if (isObject(stored)) return [stored]
  if (Array.isArray(stored)) return stored.filter(isObject)
  return []
}

/**
 * The creds.json to commit with `accounts.<key>` set to `list` (object for one, array for
 * more, removed for none; the section stays, `{}` when empty); everything else is kept,
 * including the key's position.
 */
export function withAccounts(
  files: FileContents,
  key: string,
  list: StoredCredential[],
): Pick<FileContents, 'creds.json'> {
  const creds = { ...files['creds.json'] }
  const accounts: JsonObject = isObject(creds.accounts) ? { ...creds.accounts } : {}
  if (list.length === 0) delete accounts[key]
  else accounts[key] = list.length === 1 ? list[0] : list
  creds.accounts = accounts // kept when empty: creds.json always shows its sections
  return { 'creds.json': creds }
}

/** The account's id, or null when the plugin cannot name it (a hand-broken entry). */
export function idOf(plugin: SignInPlugin, credential: StoredCredential): string | null {
  try {
    return plugin.account(credential).id
  } catch {
    return null
  }
}

const indexOf = (plugin: SignInPlugin, list: StoredCredential[], id: string) =>
  list.findIndex((c) => idOf(plugin, c) === id)

/** The refresh token of a credential, or null when it has none. */
export function refreshTokenOf(plugin: AccountPlugin, credential: StoredCredential): string | null {
  if (plugin.refreshToken) return plugin.refreshToken(credential) || null
  for (const field of ['refresh', 'refresh_token', 'refreshToken']) {
    const v = credential[field]
    if (typeof v === 'string' && v !== '') return v
  }
  return null
}

const finite = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)

/**
 * Epoch ms until which the account is limited, or null. Without a meter: the account-wide
 * `limitedUntil`. With a meter: that meter's mark in `limitedMeters`, and `limitedUntil`
 * only as the legacy fallback when the account has no `limitedMeters` at all.
 */
export function limitedUntilOf(credential: StoredCredential, meter?: string): number | null {
  if (meter !== undefined && isObject(credential.limitedMeters))
    return finite(credential.limitedMeters[meter])
  return finite(credential.limitedUntil)
}

/** `next` with hearth's bookkeeping fields of `prev` that `next` does not set itself. */
export function carryBookkeeping(prev: StoredCredential, next: StoredCredential): StoredCredential {
  const out = { ...next }
  for (const field of BOOKKEEPING)
    if (out[field] === undefined && prev[field] !== undefined) out[field] = prev[field]
  return out
}

/**
 * Saves a signed-in credential: an account with the same id is replaced in place (its
 * bookkeeping fields kept unless the credential sets them), a different one is appended.
 */
export async function saveAccount(
  settings: CredentialFiles,
  plugin: SignInPlugin,
  credential: StoredCredential,
): Promise<{ id: string; replaced: boolean }> {
  const id = plugin.account(credential).id
  let replaced = false
  await settings.update((files) => {
    const list = listAccounts(files, plugin.accountsKey)
    const at = indexOf(plugin, list, id)
    replaced = at >= 0
    if (replaced) list[at] = carryBookkeeping(list[at], credential)
    else list.push(credential)
    return withAccounts(files, plugin.accountsKey, list)
  })
  return { id, replaced }
}

/**
 * Removes an account; false when there is none with this id. Refused with `account_in_use`
 * while a saved profile is bound to it (checked under the same lock as the removal, so a
 * PATCH binding a profile cannot slip in between).
 */
export async function removeAccount(
  settings: CredentialFiles,
  plugin: SignInPlugin,
  id: string,
): Promise<boolean> {
  let removed = false
  await settings.update((files) => {
    const list = listAccounts(files, plugin.accountsKey)
    const at = indexOf(plugin, list, id)
    if (at < 0) return undefined
    const bound = profilesBoundTo(files, id)
    if (bound.length > 0) {
      throw new AccountError(
        'account_in_use',
        `profile ${bound[0]} is bound to account ${id}; change it first`,
      )
    }
    list.splice(at, 1)
    removed = true
    return withAccounts(files, plugin.accountsKey, list)
  })
  return removed
}

/** Names of the config.json profiles whose `account_id` is `id`. */
export function profilesBoundTo(files: FileContents, id: string): string[] {
  const providers = files['config.json'].providers
  const profiles = isObject(providers) && isObject(providers.profiles) ? providers.profiles : {}
  return Object.entries(profiles)
    .filter(([, p]) => isObject(p) && p.account_id === id)
    .map(([name]) => name)
}

/** Changes one stored account under the lock; false when there is none with this id. */
async function changeAccount(
  settings: CredentialFiles,
  plugin: SignInPlugin,
  id: string,
  change: (credential: StoredCredential) => StoredCredential,
): Promise<boolean> {
  let found = false
  await settings.update((files) => {
    const list = listAccounts(files, plugin.accountsKey)
    const at = indexOf(plugin, list, id)
    if (at < 0) return undefined
    found = true
    list[at] = change({ ...list[at] })
    return withAccounts(files, plugin.accountsKey, list)
  })
  return found
}

/**
 * Marks an account limited until `untilMs` (epoch ms): account-wide `limitedUntil`, or
 * with a meter `limitedMeters[meter]`. False when there is no such account.
 */
export function markLimited(
  settings: CredentialFiles,
  plugin: SignInPlugin,
  id: string,
  untilMs: number,
  meter?: string,
): Promise<boolean> {
  return changeAccount(settings, plugin, id, (c) => {
    if (meter === undefined) c.limitedUntil = untilMs
    else c.limitedMeters = { ...(isObject(c.limitedMeters) ? c.limitedMeters : {}), [meter]: untilMs }
    return c
  })
}

/** Sets or clears `selected` on one account (selected accounts are tried first). */
export function setSelected(
  settings: CredentialFiles,
  plugin: SignInPlugin,
  id: string,
  selected: boolean,
): Promise<boolean> {
  return changeAccount(settings, plugin, id, (c) => {
    if (selected) c.selected = true
    else delete c.selected
    return c
  })
}

const iso = (ms: number | null) => (ms === null || !Number.isFinite(ms) ? null : new Date(ms).toISOString())

/** The redacted descriptor of a stored account: identity, marks and expiry, never a token. */
export function describeAccount(
  plugin: AccountPlugin,
  credential: StoredCredential,
  now: number,
): AccountDescriptor {
  const who = plugin.account(credential)
  const limited = limitedUntilOf(credential)
  return {
    id: who.id,
    provider: plugin.extension,
    label: who.label,
    email: who.email,
    plan: who.plan,
    selected: credential.selected === true,
    limited_until: limited !== null && limited > now ? iso(limited) : null,
    expires_at: iso(plugin.expiresAt(credential)),
    refreshable: refreshTokenOf(plugin, credential) !== null,
  }
}

/**
 * Whether a stored account can still be used: it can refresh, or its access token has not
 * expired (or never says when). One that can do neither reads signed out.
 */
export function isSignedIn(plugin: AccountPlugin, credential: StoredCredential, now: number): boolean {
  if (refreshTokenOf(plugin, credential) !== null) return true
  const expires = plugin.expiresAt(credential)
  return expires === null || expires > now
}

/** Descriptors of every account under the plugin's store key (entries it cannot name are left out). */
export function describeAccounts(
  files: FileContents,
  plugin: AccountPlugin,
  now: number,
): AccountDescriptor[] {
  return listAccounts(files, plugin.accountsKey)
    .filter((c) => idOf(plugin, c) !== null)
    .map((c) => describeAccount(plugin, c, now))
}
