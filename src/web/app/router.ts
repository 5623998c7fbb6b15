// Routes live in the address's fragment (`#/s/<id>`): the daemon serves one page, and no
// route ever reaches it. A screen is a folder of screens/ and a case of `Route`.
import { useEffect, useState } from 'preact/hooks'

export type Route = { screen: 'sessions' } | { screen: 'session'; sessionId: string }

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '')
  const session = /^\/s\/([0-9a-f-]{36})$/.exec(path)
  if (session) return { screen: 'session', sessionId: session[1] }
  return { screen: 'sessions' }
}

export function navigate(path: string): void {
  location.hash = path
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash))
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash))
    window.addEventListener('hashchange', onChange)
    return () => window.removeEventListener('hashchange', onChange)
  }, [])
  return route
}
