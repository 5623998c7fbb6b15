// Without the daemon token the page can do nothing: it says how to get one (`hearth web`
// opens the page with it) and takes a pasted one. The token is never put in the address.
import { useState } from 'preact/hooks'

export function TokenScreen(props: { refused: boolean; onToken: (token: string) => boolean }) {
  const [value, setValue] = useState('')
  const [bad, setBad] = useState(false)
  return (
    <main class="token-screen">
      <h2>{props.refused ? 'The daemon refused this page’s token' : 'This page needs the daemon’s token'}</h2>
      <p>
        Run <code>hearth web</code> in a terminal: it opens this page with the token. Or paste the token (the
        file <code>token</code> in the daemon’s home, <code>~/.hearth</code> unless you chose another):
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault()
          setBad(!props.onToken(value))
        }}
      >
        <input
          type="password"
          autocomplete="off"
          aria-label="daemon token"
          value={value}
          onInput={(e) => setValue((e.target as HTMLInputElement).value)}
        />
        <button type="submit">Use it</button>
      </form>
      {bad ? <p class="error-text">That is not a token.</p> : null}
      <p class="note">The token stays in this tab only (not in a cookie, not in the address).</p>
    </main>
  )
}
