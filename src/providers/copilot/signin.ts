// The GitHub Copilot sign-in as a DevicePlugin: GitHub's device flow, then the account's
// identity (`GET /user`) and the Copilot token exchange. Vendor facts only; the daemon owns
// the polling, the deadline, cancellation, locking and creds.json.
//
// Two modes, decided at sign-in by the exchange's answer (docs/providers.md, "copilot"):
// the editor plugins' client id, whose GitHub token is exchanged for a short-lived Copilot
// token (refreshed 60 s before expiry like any access token), and a client id (or a token)
// the exchange refuses, whose GitHub token goes to the API as it is ("direct").
import type { SignIn } from '../descriptor.ts'
import { type DevicePlugin, SignInError, type StoredCredential } from '../shared/sign-in-plugin.ts'
import { str } from '../shared/token-request.ts'
import { exchangeCopilotToken, type GitHubCall, githubUser, identityOf, refreshCopilot } from './account.ts'
import {
  COPILOT_EDITOR_CLIENT_ID,
  COPILOT_SCOPE,
  DIRECT_HEADERS,
  defaultApi,
  EXCHANGE_HEADERS,
  GITHUB_HOST,
  githubUrls,
} from './constants.ts'
import { pollDevice, startDevice } from './device.ts'
import { ghAuthToken } from './gh.ts'
import { copilotModelCache } from './model-cache.ts'
import { wireByName } from './models.ts'

export interface CopilotSignInConfig {
  clientId: string
  /** `github.com`, an enterprise host (`octocorp.ghe.com`), or a base URL (a test's fake). */
  host: string
  fetch?: typeof globalThis.fetch
}

/** Settings `providers.sign_in.copilot` defaults. `HEARTH_COPILOT_GITHUB_URL` points tests at a fake. */
export const COPILOT_DEFAULTS = Object.freeze({ client_id: COPILOT_EDITOR_CLIENT_ID, host: GITHUB_HOST })

/** The GitHub host a credential names (a fake's base URL in tests). */
function hostOf(config: CopilotSignInConfig): string {
  return process.env.HEARTH_COPILOT_GITHUB_URL || config.host
}

export function copilotSignIn(config: CopilotSignInConfig): DevicePlugin {
  const fetchFn = config.fetch ?? ((input, init) => globalThis.fetch(input, init))
  const call = (signal: AbortSignal): GitHubCall => ({
    urls: githubUrls(hostOf(config)),
    fetch: fetchFn,
    signal,
  })
  const device = (signal: AbortSignal) => ({ ...call(signal), clientId: config.clientId })

  return {
    extension: 'copilot',
    accountsKey: 'copilot',
    label: 'GitHub Copilot',
    detail: 'Copilot Free, Pro, Pro+, Business or Enterprise, signed in with a code at GitHub',
    protocol: 'oauth2_device',

    startDevice: (signal) => startDevice(device(signal), COPILOT_SCOPE),

    async pollDevice({ deviceCode, intervalMs, signal }) {
      const answer = await pollDevice(device(signal), deviceCode, intervalMs)
      return answer.kind === 'token' ? { kind: 'token', token: answer.token } : answer
    },

    async finish({ token, progress, signal }) {
      progress('reading the GitHub account')
      const user = await githubUser(call(signal), token)
      progress('getting a Copilot token')
      const host = hostOf(config)
      try {
        const copilot = await exchangeCopilotToken(call(signal), token)
        return { type: 'oauth', github: token, ...copilot, host, user_id: user.id, login: user.login }
      } catch (err) {
        // A client id (or token) the exchange refuses: the GitHub token is the API's token.
        if (!(err instanceof SignInError) || err.code !== 'exchange_refused') throw err
        return directCredential(host, token, user)
      }
    },

    account: identityOf,

    expiresAt(credential) {
      const expires = credential.expires
      return typeof expires === 'number' && Number.isFinite(expires) ? expires : null
    },

    async refresh(credential, signal) {
      if (credential.mode === 'direct') return credential
      return refreshCopilot(call(signal), credential)
    },
  }
}

/** A credential whose GitHub token goes to the Copilot API as it is (no exchange, no expiry). */
export function directCredential(
  host: string,
  token: string,
  user: { id: number; login: string },
): StoredCredential {
  return {
    type: 'oauth',
    mode: 'direct',
    github: token,
    access: token,
    api: defaultApi(),
    host,
    user_id: user.id,
    login: user.login,
  }
}

/** The GitHub token of a stored account: the exchange's input, and the usage feed's credential. */
export const githubTokenOf = (credential: StoredCredential): string | null => str(credential.github) ?? null

/**
 * The sign-in as the daemon runs it. A step sends the account's Copilot token (or GitHub
 * token, direct) to the API base the token named, on the wire Copilot serves the run's
 * model on: the cached model list's, else by the model's name (models.ts `wireByName`); a
 * stale or absent list is listed again in the background. transport.ts adds the headers.
 */
export const signIn: SignIn = {
  plugin: (settings) =>
    copilotSignIn({
      clientId: String(settings.client_id ?? COPILOT_DEFAULTS.client_id),
      host: String(settings.host ?? COPILOT_DEFAULTS.host),
    }),
  runProfile(profile, credential, _sessionId, context) {
    const direct = credential.mode === 'direct'
    const models = copilotModelCache(context.home)
    if (models.stale()) void models.refresh(credential).catch(() => undefined)
    return {
      ...profile,
      endpoint: profile.endpoint || str(credential.api) || defaultApi(),
      protocol: models.wireOf(profile.model) ?? wireByName(profile.model),
      api_key: String(credential.access ?? ''),
      headers: { ...(direct ? DIRECT_HEADERS : EXCHANGE_HEADERS), ...(profile.headers ?? {}) },
    }
  },
  borrow: (settings, signal) => borrowGh(String(settings.host ?? COPILOT_DEFAULTS.host), signal),
}

/**
 * The signed-in GitHub CLI's token as a direct credential for one run, never stored. Where
 * it cannot be had, the error says why and what to run.
 */
async function borrowGh(settingsHost: string, signal: AbortSignal): Promise<StoredCredential> {
  const host = process.env.HEARTH_COPILOT_GITHUB_URL || settingsHost
  const none = 'no GitHub Copilot account is signed in'
  let token: string
  try {
    token = await ghAuthToken(host, signal)
  } catch (err) {
    if (!(err instanceof SignInError)) throw err
    const why =
      err.code === 'cli_missing'
        ? 'the GitHub CLI (gh) to borrow a token from is not installed or not on the PATH; run /login'
        : err.code === 'cli_signed_out'
          ? 'the GitHub CLI is signed out too; run gh auth login, or /login'
          : `the GitHub CLI lends no token (${err.message}); run /login`
    throw new SignInError(err.code, `${none} and ${why}`)
  }
  return { type: 'oauth', mode: 'direct', github: token, access: token, api: defaultApi(), host }
}
