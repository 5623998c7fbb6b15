// Routes live in the address's fragment (`#/s/<id>`): the daemon serves one page, and no
// route ever reaches it. A screen is a folder of screens/ and a case of `Route`.
import { useEffect, useState } from 'preact/hooks'

export type Route =
  | { screen: 'sessions' }
  | { screen: 'session'; sessionId: string }
  | { screen: 'context'; sessionId: string }
  | { screen: 'sign-in' }
  | { screen: 'quota' }
  | { screen: 'settings' }
  | { screen: 'work'; workspace?: string }

/** The screens reached from the frame's links, each a folder of screens/. */
const PLAIN = ['sign-in', 'quota', 'settings'] as const

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '')
  const session = /^\/s\/([0-9a-f-]{36})$/.exec(path)
  if (session) return { screen: 'session', sessionId: session[1] }
  const context = /^\/s\/([0-9a-f-]{36})\/context$/.exec(path)
  if (context) return { screen: 'context', sessionId: context[1] }
  const work = /^\/work(?:\?w=(.*))?$/.exec(path)
  if (work) return { screen: 'work', workspace: work[1] ? decodeURIComponent(work[1]) : undefined }
  for (const screen of PLAIN) if (path === `/${screen}`) return { screen }
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
