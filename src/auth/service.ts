// The provider-auth side of the daemon: the sign-in plugins on offer (their OAuth clients
// from settings), the engine that runs logins, and the saved accounts. Handlers in
// src/api/auth.ts stay thin over this.
import { PROVIDERS } from '../providers/registry.ts'
import type { SignInPlugin, StoredCredential } from '../providers/shared/sign-in-plugin.ts'
import type { AccountDescriptor } from '../schemas/auth.ts'
import { HearthError } from '../schemas/problems.ts'
import type { FileContents } from '../settings/files.ts'
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

/**
 * Sign-ins beside the providers': the remote MCP servers (src/mcp/oauth/signins.ts), as
 * extensions `mcp:<server>` that own their plugins, accounts and sign-out.
 */
export interface McpSignInSource {
  owns(extension: string): boolean
  /** Every server's plugin; a local server's offers no flow (a PUT is `flow_not_offered`). */
  plugins(files: FileContents): Map<string, SignInPlugin>
  signedIn(extension: string, files: FileContents): boolean
  accounts(files: FileContents): AccountDescriptor[]
  save(plugin: SignInPlugin, credential: StoredCredential): Promise<AccountDescriptor>
  /** Revokes and deletes the sign-in; false when there is none. */
  signOut(extension: string): Promise<boolean>
}

export interface AuthDeps {
  db: Db
  settings: Settings
  now: () => number
  onError: (err: unknown) => void
  /** The MCP servers' sign-ins (absent: none are offered). */
  mcp?: McpSignInSource
}

export class AuthService {
  readonly engine: SignInEngine
  readonly #d: AuthDeps

  constructor(d: AuthDeps) {
    this.#d = d
    this.engine = new SignInEngine({
      db: d.db,
      plugins: () => this.#loginPlugins(),
      enabled: (extension) => d.mcp?.owns(extension) || enabledExtensions(d.settings.files()).has(extension),
      save: async (plugin, credential) => {
        if (d.mcp?.owns(plugin.extension)) return d.mcp.save(plugin, credential)
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

  /** What a login may start: the providers' sign-ins, and the MCP servers'. */
  #loginPlugins(): Map<string, SignInPlugin> {
    const mcp = this.#d.mcp?.plugins(this.#d.settings.files())
    return mcp ? new Map([...this.plugins(), ...mcp]) : this.plugins()
  }

  /** GET /auth: providers and their forms, redacted accounts, unfinished logins. */
  overview() {
    const files = this.#d.settings.files()
    const enabled = enabledExtensions(files)
    const plugins = [...this.plugins().values()].filter((p) => enabled.has(p.extension))
    const accounts = plugins.flatMap((p) => describeAccounts(files, p, this.#d.now()) as AccountDescriptor[])
    const own = {
      providers: plugins.map((p) =>
        providerEntry(
          p,
          listAccounts(files, p.accountsKey).some((c) => isSignedIn(p, c, this.#d.now())),
        ),
      ),
      accounts,
    }
    return { ...this.#withMcp(files, own), logins: this.engine.unfinished() }
  }

  /** The remote MCP servers after the providers (a local server offers no sign-in). */
  #withMcp<P>(files: FileContents, own: { providers: P[]; accounts: AccountDescriptor[] }) {
    const mcp = this.#d.mcp
    if (!mcp) return own
    const servers = [...mcp.plugins(files).values()].filter((p) => flowsOf(p).length > 0)
    return {
      providers: [
        ...own.providers,
        ...servers.map((p) => providerEntry(p, mcp.signedIn(p.extension, files))),
      ],
      accounts: [...own.accounts, ...mcp.accounts(files)],
    }
  }

  /** DELETE /auth/accounts/{id}: 404 unknown, 409 while a profile is bound to it. */
  async removeAccount(id: string): Promise<void> {
    if (this.#d.mcp?.owns(id)) {
      if (await this.#d.mcp.signOut(id)) return
      throw new HearthError('account_not_found', `${id} is not signed in`)
    }
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

/** A sign-in as GET /auth lists it: what it is, its flows, and whether it is signed in. */
function providerEntry(p: SignInPlugin, signedIn: boolean) {
  return {
    extension: p.extension,
    label: p.label,
    detail: p.detail,
    protocol: p.protocol,
    flows: flowsOf(p),
    form: { fields: [] },
    status: signedIn ? ('signed in' as const) : ('signed out' as const),
  }
}
