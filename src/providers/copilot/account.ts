// A Copilot account's credential: the GitHub token the device flow gave, the Copilot token it
// is exchanged for (`copilot_internal/v2/token`, short-lived), the API base that token names,
// and the GitHub user. The exchange is the account's refresh: the GitHub token never
// expires and never rotates, so a refresh that loses a race costs nothing.
import { createHash } from 'node:crypto'
import { describe, redact } from '../shared/errors.ts'
import { type AccountIdentity, SignInError, type StoredCredential } from '../shared/sign-in-plugin.ts'
import { str } from '../shared/token-request.ts'
import { COPILOT_API_URL, EDITOR_HEADERS, type GitHubUrls } from './constants.ts'

export interface GitHubCall {
  urls: GitHubUrls
  fetch: typeof globalThis.fetch
  signal: AbortSignal
}

export interface CopilotToken {
  access: string
  /** Epoch ms (`expires_at` seconds × 1000). */
  expires: number
  api: string
}

/** `GET {api}/copilot_internal/v2/token`. Throws SignInError (see `getJson`). */
export async function exchangeCopilotToken(call: GitHubCall, github: string): Promise<CopilotToken> {
  const body = await getJson(call, '/copilot_internal/v2/token', github, 'Bearer', 'token exchange')
  const access = str(body.token)
  const expiresAt = body.expires_at
  if (!access || typeof expiresAt !== 'number' || !Number.isFinite(expiresAt))
    throw new SignInError(
      'invalid_response',
      'the Copilot token exchange answered without a token and expiry',
    )
  return { access, expires: expiresAt * 1000, api: apiBaseOf(body, access) }
}

/** `GET {api}/user`: the account GitHub signed in. */
export async function githubUser(call: GitHubCall, github: string): Promise<{ id: number; login: string }> {
  const body = await getJson(call, '/user', github, 'token', 'sign-in')
  if (typeof body.id !== 'number' || typeof body.login !== 'string')
    throw new SignInError('invalid_response', 'GitHub answered /user without an id and login')
  return { id: body.id, login: body.login }
}

/**
 * The API base: the answer's `endpoints.api`, else the token's `proxy-ep` with `proxy.` made
 * `api.` (as pi reads it), else api.githubcopilot.com.
 */
export function apiBaseOf(answer: Record<string, unknown>, token: string): string {
  const endpoints = answer.endpoints
  const named =
    typeof endpoints === 'object' && endpoints !== null
      ? str((endpoints as Record<string, unknown>).api)
      : undefined
  if (named && /^https?:\/\//i.test(named)) return named.replace(/\/+$/, '')
  const proxy = /(?:^|;)proxy-ep=([^;]+)/.exec(token)?.[1]
  if (proxy && /^[a-z0-9.:-]+$/i.test(proxy)) return `https://${proxy.replace(/^proxy\./i, 'api.')}`
  return COPILOT_API_URL
}

/** The credential stored under `accounts.copilot`. */
export function copilotCredential(
  host: string,
  github: string,
  user: { id: number; login: string },
  token: CopilotToken,
): StoredCredential {
  return { type: 'oauth', github, ...token, host, user_id: user.id, login: user.login }
}

/** `copilot-` + 16 hex of sha256(`<host>:<GitHub user id>`); label the login. */
export function identityOf(credential: StoredCredential): AccountIdentity {
  const host = str(credential.host) ?? 'github.com'
  const key =
    typeof credential.user_id === 'number'
      ? `${host}:${credential.user_id}`
      : `token:${str(credential.github) ?? ''}`
  const id = `copilot-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`
  const login = str(credential.login) ?? null
  return { id, label: login ?? id, email: null, plan: str(credential.plan) ?? null }
}

/** A fresh Copilot token for a stored account; everything else is kept. */
export async function refreshCopilot(
  call: GitHubCall,
  credential: StoredCredential,
): Promise<StoredCredential> {
  const github = str(credential.github)
  if (!github) throw new SignInError('invalid_grant', 'no GitHub token is stored; sign in again')
  return { ...credential, ...(await exchangeCopilotToken(call, github)) }
}

/**
 * One GET on GitHub's REST API. 401: `invalid_grant` (the GitHub token was revoked; sign in
 * again); 403: `exchange_refused` (this OAuth app's tokens are not exchanged); 404:
 * `no_copilot`; other statuses `server_error` / `token_request_failed`; a body that is not a
 * JSON object `invalid_response`; no connection `unreachable`. No message carries the token.
 */
async function getJson(
  call: GitHubCall,
  path: string,
  token: string,
  scheme: 'Bearer' | 'token',
  what: string,
): Promise<Record<string, unknown>> {
  const clean = (m: string) => redact(m, token)
  let res: Response
  let text: string
  try {
    res = await call.fetch(`${call.urls.api}${path}`, {
      headers: { ...EDITOR_HEADERS, accept: 'application/json', authorization: `${scheme} ${token}` },
      signal: call.signal,
    })
    text = await res.text()
  } catch (err) {
    if (call.signal.aborted) throw err
    throw new SignInError('unreachable', clean(`could not reach GitHub: ${describe(err)}`))
  }
  let body: unknown = null
  try {
    body = JSON.parse(text)
  } catch {
    // reported below
  }
  const obj =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : null
  if (res.ok && obj) return obj
  const detail = clean((obj && str(obj.message)?.slice(0, 300)) || `HTTP ${res.status}`)
  if (res.ok) throw new SignInError('invalid_response', `the GitHub ${what} answered without a JSON object`)
  if (res.status === 401)
    throw new SignInError('invalid_grant', `GitHub refused the token (${detail}); sign in again`)
  if (res.status === 403)
    throw new SignInError('exchange_refused', `the GitHub ${what} was refused: ${detail}`)
  if (res.status === 404)
    throw new SignInError('no_copilot', 'this GitHub account has no Copilot subscription')
  const code = res.status >= 500 ? 'server_error' : 'token_request_failed'
  throw new SignInError(code, `the GitHub ${what} failed: ${detail}`)
}
