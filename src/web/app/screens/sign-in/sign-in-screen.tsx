// Sign-in: the providers on offer (GET /auth) with their flows, a login started under an id
// the page makes (PUT /auth/logins/{id}) and followed until it ends, and the saved accounts
// grouped by provider — the pool a profile without a bound account rotates through — with
// their state (selected, limited, expiring, refreshable) and the profiles that use each
// pool (settings group `providers`): those that rotate through it, and the one an account is
// bound to (which keeps it from being removed). The browser flow opens the provider's page
// in a new tab; its redirect reaches the daemon, never this page.
import { useEffect, useState } from 'preact/hooks'
import type { Static } from 'typebox'
import type { AccountDescriptor, Auth } from '../../../../schemas/auth.ts'
import type { ApiClient } from '../../api/client.ts'
import { problemText } from '../../ui/problem-text.ts'
import { ENDED, type Flow, type HeldLogin, LoginPanel, startLogin } from './login-panel.tsx'

type AuthState = Static<typeof Auth>
/** What a profile says of its account (ProvidersRead's profiles, the fields read here). */
type Profiles = Record<string, { extension: string; account_id?: string | null }>

/** The profiles of a provider's pool: those that rotate through it, and those bound to one account. */
function poolUse(profiles: Profiles, provider: string) {
  const rotating: string[] = []
  const bound = new Map<string, string[]>()
  for (const [name, p] of Object.entries(profiles)) {
    if (p.extension !== provider) continue
    if (p.account_id) bound.set(p.account_id, [...(bound.get(p.account_id) ?? []), name])
    else rotating.push(name)
  }
  return { rotating, bound }
}

const profileList = (names: string[]) => names.map((n) => `“${n}”`).join(', ')

const FLOW_LABEL: Record<Flow, string> = {
  browser: 'Sign in in the browser',
  manual: 'Sign in, pasting the response',
  device: 'Sign in with a device code',
  cli: "Borrow its command-line tool's sign-in",
}

function accountState(a: AccountDescriptor, now: number): string[] {
  const out: string[] = []
  if (a.selected) out.push('selected')
  if (a.limited_until && Date.parse(a.limited_until) > now)
    out.push(`limited until ${new Date(a.limited_until).toLocaleString()}`)
  if (a.expires_at)
    out.push(
      Date.parse(a.expires_at) <= now
        ? `expired ${new Date(a.expires_at).toLocaleString()}`
        : `expires ${new Date(a.expires_at).toLocaleString()}`,
    )
  out.push(a.refreshable ? 'refreshable' : 'not refreshable')
  return out
}

function Pools({
  accounts,
  profiles,
  onRemove,
}: {
  accounts: AccountDescriptor[]
  profiles: Profiles
  onRemove: (id: string) => void
}) {
  const now = Date.now()
  const byProvider = new Map<string, AccountDescriptor[]>()
  for (const a of accounts) byProvider.set(a.provider, [...(byProvider.get(a.provider) ?? []), a])
  if (accounts.length === 0) return <p class="note">No saved account.</p>
  return (
    <>
      {[...byProvider].map(([provider, pool]) => {
        const { rotating, bound } = poolUse(profiles, provider)
        return (
          <section class="pool" key={provider} data-provider={provider}>
            <h3>
              {provider} <span class="note">pool of {pool.length}</span>
            </h3>
            <p class="note pool-use">
              {rotating.length > 0
                ? `Profile${rotating.length === 1 ? '' : 's'} ${profileList(rotating)} rotate${rotating.length === 1 ? 's' : ''} through this pool.`
                : 'No profile rotates through this pool.'}
            </p>
            <ul class="accounts">
              {pool.map((a) => (
                <li key={a.id} class="account" data-account={a.id}>
                  <span class="account-name">{a.email ?? a.label ?? a.id}</span>
                  {a.plan ? <span class="badge">{a.plan}</span> : null}
                  <span class="note"> {accountState(a, now).join(' · ')}</span>
                  {bound.has(a.id) ? (
                    <span class="note bound"> · bound to {profileList(bound.get(a.id) ?? [])}</span>
                  ) : null}
                  <button type="button" class="link-button" onClick={() => onRemove(a.id)}>
                    Remove
                  </button>
                </li>
              ))}
            </ul>
          </section>
        )
      })}
    </>
  )
}

export function SignInScreen({ client }: { client: ApiClient }) {
  const [auth, setAuth] = useState<AuthState>()
  const [profiles, setProfiles] = useState<Profiles>({})
  const [logins, setLogins] = useState<HeldLogin[]>([])
  const [error, setError] = useState<string>()
  const read = async () => {
    try {
      const [a, providers] = await Promise.all([
        client.call('auth.get'),
        client.call('settings.get', { query: { group: 'providers' } }),
      ])
      setAuth(a.body)
      setProfiles((providers.body as { settings: { profiles: Profiles } }).settings.profiles)
    } catch (err) {
      setError(problemText(err))
    }
  }
  useEffect(() => void read(), [])
  const start = async (provider: string, flow: Flow) => {
    setError(undefined)
    try {
      const held = await startLogin(client, provider, flow)
      setLogins((ls) => [held, ...ls])
    } catch (err) {
      setError(problemText(err))
    }
  }
  const changed = (h: HeldLogin) => {
    setLogins((ls) => ls.map((l) => (l.login.id === h.login.id ? h : l)))
    if (ENDED.has(h.login.state)) void read()
  }
  const remove = async (id: string) => {
    try {
      await client.call('auth.account.delete', { params: { account_id: id } })
      await read()
    } catch (err) {
      setError(problemText(err))
    }
  }
  return (
    <main class="screen sign-in-screen" data-loaded={auth ? 'true' : undefined}>
      <h2>Sign-in</h2>
      {error ? <p class="error-text">{error}</p> : null}
      {logins.map((h) => (
        <LoginPanel key={h.login.id} client={client} held={h} onChange={changed} />
      ))}
      <section>
        <h3>Providers</h3>
        {auth?.providers.length === 0 ? <p class="note">No provider with a sign-in is enabled.</p> : null}
        <ul class="providers">
          {auth?.providers.map((p) => (
            <li key={p.extension} class="provider" data-provider={p.extension}>
              <div>
                <strong>{p.label}</strong> <span class="note">{p.status}</span>
              </div>
              <div class="note">{p.detail}</div>
              <div class="flows">
                {p.flows.map((f) => (
                  <button key={f} type="button" data-flow={f} onClick={() => void start(p.extension, f)}>
                    {FLOW_LABEL[f]}
                  </button>
                ))}
              </div>
            </li>
          ))}
        </ul>
      </section>
      <section>
        <h3>Accounts</h3>
        {auth ? (
          <Pools accounts={auth.accounts} profiles={profiles} onRemove={(id) => void remove(id)} />
        ) : (
          <p class="note">Loading…</p>
        )}
      </section>
    </main>
  )
}
