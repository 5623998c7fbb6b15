// The project step of an Antigravity sign-in: every request to the Cloud Code Assist
// backend names a project, which the backend finds or provisions for the account.
//
//   1. `POST {base}/v1internal:loadCodeAssist` looks the project up; a project in the answer
//      is the account's. An account with a tier but no project uses the fallback project.
//   2. An account without a tier is checked for free-tier eligibility: an ineligible tier
//      whose reason is VALIDATION_REQUIRED means the account must be verified first (the
//      login fails with the verification page); no allowed tier means it cannot be used.
//   3. `POST {base}/v1internal:onboardUser {tierId, metadata}` onboards it to the default
//      allowed tier, repeated until the answer is `done` (a long-running operation),
//      which names the provisioned project.
// Each call tries its bases in order (hosts.ts: production first for the lookup, the
// steps' order for onboarding), moving on at once when a host cannot be reached or answers
// 404 or 5xx (../hosts.ts); the onboarding's polls stay on the host that accepted it.
// Each step is reported as the login's progress. Errors are decoded from the raw body of
// whichever host answered last (errors.ts) before any of it is cut for display.
import { setTimeout as sleep } from 'node:timers/promises'
import { HostSequence } from '../hosts.ts'
import { describe } from '../shared/errors.ts'
import { SignInError } from '../shared/sign-in-plugin.ts'
import { CLIENT_METADATA, DEFAULT_TIER, FALLBACK_PROJECT, GOOGLE_ACCOUNTS_URL } from './constants.ts'
import { clip, decodeGoogleError, usableVerifyUrl, verificationUrl } from './errors.ts'
import type { ProjectHosts } from './hosts.ts'

export interface ProjectStep {
  /** The backend's bases, tried in order (the vendor's hosts, or the test hooks). */
  hosts: ProjectHosts
  fetch: typeof globalThis.fetch
  userAgent: string
  progress: (text: string) => void
  signal: AbortSignal
  /** Onboarding polls: how many answers to wait for `done`, and the pause between them. */
  onboardTries?: number
  onboardDelayMs?: number
}

interface Tier {
  id?: unknown
  isDefault?: unknown
  reasonCode?: unknown
  reasonMessage?: unknown
  validationUrl?: unknown
}

const ONBOARD_TRIES = 10
const ONBOARD_DELAY_MS = 5000

/** The project of the account whose access token this is; provisions one when it has none. */
export async function findProject(access: string, step: ProjectStep): Promise<string> {
  step.progress('looking up the project')
  const { value: loaded } = await call(access, step, step.hosts.lookup, 'loadCodeAssist', {
    metadata: CLIENT_METADATA,
  })
  const project = projectOf(loaded.cloudaicompanionProject)
  if (project) return project
  if (isObject(loaded.currentTier)) return FALLBACK_PROJECT
  step.progress('checking free-tier eligibility')
  const tierId = eligibleTier(loaded)
  return onboard(access, step, tierId)
}

/** The tier to onboard to, or why the account cannot be onboarded. */
function eligibleTier(loaded: Record<string, unknown>): string {
  const ineligible = tiers(loaded.ineligibleTiers)
  const validation = ineligible.find((t) => t.reasonCode === 'VALIDATION_REQUIRED')
  if (validation) {
    // The tier's own page; the Google Accounts page only when it names no usable one.
    const url = usableVerifyUrl(str(validation.validationUrl) ?? '') ?? GOOGLE_ACCOUNTS_URL
    throw verificationRequired(url, str(validation.reasonMessage))
  }
  const allowed = tiers(loaded.allowedTiers)
  if (allowed.length === 0 && ineligible.length > 0) {
    const why = ineligible.map((t) => str(t.reasonMessage) ?? str(t.reasonCode)).filter(Boolean)
    throw new SignInError(
      'not_eligible',
      clip(`this Google account cannot use Antigravity: ${why.join('; ') || 'no tier is offered'}`),
    )
  }
  const chosen = allowed.find((t) => t.isDefault === true) ?? allowed[0]
  return str(chosen?.id) ?? DEFAULT_TIER
}

