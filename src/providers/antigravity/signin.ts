// The Antigravity browser sign-in (Google OAuth for an installed app, PKCE S256) as a
// SignInPlugin: the authorize URL, the code exchange, the account's email, the project
// step (project.ts) and the refresh. Vendor facts only; the daemon owns the callback
// listener (127.0.0.1:51121, an ephemeral port when that one is busy: Google takes any
// loopback port for an installed app), state, PKCE values, locking and creds.json.
//
// Stored shape: {type: "oauth", access, refresh, expires, projectId, email?} (hearth adds
// `selected` and limit marks). No message ever carries a code, a verifier or a token.
import { createHash } from 'node:crypto'
import type { SignIn } from '../descriptor.ts'
import { describe, redact } from '../shared/errors.ts'
import {
  type AccountExtras,
  type AccountIdentity,
  type BrowserPlugin,
  SignInError,
  type StoredCredential,
} from '../shared/sign-in-plugin.ts'
import {
  ANTIGRAVITY_CLIENT_ID,
  ANTIGRAVITY_CLIENT_SECRET,
  ANTIGRAVITY_POLICY,
  ANTIGRAVITY_SCOPES,
  CALLBACK_PATH,
  CALLBACK_PORT,
  GOOGLE_AUTHORIZE_URL,
  GOOGLE_TOKEN_URL,
  GOOGLE_USERINFO_PATH,
  GOOGLE_USERINFO_URL,
} from './constants.ts'
import { clip, decodeGoogleError } from './errors.ts'
import { antigravityBaseUrl, type ProjectHosts, projectHosts } from './hosts.ts'
import { findProject } from './project.ts'
import { antigravityVersion, userAgentOf } from './version.ts'

export interface AntigravitySignInConfig {
  clientId: string
  clientSecret: string
  port: number
  authorizeUrl: string
  tokenUrl: string
  userinfoUrl: string
  /** The Cloud Code Assist bases of the project calls, tried in order. */
  hosts: ProjectHosts
  /** The user agent of the project calls (default `antigravity/hub/<version>`). */
  userAgent?: () => Promise<string>
  fetch?: typeof globalThis.fetch
  now?: () => number
  onboardTries?: number
  onboardDelayMs?: number
}

/**
 * The configuration from the environment: HEARTH_ANTIGRAVITY_TOKEN_URL replaces Google's
 * token endpoint (exchange and refresh; userinfo is then read from the same origin), and
 * HEARTH_ANTIGRAVITY_BASE_URL (one base) or HEARTH_ANTIGRAVITY_BASE_URLS (a list) the
 * backend hosts (hosts.ts). Only these reach a plain http:// loopback.
 */
export function antigravityConfig(env: NodeJS.ProcessEnv = process.env): AntigravitySignInConfig {
  const tokenUrl = env.HEARTH_ANTIGRAVITY_TOKEN_URL?.trim() || GOOGLE_TOKEN_URL
  return {
    clientId: ANTIGRAVITY_CLIENT_ID,
    clientSecret: ANTIGRAVITY_CLIENT_SECRET,
    port: CALLBACK_PORT,
    authorizeUrl: GOOGLE_AUTHORIZE_URL,
    tokenUrl,
    userinfoUrl:
      tokenUrl === GOOGLE_TOKEN_URL
        ? GOOGLE_USERINFO_URL
        : new URL(GOOGLE_USERINFO_PATH, tokenUrl).toString(),
    hosts: projectHosts(env),
  }
}

export function antigravitySignIn(config: AntigravitySignInConfig): BrowserPlugin & AccountExtras {
  const fetchFn = config.fetch ?? ((input, init) => globalThis.fetch(input, init))
  const now = config.now ?? Date.now
  const userAgent = config.userAgent ?? (async () => userAgentOf(await antigravityVersion()))

  return {
    extension: 'antigravity',
    accountsKey: 'antigravity',
    label: 'Antigravity',
    detail: `Google Antigravity sign-in (Gemini and other models). ${ANTIGRAVITY_POLICY}`,
    protocol: 'oauth2_pkce',
    // Google's invalid_grant on a refresh means the grant was revoked or expired for good.
    forgetRevokedRefresh: true,
    callback: { redirectHost: '127.0.0.1', port: config.port, path: CALLBACK_PATH, fixed: false },

    authorize({ redirectUri, state, challenge }) {
      const params = new URLSearchParams({
        client_id: config.clientId,
        response_type: 'code',
        redirect_uri: redirectUri,
        scope: ANTIGRAVITY_SCOPES.join(' '),
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state,
        access_type: 'offline',
        prompt: 'consent',
      })
      return `${config.authorizeUrl}?${params.toString().replaceAll('+', '%20')}`
    },

    async exchange({ code, redirectUri, verifier, progress, signal }) {
      progress('exchanging the code')
      const form = new URLSearchParams({
        client_id: config.clientId,
        client_secret: config.clientSecret,
        code,
        grant_type: 'authorization_code',
        redirect_uri: redirectUri,
        code_verifier: verifier,
      })
      const tokens = await postToken(fetchFn, config.tokenUrl, form, signal, [code, verifier], 'sign-in')
      const access = str(tokens.access_token)
      const refresh = str(tokens.refresh_token)
      if (!access || !refresh)
        throw new SignInError(
          'invalid_response',
          'the Google sign-in answered without an access and refresh token',
        )
      progress('reading the account')
      const email = await emailOf(fetchFn, config.userinfoUrl, access, signal)
      const projectId = await findProject(access, {
        hosts: config.hosts,
        fetch: fetchFn,
        userAgent: await userAgent(),
        progress,
        signal,
        onboardTries: config.onboardTries,
        onboardDelayMs: config.onboardDelayMs,
      })
      const credential: StoredCredential = {
        type: 'oauth',
        access,
        refresh,
        expires: expiryOf(tokens.expires_in, now()),
        projectId,
      }
      if (email) credential.email = email
      return credential
    },

    account(credential) {
      return identityOf(credential)
    },

    expiresAt(credential) {
      return typeof credential.expires === 'number' && Number.isFinite(credential.expires)
        ? credential.expires
        : null
    },

    async refresh(credential, signal) {
      const refreshToken = str(credential.refresh)
      if (!refreshToken) throw new SignInError('invalid_grant', 'no refresh token is stored; sign in again')
      const form = new URLSearchParams({
        client_id: config.clientId,
        client_secret: config.clientSecret,
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
      })
      const secrets = [refreshToken, str(credential.access)]
      const tokens = await postToken(fetchFn, config.tokenUrl, form, signal, secrets, 'token refresh')
      const access = str(tokens.access_token)
      if (!access)
        throw new SignInError('invalid_response', 'the Google token refresh answered without an access token')
      // Google keeps the refresh token unless it sends a new one.
      return {
        ...credential,
        access,
        refresh: str(tokens.refresh_token) ?? refreshToken,
        expires: expiryOf(tokens.expires_in, now()),
      }
    },
  }
}

