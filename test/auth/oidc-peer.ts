// A real authorization server for the sign-in engine's tests: oidc-provider on loopback,
// a public client using PKCE, and a "browser" that follows its redirects, signs in through
// its development login and consent forms (cookies kept), and stops at our redirect URI.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'
import {
  SignInError,
  type SignInPlugin,
  type StoredCredential,
} from '../../src/providers/shared/sign-in-plugin.ts'

export const CLIENT_ID = 'hearth-test'

export interface OidcPeer {
  issuer: string
  /** Token endpoint calls so far, by grant type. */
  tokenCalls: { authorization_code: number; refresh_token: number }
  close(): Promise<void>
}

/** A free loopback port (listen on 0, close). */
export async function freePort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  const port = (s.address() as AddressInfo).port
  await new Promise<void>((r) => s.close(() => r()))
  return port
}

export async function startOidcPeer(redirectUris: string[]): Promise<OidcPeer> {
  const tokenCalls = { authorization_code: 0, refresh_token: 0 }
  const server: Server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: redirectUris,
      },
    ],
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    claims: { email: ['email'], openid: ['sub'] },
    findAccount: (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: () => ({ sub, email: `${sub}@example.test` }),
    }),
    issueRefreshToken: () => true,
    rotateRefreshToken: () => true,
    ttl: { AccessToken: 3600 },
  } as never)
  provider.proxy = false
  provider.on('grant.success', (ctx: { oidc: { params?: { grant_type?: string } } }) => {
    const grant = ctx.oidc.params?.grant_type as keyof typeof tokenCalls | undefined
    if (grant && grant in tokenCalls) tokenCalls[grant]++
  })
  server.on('request', provider.callback())
  return {
    issuer,
    tokenCalls,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
}

/** A minimal cookie jar over fetch, for walking the provider's forms like a browser. */
class Browser {
  readonly #cookies = new Map<string, string>()

  async go(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers)
    if (this.#cookies.size > 0)
      headers.set('cookie', [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; '))
    const res = await fetch(url, { ...init, headers, redirect: 'manual' })
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';')
      const eq = pair.indexOf('=')
      this.#cookies.set(pair.slice(0, eq), pair.slice(eq + 1))
    }
    return res
  }
}

/**
 * Signs `user` in at `authorizeUrl` and returns the URL the provider redirects the browser
 * to (our callback with code and state), without requesting it.
 */
export async function signInAtProvider(authorizeUrl: string, user: string, stopAt: string): Promise<string> {
  const browser = new Browser()
  let url = authorizeUrl
  for (let hops = 0; hops < 20; hops++) {
    if (url.startsWith(stopAt)) return url
    const res = await browser.go(url)
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get('location') as string, url).href
      continue
    }
    const html = await res.text()
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]
    const prompt = /name="prompt" value="([a-z]+)"/.exec(html)?.[1]
    if (!action || !prompt) throw new Error(`unexpected page at ${url}: ${res.status} ${html.slice(0, 200)}`)
    const form = new URLSearchParams({
      prompt,
      ...(prompt === 'login' ? { login: user, password: 'x' } : {}),
    })
    const posted = await browser.go(new URL(action, url).href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    })
    url = new URL(posted.headers.get('location') as string, url).href
  }
  throw new Error('too many redirects')
}

function jwtClaims(token: unknown): Record<string, unknown> {
  try {
    return JSON.parse(Buffer.from(String(token).split('.')[1], 'base64url').toString('utf8'))
  } catch {
    return {}
  }
}

/** A plugin for the peer: what a vendor plugin does, against oidc-provider's endpoints. */
export function peerPlugin(issuer: string, port: number, fixed = true): SignInPlugin {
  const token = async (form: Record<string, string>, signal: AbortSignal) => {
    const res = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: CLIENT_ID, ...form }).toString(),
      signal,
    })
    const body = (await res.json()) as Record<string, unknown>
    if (!res.ok)
      throw new SignInError(String(body.error ?? 'exchange_failed'), 'the provider refused the code')
    const claims = jwtClaims(body.id_token)
    return {
      type: 'oauth',
      access: body.access_token,
      refresh: body.refresh_token,
      expires: Date.now() + Number(body.expires_in ?? 0) * 1000,
      sub: claims.sub,
      email: claims.email,
    } as StoredCredential
  }
  return {
    extension: 'peer',
    label: 'Test peer',
    detail: 'oidc-provider on loopback',
    protocol: 'oauth2_pkce',
    accountsKey: 'peer',
    callback: { redirectHost: 'localhost', port, path: '/auth/callback', fixed },
    authorize: ({ redirectUri, state, challenge }) =>
      `${issuer}/auth?${new URLSearchParams({
        client_id: CLIENT_ID,
        response_type: 'code',
        redirect_uri: redirectUri,
        scope: 'openid email offline_access',
        prompt: 'consent',
        state,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      })}`,
    exchange: ({ code, redirectUri, verifier, signal }) =>
      token(
        { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier },
        signal,
      ),
    account: (c) => ({
      id: `peer-${String(c.sub)}`,
      label: String(c.email),
      email: String(c.email),
      plan: null,
    }),
    expiresAt: (c) => Number(c.expires),
    refresh: (c, signal) => token({ grant_type: 'refresh_token', refresh_token: String(c.refresh) }, signal),
  }
}
