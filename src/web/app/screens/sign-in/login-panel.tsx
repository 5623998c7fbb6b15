// One login as it goes: the browser flow's address (opened in a new tab), the manual flow's
// paste box (PATCH with the login's ETag), the device flow's code and address; its state read
// again every second until it ends; cancel (DELETE).
import { useEffect, useState } from 'preact/hooks'
import type { Login } from '../../../../schemas/auth.ts'
import type { ApiClient } from '../../api/client.ts'
import { problemText } from '../../ui/problem-text.ts'

export const ENDED: ReadonlySet<string> = new Set(['complete', 'failed', 'cancelled'])

/** The code a device login's instructions ask the person to enter, or null. */
function userCodeOf(login: Login): string | null {
  return login.flow === 'device' ? (/enter the code (\S+?);/.exec(login.instructions)?.[1] ?? null) : null
}

export interface HeldLogin {
  login: Login
  etag: string
}

function useLoginFollow(client: ApiClient, held: HeldLogin, onChange: (h: HeldLogin) => void) {
  useEffect(() => {
    if (ENDED.has(held.login.state)) return
    const timer = setTimeout(async () => {
      try {
        const r = await client.call('auth.login.get', { params: { login_id: held.login.id } })
        onChange({ login: r.body, etag: r.headers.get('etag') ?? held.etag })
      } catch {
        onChange({ ...held }) // read again a second later
      }
    }, 1000)
    return () => clearTimeout(timer)
  }, [held])
}

function PasteBox({ client, held, onChange }: LoginPanelProps) {
  const [response, setResponse] = useState('')
  const [error, setError] = useState<string>()
  const send = async (e: Event) => {
    e.preventDefault()
    setError(undefined)
    try {
      const r = await client.call('auth.login.patch', {
        params: { login_id: held.login.id },
        body: { response: response.trim() },
        headers: { 'if-match': held.etag },
      })
      onChange({ login: r.body, etag: r.headers.get('etag') ?? held.etag })
    } catch (err) {
      setError(problemText(err))
    }
  }
  return (
    <form class="paste-box" onSubmit={send}>
      <label>
        Paste the address the provider sent you to (or its code)
        <input
          name="response"
          autocomplete="off"
          spellcheck={false}
          value={response}
          onInput={(e) => setResponse((e.target as HTMLInputElement).value)}
        />
      </label>
      <button type="submit" disabled={response.trim() === ''}>
        Finish sign-in
      </button>
      {error ? <p class="error-text">{error}</p> : null}
    </form>
  )
}

interface LoginPanelProps {
  client: ApiClient
  held: HeldLogin
  onChange: (h: HeldLogin) => void
}

export function LoginPanel(props: LoginPanelProps) {
  const { client, held, onChange } = props
  const { login } = held
  useLoginFollow(client, held, onChange)
  const ended = ENDED.has(login.state)
  const code = userCodeOf(login)
  return (
    <section class={`login-panel login-${login.state}`} data-login={login.id} data-state={login.state}>
      <h3>
        {login.provider} · {login.flow} · <span class="login-state">{login.state}</span>
      </h3>
      {!ended && login.url ? (
        <p>
          {code ? 'Go to ' : 'Sign in at '}
          <a class="login-url" href={login.url} target="_blank" rel="noopener noreferrer">
            {code ? login.url : new URL(login.url).host}
          </a>
          {code ? (
            <>
              {' '}
              and enter <code class="user-code">{code}</code>
            </>
          ) : null}
        </p>
      ) : null}
      {!ended ? <p class="note">{login.instructions}</p> : null}
      {login.progress ? <p class="note">{login.progress}</p> : null}
      {login.flow === 'manual' && login.state === 'waiting' ? <PasteBox {...props} /> : null}
      {login.state === 'complete' ? (
        <p>Signed in as {login.accounts.map((a) => a.email ?? a.label ?? a.id).join(', ')}.</p>
      ) : null}
      {login.failure ? <p class="error-text">Failed: {login.failure}</p> : null}
      {!ended ? (
        <button
          type="button"
          class="cancel"
          onClick={async () => {
            await client.call('auth.login.delete', { params: { login_id: login.id } })
            const r = await client.call('auth.login.get', { params: { login_id: login.id } })
            onChange({ login: r.body, etag: r.headers.get('etag') ?? held.etag })
          }}
        >
          Cancel
        </button>
      ) : null}
    </section>
  )
}
