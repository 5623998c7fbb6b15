// The ChatGPT browser sign-in (Codex OAuth, PKCE S256) as a SignInPlugin: the authorize
// URL, the code exchange, the rotating refresh and the account's identity from the JWT
// claims. Vendor facts only; the daemon owns the callback listener, state, PKCE values,
// locking and creds.json. No message of a SignInError ever carries a code, a verifier or
// a token.
import { createHash } from 'node:crypto'
import type { SignIn } from '../descriptor.ts'
import {
  type AccountIdentity,
  type BrowserPlugin,
  SignInError,
  type StoredCredential,
} from '../shared/sign-in-plugin.ts'
import { postToken as post, str } from '../shared/token-request.ts'
import {
  CHATGPT_CALLBACK_PATH,
  CHATGPT_CALLBACK_PORT,
  CHATGPT_CLIENT_ID,
  CHATGPT_ENDPOINT,
  CHATGPT_ISSUER,
  CHATGPT_ORIGINATOR,
  CHATGPT_SCOPE,
} from './constants.ts'
import { type ChatgptClaims, tokenClaims } from './jwt.ts'

export { CHATGPT_CALLBACK_PATH, CHATGPT_ORIGINATOR, CHATGPT_SCOPE }

export const CHATGPT_DEFAULTS: Readonly<{ issuer: string; clientId: string; port: number }> = Object.freeze({
  issuer: CHATGPT_ISSUER,
  clientId: CHATGPT_CLIENT_ID,
  port: CHATGPT_CALLBACK_PORT,
})

export interface ChatgptSignInConfig {
  issuer: string
  clientId: string
  port: number
  /** The `originator` authorize parameter (default `hearth`). */
  originator?: string
  /** Injected by tests or embedders; default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch
  /** Epoch ms now, for `expires` from `expires_in`; default `Date.now`. */
  now?: () => number
}

export function chatgptSignIn(config: ChatgptSignInConfig): BrowserPlugin {
  const issuer = config.issuer.replace(/\/+$/, '')
  const tokenUrl = `${issuer}/oauth/token`
  const fetchFn = config.fetch ?? ((input, init) => globalThis.fetch(input, init))
  const now = config.now ?? Date.now
  const originator = config.originator ?? CHATGPT_ORIGINATOR

  return {
    extension: 'chatgpt',
    accountsKey: 'chatgpt',
    label: 'ChatGPT',
    detail: 'Plus, Pro or Business subscription',
    protocol: 'oauth2_pkce',
    callback: { redirectHost: 'localhost', port: config.port, path: CHATGPT_CALLBACK_PATH, fixed: true },

    authorize({ redirectUri, state, challenge }) {
      const params: [string, string][] = [
        ['response_type', 'code'],
        ['client_id', config.clientId],
        ['redirect_uri', redirectUri],
        ['scope', CHATGPT_SCOPE],
        ['code_challenge', challenge],
        ['code_challenge_method', 'S256'],
        ['state', state],
        ['id_token_add_organizations', 'true'],
        ['codex_cli_simplified_flow', 'true'],
        ['originator', originator],
      ]
      const query = params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')
      return `${issuer}/oauth/authorize?${query}`
    },

    async exchange({ code, redirectUri, verifier, progress, signal }) {
      progress('exchanging the code')
      const body = new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        client_id: config.clientId,
        code_verifier: verifier,
      })
      const tokens = await post(fetchFn, tokenUrl, {
        contentType: 'application/x-www-form-urlencoded',
        body: body.toString(),
        signal,
        secrets: [code, verifier],
        what: 'sign-in',
        provider: 'ChatGPT',
      })
      const access = str(tokens.access_token)
      const refresh = str(tokens.refresh_token)
      if (!access || !refresh) {
        throw new SignInError(
          'invalid_response',
          'the ChatGPT sign-in answered without an access and refresh token',
        )
      }
      progress('reading the account')
      const idToken = str(tokens.id_token)
      const claims = tokenClaims(idToken, access)
      const credential: StoredCredential = { type: 'oauth', access, refresh }
      if (idToken) credential.id_token = idToken
      const expires = expiryOf(tokens.expires_in, claims, now())
      if (expires !== undefined) credential.expires = expires
      return withClaims(credential, claims)
    },

    account(credential) {
      return identityOf(credential)
    },

    expiresAt(credential) {
      const stored = credential.expires
      if (typeof stored === 'number' && Number.isFinite(stored)) return stored
      return tokenClaims(undefined, credential.access).expires ?? null
    },

    async refresh(credential, signal) {
      const refreshToken = str(credential.refresh)
      if (!refreshToken) throw new SignInError('invalid_grant', 'no refresh token is stored; sign in again')
      const secrets = [refreshToken, str(credential.access), str(credential.id_token)]
      const tokens = await post(fetchFn, tokenUrl, {
        contentType: 'application/json',
        body: JSON.stringify({
          client_id: config.clientId,
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
        }),
        signal,
        secrets,
        what: 'token refresh',
        provider: 'ChatGPT',
      })
      const access = str(tokens.access_token)
      if (!access)
        throw new SignInError(
          'invalid_response',
          'the ChatGPT token refresh answered without an access token',
        )
      const idToken = str(tokens.id_token)
      const next: StoredCredential = { ...credential, type: 'oauth', access }
      next.refresh = str(tokens.refresh_token) ?? refreshToken
      if (idToken) next.id_token = idToken
      // Claims of the new tokens win; what they do not say is kept from before.
      const claims = tokenClaims(idToken, access)
      const expires = expiryOf(tokens.expires_in, claims, now())
      if (expires !== undefined) next.expires = expires
      else delete next.expires
      return withClaims(next, claims)
    },
  }
}