/** Onboards to `tierId`: the first call tries the onboarding hosts, the polls go to the one that accepted it. */
async function onboard(access: string, step: ProjectStep, tierId: string): Promise<string> {
  const tries = step.onboardTries ?? ONBOARD_TRIES
  let bases = step.hosts.onboard
  for (let attempt = 1; attempt <= tries; attempt++) {
    step.progress(
      attempt === 1 ? 'onboarding the account' : `onboarding the account (check ${attempt} of ${tries})`,
    )
    const answer = await call(access, step, bases, 'onboardUser', { tierId, metadata: CLIENT_METADATA })
    bases = [answer.base]
    const op = answer.value
    if (op.done === true) {
      const response = isObject(op.response) ? op.response : {}
      return projectOf(response.cloudaicompanionProject) ?? FALLBACK_PROJECT
    }
    if (attempt < tries)
      await sleep(step.onboardDelayMs ?? ONBOARD_DELAY_MS, undefined, { signal: step.signal })
  }
  throw new SignInError(
    'onboarding_timed_out',
    `Antigravity did not finish setting up the account after ${tries} checks; try again later`,
  )
}

type Method = 'loadCodeAssist' | 'onboardUser'

/** What one host answered: its status and raw body, or (`status` null) why it could not be reached. */
type Answer = { status: number; raw: string } | { status: null; cause: unknown }

/**
 * POSTs a project call to `bases` in order, moving on while a host cannot be reached or
 * answers 404 or 5xx; a 2xx JSON object comes back with the base that gave it, anything
 * else is a SignInError read from the last answer.
 */
async function call(
  access: string,
  step: ProjectStep,
  bases: readonly string[],
  method: Method,
  body: Record<string, unknown>,
): Promise<{ value: Record<string, unknown>; base: string }> {
  const hosts = new HostSequence(bases)
  for (;;) {
    const answer = await post(access, step, hosts.current, method, body)
    if (answer.status !== null && answer.status >= 200 && answer.status < 300)
      return { value: objectOf(answer.raw, method), base: hosts.current }
    if (!hosts.moveOn(answer.status)) throw refusal(answer, method)
  }
}

/** One host's answer to a project call; throws only when the sign-in was cancelled. */
async function post(
  access: string,
  step: ProjectStep,
  base: string,
  method: Method,
  body: Record<string, unknown>,
): Promise<Answer> {
  try {
    const res = await step.fetch(`${base.replace(/\/+$/, '')}/v1internal:${method}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${access}`,
        'content-type': 'application/json',
        accept: 'application/json',
        'user-agent': step.userAgent,
        'client-metadata': JSON.stringify(CLIENT_METADATA),
      },
      body: JSON.stringify(body),
      signal: step.signal,
    })
    return { status: res.status, raw: await res.text() }
  } catch (err) {
    if (step.signal.aborted) throw err
    return { status: null, cause: err }
  }
}

/** The SignInError of a failed call, read from the whole raw body before anything is cut. */
function refusal(answer: Answer, method: Method): SignInError {
  if (answer.status === null)
    return new SignInError(
      'unreachable',
      `could not reach the Antigravity backend: ${describe(answer.cause)}`,
    )
  const error = decodeGoogleError(answer.raw)
  const verify = verificationUrl(error)
  if (verify) return verificationRequired(verify, error.message)
  const code = method === 'loadCodeAssist' ? 'project_lookup_failed' : 'onboarding_failed'
  const detail = error.message ?? error.status ?? 'refused'
  return new SignInError(
    code,
    `the Antigravity ${what(method)} failed: ${clip(detail)} (HTTP ${answer.status})`,
  )
}

function objectOf(raw: string, method: Method): Record<string, unknown> {
  try {
    const value = JSON.parse(raw)
    if (isObject(value)) return value
  } catch {
    // reported below
  }
  throw new SignInError('invalid_response', `the Antigravity ${what(method)} answered without a JSON object`)
}

function what(method: Method): string {
  return method === 'loadCodeAssist' ? 'project lookup' : 'onboarding'
}

function verificationRequired(url: string, message: string | null | undefined): SignInError {
  return new SignInError(
    'verification_required',
    `Google asks to verify this account before Antigravity can use it${message ? `: ${clip(message)}` : ''}`,
    `Google asks to verify this account before it can be used. Open this page, finish the verification, then sign in again: ${url}`,
  )
}

/** `cloudaicompanionProject` is a bare id or `{id}`. */
function projectOf(value: unknown): string | null {
  if (typeof value === 'string' && value !== '') return value
  if (isObject(value)) return str(value.id) ?? null
  return null
}

function tiers(value: unknown): Tier[] {
  return Array.isArray(value) ? value.filter(isObject) : []
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
