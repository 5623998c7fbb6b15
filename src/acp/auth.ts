// Sign-in through the editor: the auth methods are hearth's own sign-ins (GET /auth). A
// browser sign-in (chatgpt, claude, antigravity) runs as `authenticate`: the daemon starts
// the OAuth flow, this process opens the browser and answers once the login ends. Copilot
// borrows the signed-in GitHub CLI's token the same way. Where the editor can run the agent
// in a terminal (client capability `auth.terminal`), every provider is also offered as a
// terminal method, `hearth acp --login PROVIDER`, which runs `hearth login PROVIDER` there
// (the only way to show a device code). session/new asks for a sign-in (auth required) only
// when the profile a new session takes signs in with a provider that has no account.
import {
  type AuthenticateRequest,
  type AuthenticateResponse,
  type AuthMethod,
  RequestError,
} from '@agentclientprotocol/sdk'
import type { HearthClient } from '../client/client.ts'
import { LoginFlow, openBrowser } from '../client/login.ts'
import { profilesOf } from '../client/profiles.ts'
import { DEFAULT_EXTENSION } from '../schemas/extensions.ts'
import type { AcpContext } from './context.ts'

type Provider = { extension: string; label: string; detail: string; flows: string[]; status: string }

/** The method id that borrows the GitHub CLI's token (flow `cli`). */
const CLI_SUFFIX = '-cli'
const TERMINAL_SUFFIX = '-terminal'

async function providersOf(client: HearthClient): Promise<Provider[]> {
  const { body } = await client.call('auth.get')
  return body.providers as Provider[]
}

/** The methods for one provider: what `authenticate` runs, then the terminal one when offered. */
function methodsOf(p: Provider, terminal: boolean): AuthMethod[] {
  const out: AuthMethod[] = []
  if (p.flows.includes('browser')) out.push({ id: p.extension, name: p.label, description: p.detail })
  if (p.flows.includes('cli'))
    out.push({
      id: `${p.extension}${CLI_SUFFIX}`,
      name: `${p.label} (GitHub CLI)`,
      description: `Uses the token of the signed-in GitHub CLI (gh auth login). ${p.detail}`,
    })
  if (terminal)
    out.push({
      type: 'terminal',
      id: `${p.extension}${TERMINAL_SUFFIX}`,
      name: `${p.label} (in a terminal)`,
      description: p.detail,
      args: ['--login', p.extension],
    })
  return out
}

export async function authMethods(ctx: AcpContext): Promise<AuthMethod[]> {
  const terminal = ctx.clientCapabilities?.auth?.terminal === true
  try {
    return (await providersOf(ctx.client)).flatMap((p) => methodsOf(p, terminal))
  } catch (err) {
    ctx.log(`hearth acp: the sign-ins could not be listed: ${(err as Error).message}`)
    return []
  }
}

/** The provider and flow a method id names (a terminal method is never authenticate's). */
function flowOf(methodId: string, providers: Provider[]): { provider: Provider; flow: 'browser' | 'cli' } {
  const cli = methodId.endsWith(CLI_SUFFIX)
  const extension = cli ? methodId.slice(0, -CLI_SUFFIX.length) : methodId
  const provider = providers.find((p) => p.extension === extension)
  const flow = cli ? 'cli' : 'browser'
  if (!provider?.flows.includes(flow))
    throw RequestError.invalidParams({ methodId }, `no sign-in method ${methodId}`)
  return { provider, flow }
}

export async function authenticate(
  ctx: AcpContext,
  params: AuthenticateRequest,
): Promise<AuthenticateResponse> {
  const { provider, flow } = flowOf(params.methodId, await providersOf(ctx.client))
  const sign = await LoginFlow.start(ctx.client, provider.extension, flow)
  if (flow === 'browser' && sign.login.state === 'waiting') {
    ctx.log(`hearth acp: ${sign.login.instructions}\n  ${sign.login.url}`)
    openBrowser(sign.login.url)
  }
  const login = await sign.follow(() => {})
  if (login.state !== 'complete')
    throw RequestError.authRequired(
      { provider: provider.extension, failure: login.failure },
      `${provider.label}: the sign-in ${login.state}${login.failure ? ` (${login.failure})` : ''}`,
    )
  return {}
}

/**
 * Auth required when the profile a new session takes (`profile`, else the settings' default,
 * else the first) signs in with a provider that has no account and cannot borrow one.
 */
export async function requireSignedIn(ctx: AcpContext, profile?: string): Promise<void> {
  let known: Awaited<ReturnType<typeof signInFacts>>
  try {
    known = await signInFacts(ctx.client, profile)
  } catch (err) {
    // Not knowing is no reason to refuse: a run that lacks a credential says so itself.
    ctx.log(`hearth acp: the sign-ins could not be read: ${(err as Error).message}`)
    return
  }
  const { profiles, providers, chosen } = known
  const facts = chosen ? profiles[chosen] : undefined
  if (!facts) return
  const extension = facts.extension ?? DEFAULT_EXTENSION
  const provider = providers.find((p) => p.extension === extension)
  if (!provider || provider.status === 'signed in' || provider.flows.includes('cli')) return
  throw RequestError.authRequired(
    { profile: chosen, provider: extension },
    `profile ${chosen} signs in with ${provider.label}, and no account is signed in`,
  )
}

async function signInFacts(client: HearthClient, profile: string | undefined) {
  const [profiles, providers, chosen] = await Promise.all([
    profilesOf(client),
    providersOf(client),
    profile ?? defaultProfile(client),
  ])
  return { profiles, providers, chosen }
}

async function defaultProfile(client: HearthClient): Promise<string | undefined> {
  const { body } = await client.call('settings.get', { query: { group: 'providers' } })
  const s = (body as { settings: { default_profile?: string | null; profiles: Record<string, unknown> } })
    .settings
  return s.default_profile ?? Object.keys(s.profiles)[0]
}
