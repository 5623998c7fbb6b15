// Application default credentials, read fresh for every step: the file
// GOOGLE_APPLICATION_CREDENTIALS names, else gcloud's
// `~/.config/gcloud/application_default_credentials.json`, exchanged for an access token
// at the token endpoint the file itself names. No token is cached: a step costs one token
// request, and a changed or revoked file applies to the very next step.
//
// Three shapes (cloud.google.com/docs/authentication/application-default-credentials):
// - `service_account` (a key file): an RS256 JWT signed with the key (`jose`), header
//   `kid` = `private_key_id`, claims iss = `client_email`, scope cloud-platform, aud =
//   `token_uri`, an hour's lifetime; POSTed as the `jwt-bearer` grant to `token_uri`.
// - `authorized_user` (`gcloud auth application-default login`): the `refresh_token`
//   grant with `client_id` and `client_secret` in the form body, to `token_uri` when the
//   file has one, else Google's.
// - `external_account_authorized_user` (workforce identity federation): the
//   `refresh_token` grant to `token_url`, the client as HTTP Basic.
// `quota_project_id` travels as `x-goog-user-project`. Nothing secret (keys, refresh
// tokens, client secrets, the assertion, the access token) appears in an error message.
import { readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
// Named imports, so the bundle keeps only what signing needs (a dynamic import of the whole
// module kept all of jose in the kernel's bundle: +150 KB).
import { importPKCS8, SignJWT } from 'jose'
import { CodedError } from '../../util/coded-error.ts'
import { describe, redact } from '../shared/errors.ts'
import type { UpstreamErrorCode } from '../types.ts'

export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token'
export const STS_TOKEN_URL = 'https://sts.googleapis.com/v1/oauthtoken'
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform'
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer'
const TOKEN_TIMEOUT_MS = 30_000

export interface AdcOptions {
  signal: AbortSignal
  fetch?: typeof globalThis.fetch
  env?: NodeJS.ProcessEnv
  /** The home directory gcloud's default file is under (default: the user's). */
  home?: string
  /** Epoch ms, for the JWT's iat and exp (default: now). */
  now?: () => number
}

export interface AdcToken {
  accessToken: string
  /** The project billed for quota, when the file names one. */
  quotaProject: string | null
}

/** A credential that cannot be read or exchanged; `code` is the step's error code. */
export class AdcError extends CodedError<UpstreamErrorCode> {
  override readonly name = 'AdcError'
}

/** Where the credentials are read from. */
export function adcPath(env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  const named = env.GOOGLE_APPLICATION_CREDENTIALS
  return named && named.trim() !== ''
    ? named
    : join(home, '.config', 'gcloud', 'application_default_credentials.json')
}

type AdcFile = Record<string, unknown>

/** Reads the file and exchanges it for an access token. Throws AdcError (or an abort). */
export async function adcAccessToken(opts: AdcOptions): Promise<AdcToken> {
  const path = adcPath(opts.env ?? process.env, opts.home ?? homedir())
  const file = readAdcFile(path)
  const quotaProject = text(file.quota_project_id) || null
  switch (file.type) {
    case 'service_account':
      return { accessToken: await serviceAccountToken(file, path, opts), quotaProject }
    case 'authorized_user':
      return { accessToken: await authorizedUserToken(file, path, opts), quotaProject }
    case 'external_account_authorized_user':
      return { accessToken: await externalUserToken(file, path, opts), quotaProject }
    default:
      throw new AdcError(
        'credentials_unusable',
        `the application default credentials in ${path} are of type ${JSON.stringify(file.type ?? null)}, which hearth cannot use; use a service-account key or run \`gcloud auth application-default login\``,
      )
  }
}

function readAdcFile(path: string): AdcFile {
  let raw: string
  try {
    raw = readFileSync(path, 'utf8')
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT'
    throw new AdcError(
      missing ? 'credentials_not_found' : 'credentials_unusable',
      missing
        ? `no application default credentials at ${path}: run \`gcloud auth application-default login\` or set GOOGLE_APPLICATION_CREDENTIALS to a key file`
        : `the application default credentials at ${path} cannot be read: ${describe(err)}`,
    )
  }
  try {
    const value = JSON.parse(raw)
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value
  } catch {
    // reported below
  }
  throw new AdcError(
    'credentials_unusable',
    `the application default credentials at ${path} are not a JSON object`,
  )
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : ''
}

function required(file: AdcFile, path: string, ...fields: string[]): string[] {
  const missing = fields.filter((f) => text(file[f]) === '')
  if (missing.length > 0) {
    throw new AdcError(
      'credentials_unusable',
      `the ${String(file.type)} credentials in ${path} lack ${missing.join(', ')}`,
    )
  }
  return fields.map((f) => text(file[f]))
}

async function serviceAccountToken(file: AdcFile, path: string, opts: AdcOptions): Promise<string> {
  const [email, privateKey] = required(file, path, 'client_email', 'private_key')
  const tokenUri = text(file.token_uri) || GOOGLE_TOKEN_URL
  let assertion: string
  try {
    const key = await importPKCS8(privateKey, 'RS256')
    const iat = Math.floor((opts.now ?? Date.now)() / 1000)
    const header: { alg: string; typ: string; kid?: string } = { alg: 'RS256', typ: 'JWT' }
    const kid = text(file.private_key_id)
    if (kid) header.kid = kid
    assertion = await new SignJWT({ scope: CLOUD_PLATFORM_SCOPE })
      .setProtectedHeader(header)
      .setIssuer(email)
      .setAudience(tokenUri)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(key)
  } catch (err) {
    throw new AdcError(
      'credentials_unusable',
      `the private key in ${path} cannot sign (${(err as Error).name}); download a new key for ${email}`,
    )
  }
  const form = new URLSearchParams({ grant_type: JWT_BEARER, assertion })
  return exchange(tokenUri, form, {}, [assertion, privateKey], opts)
}

async function authorizedUserToken(file: AdcFile, path: string, opts: AdcOptions): Promise<string> {
  const [clientId, clientSecret, refreshToken] = required(
    file,
    path,
    'client_id',
    'client_secret',
    'refresh_token',
  )
  const tokenUri = text(file.token_uri) || GOOGLE_TOKEN_URL
  const form = new URLSearchParams({
    grant_type: 'refresh_token',
    client_id: clientId,
    client_secret: clientSecret,
    refresh_token: refreshToken,
  })
  return exchange(tokenUri, form, {}, [clientSecret, refreshToken], opts)
}

async function externalUserToken(file: AdcFile, path: string, opts: AdcOptions): Promise<string> {
  const [clientId, clientSecret, refreshToken] = required(
    file,
    path,
    'client_id',
    'client_secret',
    'refresh_token',
  )
  const tokenUrl = text(file.token_url) || STS_TOKEN_URL
  const basic = Buffer.from(`${clientId}:${clientSecret}`).toString('base64')
  const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken })
  return exchange(
    tokenUrl,
    form,
    { authorization: `Basic ${basic}` },
    [clientSecret, refreshToken, basic],
    opts,
  )
}

