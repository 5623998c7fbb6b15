// The GitHub Copilot sign-in as a DevicePlugin: GitHub's device flow, then the account's
// identity (`GET /user`) and the Copilot token exchange. Vendor facts only; the daemon owns
// the polling, the deadline, cancellation, locking and creds.json.
//
// Two modes, decided at sign-in by the exchange's answer (docs/providers.md, "copilot"):
// the editor plugins' client id, whose GitHub token is exchanged for a short-lived Copilot
// token (refreshed 60 s before expiry like any access token), and a client id (or a token)
// the exchange refuses, whose GitHub token goes to the API as it is ("direct").
import type { SignIn } from '../descriptor.ts'
import { describe, redact } from '../shared/errors.ts'
import {
  type AccountExtras,
  type DevicePlugin,
  SignInError,
  type StoredCredential,
} from '../shared/sign-in-plugin.ts'
import { str } from '../shared/token-request.ts'
import { exchangeCopilotToken, type GitHubCall, githubUser, identityOf, refreshCopilot } from './account.ts'
import {
  COPILOT_EDITOR_CLIENT_ID,
  COPILOT_SCOPE,
  DIRECT_HEADERS,
  defaultApi,
  EXCHANGE_HEADERS,
  GITHUB_HOST,
  githubHostOf,
  githubUrls,
} from './constants.ts'
import { pollDevice, startDevice } from './device.ts'
import { ghAuthToken } from './gh.ts'
import { copilotModelCache } from './model-cache.ts'
import { wireByName } from './models.ts'

/** Said before a sign-in starts (the chooser detail, `hearth login copilot`); docs/providers.md "Policy". */
export const COPILOT_POLICY =
  "GitHub's terms cover Copilot in its editors and tools; hearth signs in the way the Copilot editor plugins do, which GitHub does not document for other programs, and every request counts against your Copilot plan's quota."

/** What the person can do instead when the GitHub CLI's token does not work. */
const USE_A_CODE = 'Or sign in with a code: hearth login copilot (or /login in the terminal client).'

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
  return githubHostOf(config.host)
}

export function copilotSignIn(config: CopilotSignInConfig): DevicePlugin & AccountExtras {
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
    detail: `Copilot Free, Pro, Pro+, Business or Enterprise, signed in with a code at GitHub or with the GitHub CLI (gh). ${COPILOT_POLICY}`,
    protocol: 'oauth2_device',
    // The GitHub token is the account's refresh token: the exchange runs again on it, and a
    // 401 there (the person revoked the app) removes it, so the account reads signed out.
    refreshToken: githubTokenOf,
    forgetRevokedRefresh: true,
    refreshFields: ['github'],

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

    async fromCli({ progress, signal }) {
      progress('reading the token of the GitHub CLI (gh auth token)')
      const host = hostOf(config)
      const token = await ghAuthToken(host, signal).catch((err: unknown) => {
        throw withCliInstructions(err)
      })
      progress('reading the GitHub account')
      const user = await githubUser(call(signal), token).catch((err: unknown) => {
        throw refusedToken(err, 'GitHub does not accept the token gh printed; run gh auth login again.')
      })
      progress('checking that Copilot takes the token')
      try {
        const copilot = await exchangeCopilotToken(call(signal), token)
        return { type: 'oauth', github: token, ...copilot, host, user_id: user.id, login: user.login }
      } catch (err) {
        if (!(err instanceof SignInError) || err.code !== 'exchange_refused') throw refusedToken(err)
      }
      // The exchange refuses the GitHub CLI's OAuth app: its token must work on the API as it is.
      await probeCopilotApi(fetchFn, token, signal)
      return directCredential(host, token, user)
    },

    account: identityOf,

    expiresAt(credential) {
      const expires = credential.expires
      return typeof expires === 'number' && Number.isFinite(expires) ? expires : null
    },

    async refresh(credential, signal) {
      if (credential.mode !== 'direct') return refreshCopilot(call(signal), credential)
      // A direct token is only "expired" by a refused step: GitHub says whether it still stands.
      await githubUser(call(signal), String(credential.github ?? ''))
      const { expires: _refused, ...kept } = credential
      return kept
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

/** A failure of `gh auth token` with what to do about it. */
function withCliInstructions(err: unknown): unknown {
  if (!(err instanceof SignInError)) return err
  const what =
    err.code === 'cli_missing'
      ? 'The GitHub CLI (gh) is not installed or not on the PATH of the hearth daemon: install it from https://cli.github.com, run gh auth login, then try again.'
      : err.code === 'cli_signed_out'
        ? 'The GitHub CLI (gh) is not signed in: run gh auth login, then try again.'
        : `gh auth token did not answer (${err.message}); check that gh auth token works in a terminal, then try again.`
  return new SignInError(err.code, err.message, `${what} ${USE_A_CODE}`)
}

/** A refusal of the GitHub CLI's token by GitHub or Copilot, said plainly. */
function refusedToken(err: unknown, what?: string): unknown {
  if (!(err instanceof SignInError)) return err
  if (err.code === 'no_copilot')
    return new SignInError(
      err.code,
      err.message,
      'The GitHub account gh is signed in to has no Copilot subscription; sign gh in to an account that has one (gh auth login), or sign in with a code.',
    )
  if (err.code === 'invalid_grant')
    return new SignInError(
      'cli_refused',
      err.message,
      `${what ?? 'GitHub refused the token gh printed.'} ${USE_A_CODE}`,
    )
  return err
}

/**
 * `GET {api}/models` with a direct token: 401 or 403 mean Copilot does not take the GitHub
 * CLI's token (`cli_refused`); anything else that is not 2xx is `unreachable`/`server_error`.
 */
async function probeCopilotApi(fetchFn: typeof globalThis.fetch, token: string, signal: AbortSignal) {
  let status: number
  try {
    const res = await fetchFn(`${defaultApi()}/models`, {
      headers: { ...DIRECT_HEADERS, accept: 'application/json', authorization: `Bearer ${token}` },
      signal,
    })
    status = res.status
    await res.body?.cancel()
  } catch (err) {
    if (signal.aborted) throw err
    throw new SignInError('unreachable', redact(`could not reach Copilot: ${describe(err)}`, token))
  }
  if (status === 401 || status === 403)
    throw new SignInError(
      'cli_refused',
      `Copilot refused the GitHub CLI's token (HTTP ${status})`,
      `Copilot does not accept the token of the GitHub CLI (gh) for this account. ${USE_A_CODE}`,
    )
  if (status >= 400)
    throw new SignInError(
      status >= 500 ? 'server_error' : 'token_request_failed',
      `Copilot answered HTTP ${status}`,
    )
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
  const host = githubHostOf(settingsHost)
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
