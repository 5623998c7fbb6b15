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
  /** Aborted when the daemon stops while the URL is being made (the engine always gives it). */
  signal?: AbortSignal
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

/** What every sign-in plugin says, whatever its flow. */
interface PluginBase {
  /** The profile extension it serves, e.g. `chatgpt`. */
  extension: string
  /** Chooser label and detail, e.g. "ChatGPT" / "Plus or Pro subscription". */
  label: string
  detail: string
  /** Store key under creds.json `accounts`. */
  accountsKey: string
  /** Names a stored credential. */
  account(credential: StoredCredential): AccountIdentity
  /** Epoch ms when the access token expires, or null when unknown. */
  expiresAt(credential: StoredCredential): number | null
  /** At most one unfinished login at a time (a second is 409 login_conflict): one sign-in per MCP server. */
  oneAtATime?: boolean
  /** The flows it offers, when not those of its protocol (an empty list: none, e.g. a local MCP server). */
  flows?: readonly ('browser' | 'manual' | 'device' | 'cli')[]
  /** Trades the refresh token for a fresh credential (rotating refresh tokens). Throws SignInError. */
  refresh(credential: StoredCredential, signal: AbortSignal): Promise<StoredCredential>
}

/** One provider's browser sign-in (PKCE), vendor facts only; the daemon owns everything else. */
export interface BrowserPlugin extends PluginBase {
  protocol: 'oauth2_pkce'
  callback: CallbackSpec
  /**
   * The provider's authorization URL. A plugin that must first discover the server and
   * register a client (an MCP server's sign-in) answers a promise, and is then made for one
   * login (the engine keeps the instance until the exchange). Throws SignInError.
   */
  authorize(input: AuthorizeInput): string | Promise<string>
  /** Trades the code for the credential object to store. Throws SignInError on a refusal. */
  exchange(input: ExchangeInput): Promise<StoredCredential>
}

/** A device code as the provider gave it (RFC 8628 §3.2). */
export interface DeviceCode {
  /** Kept by the daemon only; never stored, returned or logged. */
  deviceCode: string
  /** What the person types at `url` (`WDJB-MJHT`); not a secret. */
  userCode: string
  /** Where the person enters it. */
  url: string
  /** How long the code lives (the login's deadline). */
  expiresInMs: number
  /** The polling interval the provider asks for. */
  intervalMs: number
}

/** One poll's answer: still waiting, wait longer between polls, or the provider's token. */
export type DevicePoll =
  | { kind: 'pending' }
  | { kind: 'slow_down'; intervalMs: number }
  | { kind: 'token'; token: string }

/**
 * One provider's device sign-in (RFC 8628): the daemon asks for a code, shows it, and polls
 * at the interval the provider gives until a token, a refusal or the code's expiry.
 */
export interface DevicePlugin extends PluginBase {
  protocol: 'oauth2_device'
  /** Asks for a device code. Throws SignInError on a refusal. */
  startDevice(signal: AbortSignal): Promise<DeviceCode>
  /**
   * One poll of the token endpoint; `intervalMs` is the interval in force (a `slow_down`
   * naming none adds five seconds to it). Throws SignInError: `expired_token`,
   * `access_denied` or the provider's other codes.
   */
  pollDevice(input: { deviceCode: string; intervalMs: number; signal: AbortSignal }): Promise<DevicePoll>
  /** Turns the provider's token into the credential to store (identity, any exchange). */
  finish(input: {
    token: string
    progress: (text: string) => void
    signal: AbortSignal
  }): Promise<StoredCredential>
  /**
   * The `cli` flow, for providers with a command-line tool people sign in with: takes that
   * tool's token (a child process) and turns it into the credential to store. Throws
   * SignInError with `instructions` saying what to do (install it, sign in with it, or
   * that the provider does not take its token).
   */
  fromCli?(input: { progress: (text: string) => void; signal: AbortSignal }): Promise<StoredCredential>
}

export type SignInPlugin = BrowserPlugin | DevicePlugin

/**
 * A sign-in plugin, optionally naming the refresh token of its credential. Without
 * `refreshToken` the store looks for the conventional fields `refresh`, `refresh_token`
 * and `refreshToken`.
 */
export interface AccountExtras {
  refreshToken?: (credential: StoredCredential) => string | null
  /**
   * A refresh refused with `invalid_grant` removes the refresh token from the stored
   * account (the provider revoked it for good), so the account reads signed out and is
   * skipped once its access token has expired, until a new sign-in replaces it.
   */
  forgetRevokedRefresh?: boolean
  /**
   * The fields that hold the refresh token, removed when a revoked one is forgotten
   * (default `refresh`, `refresh_token`, `refreshToken`).
   */
  refreshFields?: readonly string[]
}
export type AccountPlugin = SignInPlugin & AccountExtras

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
