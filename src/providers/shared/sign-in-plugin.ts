// The contracts between the sign-in engine, the account pools and the provider plugins:
// what a provider's sign-in implements (src/providers/<id>/signin.ts) and the daemon's
// accounts code (src/auth) calls.
// A credential is stored in creds.json `accounts.<accountsKey>` as the plugin shaped it
// (one object, or an array once there are two or more); hearth reads it only through the
// plugin's functions.
import { CodedError } from '../../util/coded-error.ts'

/** A credential object as stored in creds.json (access, refresh, expiry, identity …). */
export type StoredCredential = Record<string, unknown>

/** What a plugin says about a stored credential. */
export interface AccountIdentity {
  /**
   * Stable id of the account: equal ids mean the same account (a new sign-in replaces it),
   * derived from the provider's identity (never random), so an id is never given to another
   * account. Shape: `<accountsKey>-<lowercase letters and digits>`.
   */
  id: string
  /** What a person recognises it by (an email, a workspace name), or null. */
  label: string | null
  email: string | null
  /** The subscription plan when the provider tells it, e.g. `plus`, `pro`. */
  plan: string | null
}

/** The loopback listener a browser flow redirects to. */
export interface CallbackSpec {
  /** The name in the redirect URI (`localhost` for chatgpt); the listener binds 127.0.0.1. */
  redirectHost: string
  port: number
  path: string
  /** A fixed port that is busy fails the login (the redirect is registered); otherwise an ephemeral port is used. */
  fixed: boolean
}

export interface AuthorizeInput {
  redirectUri: string
  state: string
  /** PKCE S256: verifier kept by the daemon, challenge = base64url(sha256(verifier)). */
  verifier: string
  challenge: string
}

export interface ExchangeInput {
  code: string
  redirectUri: string
  verifier: string
  /** The login's `state` (sent back by providers whose token endpoint asks for it, as claude's does). */
  state: string
  /** Reports a step of a long exchange (shown as the login's `progress`). */
  progress: (text: string) => void
  signal: AbortSignal
}

/** One provider's browser sign-in, vendor facts only; the daemon owns everything else. */
export interface SignInPlugin {
  /** The profile extension it serves, e.g. `chatgpt`. */
  extension: string
  /** Chooser label and detail, e.g. "ChatGPT" / "Plus or Pro subscription". */
  label: string
  detail: string
  protocol: 'oauth2_pkce'
  /** Store key under creds.json `accounts`. */
  accountsKey: string
  callback: CallbackSpec
  /** The provider's authorization URL. */
  authorize(input: AuthorizeInput): string
  /** Trades the code for the credential object to store. Throws SignInError on a refusal. */
  exchange(input: ExchangeInput): Promise<StoredCredential>
  /** Names a stored credential. */
  account(credential: StoredCredential): AccountIdentity
  /** Epoch ms when the access token expires, or null when unknown. */
  expiresAt(credential: StoredCredential): number | null
  /** Trades the refresh token for a fresh credential (rotating refresh tokens). Throws SignInError. */
  refresh(credential: StoredCredential, signal: AbortSignal): Promise<StoredCredential>
}

/**
 * A sign-in plugin, optionally naming the refresh token of its credential. Without
 * `refreshToken` the store looks for the conventional fields `refresh`, `refresh_token`
 * and `refreshToken`.
 */
export type AccountPlugin = SignInPlugin & {
  refreshToken?: (credential: StoredCredential) => string | null
  /**
   * A refresh refused with `invalid_grant` removes the refresh token from the stored
   * account (the provider revoked it for good), so the account reads signed out and is
   * skipped once its access token has expired, until a new sign-in replaces it.
   */
  forgetRevokedRefresh?: boolean
}

/**
 * A refusal by the provider, with a stable code (e.g. `invalid_grant`) and a message safe to
 * show. `instructions`, when set, tells the person what to do (a page to open): a failed
 * login shows it in place of its instructions, so it must carry no secret.
 */
export class SignInError extends CodedError<string> {
  override readonly name = 'SignInError'
  readonly instructions: string | null
  constructor(code: string, message: string, instructions: string | null = null) {
    super(code, message)
    this.instructions = instructions
  }
}
