// Account pools: the accounts of one store key, tried in a fixed order for a session, with
// access tokens refreshed under the credential lock. See docs/accounts.md.
//
// Order (`orderPool`): selected usable accounts first (input order); then the other usable
// accounts starting at FNV-1a(session id) mod n and wrapping around, so a session stays on
// its account while the pool is unchanged; then limited accounts by reset time (ties keep
// input order). A profile's `account_id` binds to exactly that account.
//
// Refresh (`AccountPool.credentialFor`): an access token that expires within 60 s is
// refreshed inside one `update` of the credential files, which holds the credential lock
// across the provider call. Inside the lock the account is re-read; when another caller has
// refreshed it meanwhile the stored credential is used as it is, otherwise the stored (the
// newest) refresh token is traded and the result committed before the lock is released. So
// one refresh of an account runs at a time, a rotated refresh token is never used twice,
// and a refresh never overwrites a newer one.

import { SignInError, type StoredCredential } from '../providers/shared/sign-in-plugin.ts'
import {
  AccountError,
  type AccountPlugin,
  type CredentialFiles,
  carryBookkeeping,
  idOf,
  limitedUntilOf,
  listAccounts,
  refreshTokenOf,
  withAccounts,
} from './accounts.ts'
import { fnv1a32 } from './fnv.ts'

/** Refresh this long before the access token expires. */
export const REFRESH_LEAD_MS = 60_000
/** The longest a refresh may hold the credential lock. */
export const REFRESH_TIMEOUT_MS = 30_000

export interface OrderOptions {
  /** The session the credential is for; its FNV-1a hash picks the start of the rotation. */
  sessionId?: string | null
  now: number
  idOf: (credential: StoredCredential) => string
  /** A profile's binding: exactly this account, no rotation. Null or absent: rotation. */
  accountId?: string | null
  /** With a meter, that meter's limit mark (`limitedMeters`) counts before `limitedUntil`. */
  meter?: string
}

/** The order in which a session tries the accounts of a pool (pure). */
export function orderPool(accounts: readonly StoredCredential[], o: OrderOptions): StoredCredential[] {
  if (o.accountId !== undefined && o.accountId !== null) {
    const bound = accounts.find((c) => o.idOf(c) === o.accountId)
    if (!bound) {
      throw new AccountError(
        'account_not_found',
        `the profile is bound to account ${o.accountId}, which is not signed in; run /login`,
      )
    }
    return [bound]
  }
  const selected: StoredCredential[] = []
  const rest: StoredCredential[] = []
  const limited: { credential: StoredCredential; until: number; at: number }[] = []
  accounts.forEach((credential, at) => {
    const until = limitedUntilOf(credential, o.meter)
    if (until !== null && until > o.now) limited.push({ credential, until, at })
    else if (credential.selected === true) selected.push(credential)
    else rest.push(credential)
  })
  const start = rest.length > 0 ? fnv1a32(o.sessionId ?? '') % rest.length : 0
  limited.sort((a, b) => a.until - b.until || a.at - b.at)
  return [...selected, ...rest.slice(start), ...rest.slice(0, start), ...limited.map((l) => l.credential)]
}

export interface AccountPoolDeps {
  /** `Settings`, or `lockedFiles(home, lock)` with the daemon's one credential lock. */
  settings: CredentialFiles
  plugin: AccountPlugin
  now?: () => number
  leadMs?: number
  refreshTimeoutMs?: number
}

export interface CredentialRequest {
  sessionId?: string | null
  /** The profile's `account_id`; null or absent rotates through the pool. */
  accountId?: string | null
  /** The caller giving up; a refresh already under way still finishes and is saved. */
  signal?: AbortSignal
  meter?: string
}

export interface PoolCredential {
  id: string
  credential: StoredCredential
}

type Attempt = { credential: StoredCredential } | { reason: string }

export class AccountPool {
  readonly #d: AccountPoolDeps
  readonly #now: () => number
  readonly #lead: number

  constructor(d: AccountPoolDeps) {
    this.#d = d
    this.#now = d.now ?? Date.now
    this.#lead = d.leadMs ?? REFRESH_LEAD_MS
  }

