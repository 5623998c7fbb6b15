// The Claude subscription sign-in (the Claude Code OAuth client, PKCE S256) as a
// SignInPlugin: the authorize URL, the JSON code exchange (with `state`), the rotating
// refresh and the account's name. Vendor facts only; the daemon owns the callback listener,
// state, PKCE values, locking and creds.json. No message of a SignInError ever carries a
// code, a verifier or a token.
import { createHash } from 'node:crypto'
import type { SignIn } from '../descriptor.ts'
import {
  type AccountIdentity,
  type BrowserPlugin,
  SignInError,
  type StoredCredential,
} from '../shared/sign-in-plugin.ts'
import { postToken, str } from '../shared/token-request.ts'
import {
  CLAUDE_AUTHORIZE_URL,
  CLAUDE_CALLBACK_PATH,
  CLAUDE_CALLBACK_PORT,
  CLAUDE_CLIENT_ID,
  CLAUDE_POLICY,
  CLAUDE_SCOPE,
  CLAUDE_TOKEN_URL,
  TOKEN_URL_ENV,
} from './constants.ts'

export interface ClaudeSignInConfig {
  clientId: string
  port: number
  authorizeUrl?: string
  /** Default: `HEARTH_CLAUDE_TOKEN_URL` when set, else platform.claude.com's. */
  tokenUrl?: string
  /** Injected by tests or embedders; default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch
  /** Epoch ms now, for `expires` from `expires_in`; default `Date.now`. */
  now?: () => number
}

export const CLAUDE_DEFAULTS: Readonly<{ clientId: string; port: number }> = Object.freeze({
  clientId: CLAUDE_CLIENT_ID,
  port: CLAUDE_CALLBACK_PORT,
})

/** The token endpoint: the hook when set (tests, proxies), else the vendor's. */
export function claudeTokenUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env[TOKEN_URL_ENV]?.trim() || CLAUDE_TOKEN_URL
}

const ACCOUNT_ID = /^claude-[0-9a-f]{16}$/

export function claudeSignIn(config: ClaudeSignInConfig): BrowserPlugin {
  const tokenUrl = config.tokenUrl ?? claudeTokenUrl()
  const fetchFn = config.fetch ?? ((input, init) => globalThis.fetch(input, init))
  const now = config.now ?? Date.now
  const provider = 'Claude'

  return {
    extension: 'claude',
    accountsKey: 'claude',
    label: 'Claude',
    detail: `Pro or Max subscription. ${CLAUDE_POLICY}`,
    protocol: 'oauth2_pkce',
    callback: { redirectHost: 'localhost', port: config.port, path: CLAUDE_CALLBACK_PATH, fixed: true },

    authorize({ redirectUri, state, challenge }) {
      const params: [string, string][] = [
        ['code', 'true'],
        ['client_id', config.clientId],
        ['response_type', 'code'],
        ['redirect_uri', redirectUri],
        ['scope', CLAUDE_SCOPE],
        ['code_challenge', challenge],
        ['code_challenge_method', 'S256'],
        ['state', state],
      ]
      const query = params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')
      return `${config.authorizeUrl ?? CLAUDE_AUTHORIZE_URL}?${query}`
    },

    async exchange({ code, redirectUri, verifier, state, progress, signal }) {
      progress('exchanging the code')
      const tokens = await postToken(fetchFn, tokenUrl, {
        provider,
        contentType: 'application/json',
        body: JSON.stringify({
          grant_type: 'authorization_code',
          client_id: config.clientId,
          code,
          state,
          redirect_uri: redirectUri,
          code_verifier: verifier,
        }),
        signal,
        secrets: [code, verifier],
        what: 'sign-in',
      })
      const access = str(tokens.access_token)
      const refresh = str(tokens.refresh_token)
      if (!access || !refresh)
        throw new SignInError(
          'invalid_response',
          'the Claude sign-in answered without an access and refresh token',
        )
      const credential: StoredCredential = { type: 'oauth', access, refresh }
      const expires = expiryOf(tokens.expires_in, now())
      if (expires !== undefined) credential.expires = expires
      return withAccount(credential, tokens)
    },

    account(credential) {
      return identityOf(credential)
    },

    expiresAt(credential) {
      const stored = credential.expires
      return typeof stored === 'number' && Number.isFinite(stored) ? stored : null
    },

    async refresh(credential, signal) {
      const refreshToken = str(credential.refresh)
      if (!refreshToken) throw new SignInError('invalid_grant', 'no refresh token is stored; sign in again')
      const tokens = await postToken(fetchFn, tokenUrl, {
        provider,
        contentType: 'application/json',
        body: JSON.stringify({
          grant_type: 'refresh_token',
          client_id: config.clientId,
          refresh_token: refreshToken,
        }),
        signal,
        secrets: [refreshToken, str(credential.access)],
        what: 'token refresh',
      })
      const access = str(tokens.access_token)
      if (!access)
        throw new SignInError('invalid_response', 'the Claude token refresh answered without an access token')
      // The account keeps its name whatever the answer says (its token is about to change).
      const id = identityOf(credential).id
      const next: StoredCredential = { ...credential, type: 'oauth', access }
      next.refresh = str(tokens.refresh_token) ?? refreshToken
      const expires = expiryOf(tokens.expires_in, now())
      if (expires !== undefined) next.expires = expires
      else delete next.expires
      withAccount(next, tokens)
      if (identityOf(next).id !== id) next.account_id = id
      return next
    },
  }
}

/**
 * The account's name. `claude-` + the first 16 hex digits of sha256 of `account:<uuid>`
 * (the token answer's `account.uuid`), else `email:<email>` (lower case), else
 * `token:<refresh token>` (else the access token). A stored `account_id` of that shape
 * wins: a refresh that would change the name (a token-named account's token rotates, an
 * answer names an account uuid the credential lacked) stores the old id there.
 */
export function identityOf(credential: StoredCredential): AccountIdentity {
  const email = str(credential.email) ?? null
  const uuid = str(credential.account_uuid)
  const pinned = str(credential.account_id)
  const key = uuid
    ? `account:${uuid}`
    : email
      ? `email:${email.toLowerCase()}`
      : `token:${str(credential.refresh) ?? str(credential.access) ?? ''}`
  const id =
    pinned && ACCOUNT_ID.test(pinned)
      ? pinned
      : `claude-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`
  const plan = str(credential.plan) ?? null
  return { id, label: email ?? id, email, plan }
}

/** The identity some token answers carry (`account: {uuid, email_address}`); absent is fine. */
function withAccount(credential: StoredCredential, tokens: Record<string, unknown>): StoredCredential {
  const account = tokens.account
  if (typeof account === 'object' && account !== null) {
    const a = account as Record<string, unknown>
    const uuid = str(a.uuid)
    const email = str(a.email_address) ?? str(a.email)
    if (uuid) credential.account_uuid = uuid
    if (email) credential.email = email
  }
  return credential
}

function expiryOf(expiresIn: unknown, nowMs: number): number | undefined {
  const seconds = typeof expiresIn === 'string' ? Number(expiresIn) : expiresIn
  if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0) return nowMs + seconds * 1000
  return undefined
}

/**
 * The sign-in as the daemon runs it. A step sends the access token alone (the transport
 * resolves the endpoint).
 */
export const signIn: SignIn = {
  plugin: (settings) =>
    claudeSignIn({ clientId: settings.client_id as string, port: settings.callback_port as number }),
  runProfile: (profile, credential) => ({
    ...profile,
    api_key: String(credential.access ?? ''),
    headers: {},
  }),
}
