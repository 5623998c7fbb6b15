// The provider-auth side of the daemon: the sign-in plugins on offer (their OAuth clients
// from settings), the engine that runs logins, and the saved accounts. Handlers in
// src/api/auth.ts stay thin over this.
import { PROVIDERS } from '../providers/registry.ts'
import type { SignInPlugin } from '../providers/shared/sign-in-plugin.ts'
import type { AccountDescriptor } from '../schemas/auth.ts'
import { HearthError } from '../schemas/problems.ts'
import { enabledExtensions } from '../settings/groups/extensions.ts'
import { signInSettings } from '../settings/groups/providers.ts'
import type { Settings } from '../settings/service.ts'
import type { Db } from '../store/db.ts'
import {
  AccountError,
  describeAccount,
  describeAccounts,
  isSignedIn,
  listAccounts,
  removeAccount,
  saveAccount,
} from './accounts.ts'
import { flowsOf } from './signin/device.ts'
import { SignInEngine } from './signin/engine.ts'

export interface AuthDeps {
  db: Db
  settings: Settings
  now: () => number
  onError: (err: unknown) => void
}

export class AuthService {
  readonly engine: SignInEngine
  readonly #d: AuthDeps

  constructor(d: AuthDeps) {
    this.#d = d
    this.engine = new SignInEngine({
      db: d.db,
      plugins: () => this.plugins(),
      enabled: (extension) => enabledExtensions(d.settings.files()).has(extension),
      save: async (plugin, credential) => {
        await saveAccount(d.settings, plugin, credential)
        return describeAccount(plugin, credential, d.now()) as AccountDescriptor
      },
      now: d.now,
      onError: d.onError,
    })
  }

  /** The sign-ins on offer, built from the settings as they are now. */
  plugins(): Map<string, SignInPlugin> {
    const config = signInSettings(this.#d.settings.files()['config.json'])
    return new Map(PROVIDERS.flatMap((p) => (p.signIn ? [[p.id, p.signIn.plugin(config[p.id] ?? {})]] : [])))
  }

  /** GET /auth: providers and their forms, redacted accounts, unfinished logins. */
  overview() {
    const files = this.#d.settings.files()
    const enabled = enabledExtensions(files)
    const plugins = [...this.plugins().values()].filter((p) => enabled.has(p.extension))
    const accounts = plugins.flatMap((p) => describeAccounts(files, p, this.#d.now()) as AccountDescriptor[])
    return {
      providers: plugins.map((p) => ({
        extension: p.extension,
        label: p.label,
        detail: p.detail,
        protocol: p.protocol,
        flows: flowsOf(p),
        form: { fields: [] },
        status: listAccounts(files, p.accountsKey).some((c) => isSignedIn(p, c, this.#d.now()))
          ? ('signed in' as const)
          : ('signed out' as const),
      })),
      accounts,
      logins: this.engine.unfinished(),
    }
  }

  /** DELETE /auth/accounts/{id}: 404 unknown, 409 while a profile is bound to it. */
  async removeAccount(id: string): Promise<void> {
    const files = this.#d.settings.files()
    for (const plugin of this.plugins().values()) {
      if (!describeAccounts(files, plugin, this.#d.now()).some((a) => a.id === id)) continue
      try {
        if (await removeAccount(this.#d.settings, plugin, id)) return
      } catch (err) {
        if (
          err instanceof AccountError &&
          (err.code === 'account_in_use' || err.code === 'account_not_found')
        )
          throw new HearthError(err.code, err.message)
        throw err
      }
    }
    throw new HearthError('account_not_found', `No saved account ${id}`)
  }
}
