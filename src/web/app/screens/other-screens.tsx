// The screens beside the sessions list other than a session: sign-in, quota, settings, work
// items and a session's context. The frame links to them; each lives in its own folder.
import type { JSX } from 'preact'
import type { ApiClient } from '../api/client.ts'
import type { Route } from '../router.ts'
import { ContextScreen } from './context/context-screen.tsx'
import { QuotaScreen } from './quota/quota-screen.tsx'
import { SettingsScreen } from './settings/settings-screen.tsx'
import { SignInScreen } from './sign-in/sign-in-screen.tsx'
import { WorkScreen } from './work/work-screen.tsx'
import './screens.css'

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
      return <SignInScreen client={client} />
    case 'quota':
      return <QuotaScreen client={client} />
    case 'settings':
      return <SettingsScreen client={client} />
    case 'work':
      return <WorkScreen key={route.workspace ?? ''} client={client} workspace={route.workspace} />
    case 'context':
      return <ContextScreen key={route.sessionId} client={client} sessionId={route.sessionId} />
    default:
      return null
  }
}