/** POSTs the grant; the answer's `access_token`, or an AdcError saying why not. */
async function exchange(
  url: string,
  form: URLSearchParams,
  headers: Record<string, string>,
  secrets: string[],
  opts: AdcOptions,
): Promise<string> {
  const scrub = (message: string) => secrets.reduce((m, s) => redact(m, s), message)
  const fetchFn = opts.fetch ?? globalThis.fetch
  let res: Response
  let body: string
  try {
    res = await fetchFn(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        ...headers,
      },
      body: form.toString(),
      signal: AbortSignal.any([opts.signal, AbortSignal.timeout(TOKEN_TIMEOUT_MS)]),
    })
    body = await res.text()
  } catch (err) {
    if (opts.signal.aborted) throw err
    throw new AdcError(
      'upstream_unavailable',
      scrub(`could not reach the token endpoint ${origin(url)}: ${describe(err)}`),
    )
  }
  let json: Record<string, unknown> = {}
  try {
    const value = JSON.parse(body)
    if (typeof value === 'object' && value !== null) json = value
  } catch {
    // a body that is not JSON leaves only the status to report
  }
  if (res.ok && typeof json.access_token === 'string' && json.access_token !== '') return json.access_token
  if (res.ok)
    throw new AdcError(
      'upstream_malformed',
      `the token endpoint ${origin(url)} answered without an access token`,
    )
  const reason = [text(json.error), text(json.error_description)].filter(Boolean).join(': ')
  const code: UpstreamErrorCode =
    res.status === 429
      ? 'upstream_rate_limited'
      : res.status >= 500
        ? 'upstream_unavailable'
        : 'upstream_unauthorized'
  throw new AdcError(
    code,
    scrub(
      `the token endpoint ${origin(url)} refused the application default credentials: ${reason || `HTTP ${res.status}`} (HTTP ${res.status})`,
    ),
  )
}

function origin(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return url
  }
}
