// The MCP servers the session runs without because they need a sign-in (composition
// quarantine entries with sign_in 'required'), each with a Sign in button: the login of
// provider `mcp:<server>` started and followed by the sign-in screen's own code. The next
// run (or a reload) starts the server again with its token.
import { useState } from 'preact/hooks'
import type { ApiClient } from '../../api/client.ts'
import { problemText } from '../../ui/problem-text.ts'
import { type HeldLogin, LoginPanel, startLogin } from '../sign-in/login-panel.tsx'
import type { Quarantined } from './session-store.ts'

function ServerSignIn({ client, server }: { client: ApiClient; server: string }) {
  const [held, setHeld] = useState<HeldLogin>()
  const [error, setError] = useState<string>()
  const start = async () => {
    setError(undefined)
    try {
      setHeld(await startLogin(client, `mcp:${server}`, 'browser'))
    } catch (err) {
      setError(problemText(err))
    }
  }
  return (
    <li class="sign-in-needed" data-server={server}>
      MCP server <strong>{server}</strong> needs a sign-in; the session runs without it.{' '}
      {held ? null : (
        <button type="button" onClick={() => void start()}>
          Sign in
        </button>
      )}
      {held ? <LoginPanel client={client} held={held} onChange={setHeld} /> : null}
      {error ? <p class="error-text">{error}</p> : null}
    </li>
  )
}

export function SignInNotice({ client, quarantine }: { client: ApiClient; quarantine: Quarantined[] }) {
  const needing = quarantine.filter((q) => q.sign_in === 'required')
  if (needing.length === 0) return null
  return (
    <ul class="sign-in-notice" aria-label="servers that need a sign-in">
      {needing.map((q) => (
        <ServerSignIn key={q.name} client={client} server={q.name} />
      ))}
    </ul>
  )
}
