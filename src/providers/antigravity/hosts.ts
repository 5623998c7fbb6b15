// Which Cloud Code Assist bases a request tries, in order (the walk itself, moving on
// when a host cannot be reached or answers 404 or 5xx, is ../hosts.ts). Steps and the
// project calls use the vendor's hosts in the vendor's clients' orders; two environment
// variables replace them:
//
// - HEARTH_ANTIGRAVITY_BASE_URL pins one base for everything (a backend of one's own, a
//   fake in tests);
// - HEARTH_ANTIGRAVITY_BASE_URLS (comma-separated) lists the bases to try, in the order
//   given, for every call: a test hook, the only way to try several plain-http loopback
//   bases.
import { CLOUD_CODE_BASE_URL, CLOUD_CODE_HOSTS, PROJECT_LOOKUP_HOSTS } from './constants.ts'

/** The bases of the project step: the lookup's and onboarding's. */
export interface ProjectHosts {
  /** `loadCodeAssist`, tried in order. */
  lookup: readonly string[]
  /** `onboardUser`, tried in order; its polls stay on the host that accepted it. */
  onboard: readonly string[]
}

/** The pinned base: HEARTH_ANTIGRAVITY_BASE_URL, else the production host. */
export function antigravityBaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  return (env.HEARTH_ANTIGRAVITY_BASE_URL?.trim() || CLOUD_CODE_BASE_URL).replace(/\/+$/, '')
}

/**
 * The bases a step tries in order: the profile's endpoint alone when it names one (the
 * daemon passes HEARTH_ANTIGRAVITY_BASE_URL there, which pins one base), else the listed
 * bases, else the vendor's hosts (daily, autopush, production).
 */
export function antigravityBases(endpoint: string, env: NodeJS.ProcessEnv = process.env): string[] {
  if (endpoint.trim() !== '') return [endpoint.trim()]
  const listed = listedBases(env)
  return listed.length > 0 ? listed : [...CLOUD_CODE_HOSTS]
}

/**
 * The bases of the project step: the pinned base alone, else the listed bases (for both
 * calls), else the vendor's hosts: production first for the lookup, the steps' order for
 * onboarding.
 */
export function projectHosts(env: NodeJS.ProcessEnv = process.env): ProjectHosts {
  if (env.HEARTH_ANTIGRAVITY_BASE_URL?.trim()) {
    const pinned = [antigravityBaseUrl(env)]
    return { lookup: pinned, onboard: pinned }
  }
  const listed = listedBases(env)
  if (listed.length > 0) return { lookup: listed, onboard: listed }
  return { lookup: [...PROJECT_LOOKUP_HOSTS], onboard: [...CLOUD_CODE_HOSTS] }
}

function listedBases(env: NodeJS.ProcessEnv): string[] {
  return (env.HEARTH_ANTIGRAVITY_BASE_URLS ?? '')
    .split(',')
    .map((base) => base.trim().replace(/\/+$/, ''))
    .filter((base) => base !== '')
}