/**
 * The account's name: the email, else the project, else the refresh token, hashed. A new
 * sign-in of the same Google account replaces it.
 */
export function identityOf(credential: StoredCredential): AccountIdentity {
  const email = str(credential.email) ?? null
  const projectId = str(credential.projectId) ?? null
  const key = email
    ? `email:${email.toLowerCase()}`
    : projectId
      ? `project:${projectId}`
      : `refresh:${str(credential.refresh) ?? str(credential.access) ?? ''}`
  const id = `antigravity-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`
  return { id, label: email ?? projectId, email, plan: null }
}

/** Seconds from now; a missing or bad `expires_in` counts as the hour Google grants. */
function expiryOf(expiresIn: unknown, nowMs: number): number {
  const seconds = typeof expiresIn === 'string' ? Number(expiresIn) : expiresIn
  return (
    nowMs + (typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds : 3600) * 1000
  )
}

/** The account's email from Google's userinfo; the account works without it, so a failure is no error. */
async function emailOf(
  fetchFn: typeof globalThis.fetch,
  url: string,
  access: string,
  signal: AbortSignal,
): Promise<string | null> {
  try {
    const res = await fetchFn(url, { headers: { authorization: `Bearer ${access}` }, signal })
    if (!res.ok) return null
    const body = (await res.json()) as { email?: unknown }
    return str(body?.email) ?? null
  } catch (err) {
    if (signal.aborted) throw err
    return null
  }
}

/** POSTs a form to the token endpoint; a 2xx JSON object comes back, anything else is a SignInError. */
async function postToken(
  fetchFn: typeof globalThis.fetch,
  url: string,
  form: URLSearchParams,
  signal: AbortSignal,
  secrets: (string | undefined)[],
  what: 'sign-in' | 'token refresh',
): Promise<Record<string, unknown>> {
  const clean = (message: string) => secrets.reduce<string>((m, s) => redact(m, s ?? null), message)
  let res: Response
  let raw: string
  try {
    res = await fetchFn(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      signal,
    })
    raw = await res.text()
  } catch (err) {
    if (signal.aborted) throw err
    throw new SignInError('unreachable', clean(`could not reach the Google token endpoint: ${describe(err)}`))
  }
  let body: unknown = null
  try {
    body = JSON.parse(raw)
  } catch {
    // reported below
  }
  const obj =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : null
  if (res.ok) {
    if (obj) return obj
    throw new SignInError(
      'invalid_response',
      `the Google ${what} answered HTTP ${res.status} without a JSON object`,
    )
  }
  // OAuth errors are `{error, error_description}`; other Google errors `{error: {message, status}}`.
  const vendorCode = typeof obj?.error === 'string' ? obj.error : null
  const description = str(obj?.error_description) ?? decodeGoogleError(raw).message ?? vendorCode ?? 'refused'
  const dead = what === 'token refresh' && (vendorCode === 'invalid_grant' || res.status === 401)
  const code = dead
    ? 'invalid_grant'
    : (vendorCode ?? (res.status >= 500 ? 'server_error' : 'token_request_failed'))
  const advice = dead ? '; sign in again' : ''
  throw new SignInError(
    code,
    clean(`the Google ${what} failed: ${clip(description)} (HTTP ${res.status})${advice}`),
  )
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

/**
 * The sign-in as the daemon runs it: Google's public OAuth client (HEARTH_ANTIGRAVITY_*
 * reach a fake Google). A step sends the account's project and the Antigravity user agent;
 * HEARTH_ANTIGRAVITY_BASE_URL (a test hook) wins over the profile's endpoint, and with
 * neither the endpoint stays empty and the transport tries the vendor's hosts in order.
 */
export const signIn: SignIn = {
  plugin: () => antigravitySignIn(antigravityConfig()),
  async runProfile(profile, credential) {
    const base = process.env.HEARTH_ANTIGRAVITY_BASE_URL?.trim() ? antigravityBaseUrl() : profile.endpoint
    return {
      ...profile,
      endpoint: base,
      api_key: String(credential.access ?? ''),
      project: typeof credential.projectId === 'string' ? credential.projectId : '',
      headers: { 'user-agent': userAgentOf(await antigravityVersion()) },
    }
  },
}
