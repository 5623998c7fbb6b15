// Sign-in: the providers on offer (GET /auth) with their flows, a login started under an id
// the page makes (PUT /auth/logins/{id}) and followed until it ends, and the saved accounts
// grouped by provider — the pool a profile without a bound account rotates through — with
// their state (selected, limited, expiring, refreshable). The browser flow opens the
// provider's page in a new tab; its redirect reaches the daemon, never this page.
import { useEffect, useState } from 'preact/hooks'
import type { Static } from 'typebox'
import type { AccountDescriptor, Auth } from '../../../../schemas/auth.ts'
import type { ApiClient } from '../../api/client.ts'
import { uuidv7 } from '../../api/ids.ts'
import { problemText } from '../../ui/problem-text.ts'
import { ENDED, type HeldLogin, LoginPanel } from './login-panel.tsx'

type AuthState = Static<typeof Auth>
type Flow = 'browser' | 'manual' | 'device' | 'cli'

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

function Pools({ accounts, onRemove }: { accounts: AccountDescriptor[]; onRemove: (id: string) => void }) {
  const now = Date.now()
  const byProvider = new Map<string, AccountDescriptor[]>()
  for (const a of accounts) byProvider.set(a.provider, [...(byProvider.get(a.provider) ?? []), a])
  if (accounts.length === 0) return <p class="note">No saved account.</p>
  return (
    <>
      {[...byProvider].map(([provider, pool]) => (
        <section class="pool" key={provider} data-provider={provider}>
          <h3>
            {provider} <span class="note">pool of {pool.length}</span>
          </h3>
          <ul class="accounts">
            {pool.map((a) => (
              <li key={a.id} class="account" data-account={a.id}>
                <span class="account-name">{a.email ?? a.label ?? a.id}</span>
                {a.plan ? <span class="badge">{a.plan}</span> : null}
                <span class="note"> {accountState(a, now).join(' · ')}</span>
                <button type="button" class="link-button" onClick={() => onRemove(a.id)}>
                  Remove
                </button>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </>
  )
}

export function SignInScreen({ client }: { client: ApiClient }) {
  const [auth, setAuth] = useState<AuthState>()
  const [logins, setLogins] = useState<HeldLogin[]>([])
  const [error, setError] = useState<string>()
  const read = async () => {
    try {
      setAuth((await client.call('auth.get')).body)
    } catch (err) {
      setError(problemText(err))
    }
  }
  useEffect(() => void read(), [])
  const start = async (provider: string, flow: Flow) => {
    setError(undefined)
    // Opened now, while the click still counts as the person's: a tab opened after the await would be blocked.
    const tab = flow === 'browser' ? window.open('about:blank', '_blank') : null
    try {
      const r = await client.call('auth.login.put', {
        params: { login_id: uuidv7() },
        body: { provider, flow, values: {} },
      })
      if (tab && r.body.url) {
        tab.opener = null
        tab.location.href = r.body.url
      }
      setLogins((ls) => [{ login: r.body, etag: r.headers.get('etag') ?? '' }, ...ls])
    } catch (err) {
      tab?.close()
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
          <Pools accounts={auth.accounts} onRemove={(id) => void remove(id)} />
        ) : (
          <p class="note">Loading…</p>
        )}
      </section>
    </main>
  )
}