  /**
   * A usable credential for a session: the first account in pool order whose access token
   * is valid for more than the lead, or can be refreshed. Throws `AccountError`
   * `signed_out` (empty pool), `account_not_found` (bound account missing) or
   * `no_usable_account` (every candidate expired or failed to refresh).
   */
  async credentialFor(req: CredentialRequest = {}): Promise<PoolCredential> {
    const { plugin } = this.#d
    const accounts = listAccounts(this.#d.settings.files(), plugin.accountsKey)
    const ids = new Map<StoredCredential, string>()
    for (const c of accounts) {
      const id = idOf(plugin, c)
      if (id !== null) ids.set(c, id)
    }
    const named = accounts.filter((c) => ids.has(c))
    const bound = req.accountId !== undefined && req.accountId !== null
    if (named.length === 0 && !bound) {
      throw new AccountError('signed_out', `${plugin.label} is signed out; run /login`)
    }
    const order = orderPool(named, {
      sessionId: req.sessionId,
      now: this.#now(),
      idOf: (c) => ids.get(c)!,
      accountId: req.accountId,
      meter: req.meter,
    })
    const failures: string[] = []
    for (const seen of order) {
      req.signal?.throwIfAborted()
      const id = ids.get(seen)!
      const got = await this.#attempt(id, seen, req.signal)
      if ('credential' in got) return { id, credential: got.credential }
      failures.push(`${id}: ${got.reason}`)
    }
    const why = failures.join(', ')
    throw new AccountError(
      'no_usable_account',
      bound
        ? `account ${req.accountId} cannot be used (${why}); run /login`
        : `no ${plugin.label} account can be used (${why}); run /login`,
    )
  }

  /** The candidate as it is, or refreshed under the lock, or why it cannot be used. */
  async #attempt(id: string, seen: StoredCredential, signal: AbortSignal | undefined): Promise<Attempt> {
    const { plugin } = this.#d
    const now = this.#now()
    const expires = plugin.expiresAt(seen)
    if (expires === null || expires - now > this.#lead) return { credential: seen }
    if (refreshTokenOf(plugin, seen) === null) {
      // Never refreshed (sub-b without a refresh token): usable until it expires.
      return expires > now ? { credential: seen } : { reason: 'expired' }
    }
    return raceAbort(this.#refreshLocked(id, seen, signal), signal)
  }

  /** One pass under the lock: re-read, and refresh only when nobody else has. */
  async #refreshLocked(
    id: string,
    seen: StoredCredential,
    signal: AbortSignal | undefined,
  ): Promise<Attempt> {
    const { plugin, settings } = this.#d
    let out: Attempt = { reason: 'aborted' }
    await settings.update(async (files) => {
      if (signal?.aborted) return undefined // the caller left while waiting: refresh nothing
      const list = listAccounts(files, plugin.accountsKey)
      const at = list.findIndex((c) => idOf(plugin, c) === id)
      if (at < 0) {
        out = { reason: 'removed' }
        return undefined
      }
      const stored = list[at]
      const now = this.#now()
      const expires = plugin.expiresAt(stored)
      if (expires === null || expires - now > this.#lead) {
        out = { credential: stored } // refreshed (or signed in again) while we waited
        return undefined
      }
      const token = refreshTokenOf(plugin, stored)
      if (token === null) {
        out = expires > now ? { credential: stored } : { reason: 'expired' }
        return undefined
      }
      if (token !== refreshTokenOf(plugin, seen) && expires > now) {
        out = { credential: stored } // another caller refreshed it; its token is still valid
        return undefined
      }
      let fresh: StoredCredential
      try {
        // Not the caller's signal: a rotation the provider has made must reach the file.
        fresh = await plugin.refresh(
          stored,
          AbortSignal.timeout(this.#d.refreshTimeoutMs ?? REFRESH_TIMEOUT_MS),
        )
      } catch (err) {
        out = { reason: reasonOf(err) }
        if (plugin.forgetRevokedRefresh && err instanceof SignInError && err.code === 'invalid_grant') {
          list[at] = withoutRefresh(plugin, stored)
          return withAccounts(files, plugin.accountsKey, list)
        }
        return undefined // a failed refresh keeps the stored credential
      }
      const saved = carryBookkeeping(stored, fresh)
      list[at] = saved
      out = { credential: saved }
      return withAccounts(files, plugin.accountsKey, list)
    })
    return out
  }
}

/**
 * The credential without its refresh token: every field the store reads one from, and any
 * field holding it (a plugin that names its own, as copilot's GitHub token).
 */
function withoutRefresh(plugin: AccountPlugin, credential: StoredCredential): StoredCredential {
  const token = refreshTokenOf(plugin, credential)
  const out = { ...credential }
  const named = new Set(plugin.refreshFields ?? REFRESH_FIELDS)
  for (const [field, value] of Object.entries(out))
    if (named.has(field) || (token !== null && value === token)) delete out[field]
  return refreshTokenOf(plugin, out) === null ? out : credential
}

const REFRESH_FIELDS = new Set(['refresh', 'refresh_token', 'refreshToken'])

function reasonOf(err: unknown): string {
  if (err instanceof SignInError) return err.code
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError'))
    return 'refresh_timeout'
  return 'refresh_failed'
}

/** `p`, or the signal's reason as soon as it aborts (`p` still runs to its end). */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    if (signal.aborted) onAbort()
    else signal.addEventListener('abort', onAbort, { once: true })
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort)
        resolve(v)
      },
      (e) => {
        signal.removeEventListener('abort', onAbort)
        reject(e)
      },
    )
  })
}
