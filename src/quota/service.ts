// The quota poller as the daemon runs it: accounts from the settings files and the sign-in
// plugins, credentials through the request path's pool, the usage core through the driver,
// readings into the store, Antigravity-style limit marks healed through the descriptors.
import type { AccountPlugin } from '../auth/accounts.ts'
import type { CredentialFiles } from '../auth/accounts-store.ts'
import { extensions, QUOTA_DEFAULTS } from '../settings/groups/extensions.ts'
import { discoverAccounts, handoffFor, healMarks } from './accounts.ts'
import { coreCommand, runCore, sweepLeftovers } from './driver.ts'
import {
  type PollerClock,
  QuotaPoller,
  type QuotaSettings,
  type ReadingsStore,
  systemClock,
} from './poller.ts'

export interface QuotaServiceDeps {
  settings: CredentialFiles
  plugins: () => ReadonlyMap<string, AccountPlugin>
  store: ReadingsStore
  log: (level: 'warn' | 'info', fields: Record<string, unknown>, message: string) => void
  /** The daemon's environment: HEARTH_USAGE_CORE and the endpoint overrides passed on. */
  env?: NodeJS.ProcessEnv
  clock?: PollerClock
  /** One core call's limit (tests shorten it). */
  timeoutMs?: number
}

/** extensions.json `quota` as it is now; unreadable files read as the defaults. */
function quotaSettings(settings: CredentialFiles): QuotaSettings {
  try {
    return (extensions.read(settings.files()) as { quota: QuotaSettings }).quota
  } catch {
    return QUOTA_DEFAULTS
  }
}

export function quotaService(d: QuotaServiceDeps): QuotaPoller {
  const env = d.env ?? process.env
  const clock = d.clock ?? systemClock
  const accounts = { settings: d.settings, plugins: d.plugins, now: () => clock.now() }
  let swept = false
  return new QuotaPoller({
    clock,
    settings: () => quotaSettings(d.settings),
    discover: () => discoverAccounts(d.settings.files(), d.plugins),
    async poll(account, signal) {
      // Once, before the first call: what a killed daemon left. Not at start: a daemon with
      // no account to poll does not read the temp directory at all.
      if (!swept) sweepLeftovers()
      swept = true
      const got = await handoffFor(account, accounts, signal)
      if (got.kind === 'gone') return got
      if (got.kind === 'auth_failure') return { kind: 'report', report: got.report }
      // HEARTH_USAGE_CORE is read per call, so the daemon's environment decides it alone.
      return runCore({
        core: coreCommand(env),
        feed: account.feed,
        handoff: got.handoff,
        env,
        signal,
        timeoutMs: d.timeoutMs,
      })
    },
    store: d.store,
    heal: (account, limits) => healMarks(account, limits, accounts),
    log: d.log,
  })
}