/** The workspace (`chatgpt-account-id`) of a stored credential, or null when no field or token names it. */
export function chatgptAccountId(credential: StoredCredential): string | null {
  return (
    str(credential.account_id) ?? str(credential.accountId) ?? storedClaims(credential).account_id ?? null
  )
}

/**
 * The account's name. The id hashes workspace and seat (`account_id:user_id`), so a new
 * sign-in of the same seat replaces the account and another seat of the same workspace is
 * another account. Without either it falls back to the email, then to the access token.
 */
export function identityOf(credential: StoredCredential): AccountIdentity {
  const claims = storedClaims(credential)
  const accountId = chatgptAccountId(credential)
  const userId = str(credential.user_id) ?? claims.user_id ?? null
  const email = str(credential.email) ?? claims.email ?? null
  const plan = str(credential.plan) ?? claims.plan ?? null
  const key =
    accountId || userId
      ? `${accountId ?? ''}:${userId ?? ''}`
      : email
        ? `email:${email.toLowerCase()}`
        : `token:${str(credential.access) ?? ''}`
  const id = `chatgpt-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`
  return { id, label: email ?? accountId, email, plan }
}

function storedClaims(credential: StoredCredential): ChatgptClaims {
  return tokenClaims(credential.id_token, credential.access)
}

function withClaims(credential: StoredCredential, claims: ChatgptClaims): StoredCredential {
  for (const key of ['account_id', 'user_id', 'email', 'plan'] as const) {
    if (claims[key] !== undefined) credential[key] = claims[key]
  }
  return credential
}

/** `expires_in` seconds from now, else the access token's `exp`, else unknown. */
function expiryOf(expiresIn: unknown, claims: ChatgptClaims, nowMs: number): number | undefined {
  const seconds = typeof expiresIn === 'string' ? Number(expiresIn) : expiresIn
  if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0) return nowMs + seconds * 1000
  return claims.expires
}

/**
 * The sign-in as the daemon runs it. A step sends the account's access token, its workspace
 * (`chatgpt-account-id`) and the session id, to the profile's endpoint or the backend's.
 */
export const signIn: SignIn = {
  plugin: (settings) =>
    chatgptSignIn({
      issuer: settings.issuer as string,
      clientId: settings.client_id as string,
      port: settings.callback_port as number,
    }),
  runProfile(profile, credential, sessionId) {
    const workspace = chatgptAccountId(credential)
    return {
      ...profile,
      endpoint: profile.endpoint || CHATGPT_ENDPOINT,
      api_key: String(credential.access ?? ''),
      headers: { ...(workspace ? { 'chatgpt-account-id': workspace } : {}), session_id: sessionId },
    }
  },
}
