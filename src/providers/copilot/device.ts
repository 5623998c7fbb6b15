// GitHub's OAuth device flow (RFC 8628 as GitHub serves it): the code request and one poll of
// the token endpoint. The caller (the sign-in engine) owns the waiting between polls, the
// deadline and cancellation; this file only speaks the two POSTs. GitHub answers a waiting
// poll with HTTP 200 and `{"error": …}`, so an answer is read by its fields, not its status.
import { type DeviceCode, type DevicePoll as SharedPoll, SignInError } from '../shared/sign-in-plugin.ts'
import { postToken, str } from '../shared/token-request.ts'
import { DEVICE_GRANT, type GitHubUrls, SLOW_DOWN_STEP_MS } from './constants.ts'

/** A device code as GitHub gave it (the sign-in contract's shape). */
export type DeviceStart = DeviceCode

/** One poll's answer; a token comes with the scope GitHub granted. */
export type DevicePoll =
  | Exclude<SharedPoll, { kind: 'token' }>
  | { kind: 'token'; token: string; scope: string }

export interface DeviceCall {
  urls: GitHubUrls
  clientId: string
  fetch: typeof globalThis.fetch
  signal: AbortSignal
}

const PROVIDER = 'GitHub'
/** GitHub's documented defaults, used when an answer leaves them out. */
const DEFAULT_INTERVAL_S = 5
const DEFAULT_EXPIRES_S = 900

export async function startDevice(call: DeviceCall, scope: string): Promise<DeviceStart> {
  const body = await postToken(call.fetch, call.urls.deviceCode, {
    provider: PROVIDER,
    contentType: 'application/x-www-form-urlencoded',
    body: new URLSearchParams({ client_id: call.clientId, scope }).toString(),
    signal: call.signal,
    secrets: [],
    what: 'sign-in',
  })
  const deviceCode = str(body.device_code)
  const userCode = str(body.user_code)
  const url = str(body.verification_uri)
  if (typeof body.error === 'string') throw refusal(body.error, body.error_description, [])
  if (!deviceCode || !userCode || !url)
    throw new SignInError('invalid_response', 'GitHub answered the device code request without a code')
  return {
    deviceCode,
    userCode,
    url,
    expiresInMs: seconds(body.expires_in, DEFAULT_EXPIRES_S) * 1000,
    intervalMs: seconds(body.interval, DEFAULT_INTERVAL_S) * 1000,
  }
}

/**
 * One poll. `intervalMs` is the interval in force, for a `slow_down` that names none.
 * Throws SignInError: `expired_token` (the code outlived its deadline), `access_denied`
 * (the person cancelled), or GitHub's other codes.
 */
export async function pollDevice(
  call: DeviceCall,
  deviceCode: string,
  intervalMs: number,
): Promise<DevicePoll> {
  const body = await postToken(call.fetch, call.urls.accessToken, {
    provider: PROVIDER,
    contentType: 'application/x-www-form-urlencoded',
    body: new URLSearchParams({
      client_id: call.clientId,
      device_code: deviceCode,
      grant_type: DEVICE_GRANT,
    }).toString(),
    signal: call.signal,
    secrets: [deviceCode],
    what: 'sign-in',
  })
  const token = str(body.access_token)
  if (token) return { kind: 'token', token, scope: str(body.scope) ?? '' }
  switch (body.error) {
    case 'authorization_pending':
      return { kind: 'pending' }
    case 'slow_down': {
      const named = typeof body.interval === 'number' && body.interval > 0 ? body.interval * 1000 : null
      return { kind: 'slow_down', intervalMs: named ?? intervalMs + SLOW_DOWN_STEP_MS }
    }
    case undefined:
      throw new SignInError('invalid_response', 'GitHub answered the token poll without a token or an error')
    default:
      throw refusal(String(body.error), body.error_description, [deviceCode])
  }
}

function refusal(code: string, description: unknown, secrets: string[]): SignInError {
  const safe = code.replace(/[^a-z0-9_]/gi, '').slice(0, 64) || 'token_request_failed'
  if (safe === 'expired_token')
    return new SignInError(safe, 'the GitHub code expired before it was entered; start a new sign-in')
  if (safe === 'access_denied') return new SignInError(safe, 'the GitHub sign-in was cancelled')
  let detail = typeof description === 'string' && description !== '' ? description.slice(0, 300) : safe
  for (const s of secrets) detail = detail.split(s).join('[redacted]')
  return new SignInError(safe, `the GitHub sign-in failed: ${detail}`)
}

function seconds(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback
}
