// The device flow's side of the sign-in engine (RFC 8628): the poll loop that waits the
// provider's interval between polls, the login's instructions, and how a refusal reads as
// the login's failure. The device code lives only in this loop's arguments: it is never
// stored, returned, logged or put in an event.
import { setTimeout as sleep } from 'node:timers/promises'
import {
  type DeviceCode,
  type DevicePlugin,
  type DevicePoll,
  SignInError,
  type SignInPlugin,
} from '../../providers/shared/sign-in-plugin.ts'
import type { LoginRequest } from '../../schemas/auth.ts'
import type { NewLogin } from './rows.ts'

/**
 * Added to every wait: a poll that reaches the provider even a millisecond before the
 * interval is over is answered `slow_down`, which costs five more seconds on every poll.
 */
export const POLL_MARGIN_MS = 50
/** How long one poll (or the code request) may take before it counts as unanswered. */
export const DEVICE_REQUEST_TIMEOUT_MS = 30_000
/** The flows a plugin offers (GET /auth `flows`; a PUT with another is `flow_not_offered`). */
export function flowsOf(plugin: SignInPlugin): LoginRequest['flow'][] {
  if (plugin.flows) return [...plugin.flows]
  if (plugin.protocol === 'oauth2_pkce') return ['browser', 'manual']
  return plugin.fromCli ? ['device', 'cli'] : ['device']
}

/** Refusals that say nothing about the code: the next poll may well be answered. */
const TRANSIENT = new Set(['unreachable', 'server_error'])

/**
 * Polls until the provider hands out its token: waits the interval (an unref'd timer the
 * flow's signal cancels), polls; `pending` waits again, `slow_down` takes the new interval,
 * an unreachable or failing provider is polled again at the next interval (the login's
 * deadline still holds). Throws the provider's SignInError, or the abort.
 */
export async function pollForToken(
  plugin: DevicePlugin,
  code: DeviceCode,
  signal: AbortSignal,
): Promise<string> {
  let intervalMs = code.intervalMs
  for (;;) {
    await sleep(intervalMs + POLL_MARGIN_MS, undefined, { signal, ref: false })
    const answer = await pollOnce(plugin, code.deviceCode, intervalMs, signal)
    if (answer?.kind === 'token') return answer.token
    if (answer?.kind === 'slow_down') intervalMs = answer.intervalMs
  }
}

/** One poll, or null when it went unanswered (timeout, unreachable, a 5xx). */
async function pollOnce(
  plugin: DevicePlugin,
  deviceCode: string,
  intervalMs: number,
  signal: AbortSignal,
): Promise<DevicePoll | null> {
  const timeout = AbortSignal.timeout(DEVICE_REQUEST_TIMEOUT_MS)
  try {
    return await plugin.pollDevice({ deviceCode, intervalMs, signal: AbortSignal.any([signal, timeout]) })
  } catch (err) {
    if (signal.aborted) throw err
    if (timeout.aborted || (err instanceof SignInError && TRANSIENT.has(err.code))) return null
    throw err
  }
}

/** Asks for a code, bounded in time; the flow's signal cancels it. */
export function requestCode(plugin: DevicePlugin, signal: AbortSignal): Promise<DeviceCode> {
  return plugin.startDevice(AbortSignal.any([signal, AbortSignal.timeout(DEVICE_REQUEST_TIMEOUT_MS)]))
}

type LoginBase = Pick<NewLogin, 'id' | 'provider' | 'intent'>

/** A device login's row: the code's URL and instructions, its deadline the code's. */
export function deviceLogin(
  base: LoginBase,
  plugin: DevicePlugin,
  code: DeviceCode | null,
  now: number,
): NewLogin {
  return {
    ...base,
    flow: 'device',
    url: code?.url ?? '',
    instructions: code
      ? `Open ${code.url} and enter the code ${code.userCode}; this finishes by itself once you approve.`
      : `${plugin.label} gave no sign-in code; start a new sign-in in a moment.`,
    progress: 'waiting for the code to be entered',
    created_ms: now,
    expires_ms: now + (code?.expiresInMs ?? 0),
  }
}

/** A cli login's row: no URL; it ends within the PUT. */
export function cliLogin(base: LoginBase, plugin: DevicePlugin, now: number, timeoutMs: number): NewLogin {
  return {
    ...base,
    flow: 'cli',
    url: '',
    instructions: `Taking the token of the command-line tool signed in to ${plugin.label}; this finishes by itself.`,
    progress: 'starting',
    created_ms: now,
    expires_ms: now + timeoutMs,
  }
}

/** Why the code request failed: the provider's code, else `unreachable` (no answer in time). */
export function startFailure(err: unknown): string {
  return err instanceof SignInError ? safeCode(err.code) || 'start_failed' : 'unreachable'
}

/**
 * A refusal as the login's failure: the code outliving its deadline reads `timed_out` (as
 * the engine's own deadline does), the person declining at the provider `provider_refused`
 * (as a refused browser sign-in), any other SignInError its own code.
 */
export function deviceFailure(err: unknown): string {
  if (!(err instanceof SignInError)) return 'exchange_failed'
  if (err.code === 'expired_token') return 'timed_out'
  if (err.code === 'access_denied') return 'provider_refused'
  return safeCode(err.code) || 'exchange_failed'
}

/** What a refusal tells the person to do, in place of the login's instructions. */
export const instructionsOf = (err: unknown): string | undefined =>
  err instanceof SignInError ? (err.instructions ?? undefined) : undefined

/** Only the code is kept, never the message: a provider's text may quote what was sent. */
export const safeCode = (code: string): string => code.replace(/[^a-z0-9_]/gi, '').slice(0, 64)
