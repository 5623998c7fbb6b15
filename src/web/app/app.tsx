// The page's frame: the token (or the screen that asks for it), the route, and the layout
// (the session list beside the open session on a wide screen, one of them on a narrow one).
import { useMemo, useState } from 'preact/hooks'
import { ApiClient } from './api/client.ts'
import { forgetToken, loadToken, setToken, token } from './api/token.ts'
import { useRoute } from './router.ts'
import { FrameLinks, OtherScreen } from './screens/other-screens.tsx'
import { SessionScreen } from './screens/session/session-screen.tsx'
import { SessionsScreen } from './screens/sessions/sessions-screen.tsx'
import { TokenScreen } from './screens/token/token-screen.tsx'

export function App() {
  const [have, setHave] = useState(() => loadToken() !== undefined)
  const [refused, setRefused] = useState(false)
  const route = useRoute()
  const client = useMemo(
    () =>
      new ApiClient(token, () => {
        forgetToken()
        setRefused(true)
        setHave(false)
      }),
    [],
  )
  if (!have)
    return (
      <TokenScreen
        refused={refused}
        onToken={(t) => {
          const ok = setToken(t)
          if (ok) setHave(true)
          return ok
        }}
      />
    )
  const openId = route.screen === 'session' ? route.sessionId : undefined
  const other = OtherScreen({ route, client })
  return (
    <div class={`layout${openId || other ? ' with-session' : ''}`}>
      <header class="top">
        <a href="#/" class="brand">
          hearth
        </a>
        <FrameLinks route={route} />
      </header>
      <SessionsScreen client={client} openId={openId} />
      {openId ? <SessionScreen key={openId} client={client} sessionId={openId} /> : other}
    </div>
  )
}
