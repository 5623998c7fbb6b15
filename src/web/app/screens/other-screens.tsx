// The screens beside the sessions list other than a session: sign-in, quota, settings, work
// items and a session's context. The frame links to them; each lives in its own folder, and
// together they are one chunk (screen-set.ts) loaded when the first of them opens, so the
// first page load carries only the sessions and the session screens (their styles are in
// screens.css, loaded with the page).
import type { ComponentType, JSX } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import type { ApiClient } from '../api/client.ts'
import type { Route } from '../router.ts'
import './screens.css'

type Loader = () => Promise<ComponentType<any>>
const loaded = new Map<Loader, ComponentType<unknown>>()

const screenSet = () => import('./screen-set.ts')
const signIn: Loader = async () => (await screenSet()).SignInScreen
const quota: Loader = async () => (await screenSet()).QuotaScreen
const settings: Loader = async () => (await screenSet()).SettingsScreen
const work: Loader = async () => (await screenSet()).WorkScreen
const context: Loader = async () => (await screenSet()).ContextScreen

/** A screen whose module loads on first use; "Loading…" meanwhile. */
function Lazy({ load, props }: { load: Loader; props: Record<string, unknown> }) {
  const [screen, setScreen] = useState(() => loaded.get(load))
  useEffect(() => {
    if (screen) return
    void load().then((c) => {
      loaded.set(load, c as ComponentType<unknown>)
      setScreen(() => c as ComponentType<unknown>)
    })
  }, [load])
  const Screen = screen as ComponentType<Record<string, unknown>> | undefined
  return Screen ? (
    <Screen {...props} />
  ) : (
    <main class="screen">
      <p class="note">Loading…</p>
    </main>
  )
}

const LINKS = [
  ['sign-in', 'Sign-in'],
  ['quota', 'Quota'],
  ['work', 'Work'],
  ['settings', 'Settings'],
] as const

export function FrameLinks({ route }: { route: Route }) {
  return (
    <nav class="frame-links" aria-label="screens">
      {LINKS.map(([screen, label]) => (
        <a key={screen} href={`#/${screen}`} aria-current={route.screen === screen ? 'page' : undefined}>
          {label}
        </a>
      ))}
    </nav>
  )
}

/** The screen a route names, or null for the sessions and a session (the frame's own). */
export function OtherScreen({ route, client }: { route: Route; client: ApiClient }): JSX.Element | null {
  switch (route.screen) {
    case 'sign-in':
      return <Lazy key="sign-in" load={signIn} props={{ client }} />
    case 'quota':
      return <Lazy key="quota" load={quota} props={{ client }} />
    case 'settings':
      return <Lazy key="settings" load={settings} props={{ client }} />
    case 'work':
      return (
        <Lazy
          key={`work ${route.workspace ?? ''}`}
          load={work}
          props={{ client, workspace: route.workspace }}
        />
      )
    case 'context':
      return (
        <Lazy
          key={`context ${route.sessionId}`}
          load={context}
          props={{ client, sessionId: route.sessionId }}
        />
      )
    default:
      return null
  }
}
