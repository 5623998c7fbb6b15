// The sign-in engine, independent of any vendor. A plugin knows the provider's URLs and
// token shapes; the engine owns the rest: the login resource and its states, the loopback
// callback listener, PKCE and state, the race between the callback and a pasted response
// (exactly one exchange), the five-minute timeout, the eight-unfinished limit, fifteen
// minutes of terminal records, and saving the account under the credential lock. Device
// plugins run the same way with a poll loop (device.ts) in place of the callback, and the
// provider's deadline in place of the timeout; their `cli` flow saves a command-line
// tool's token within the PUT.

import {
  type BrowserPlugin,
  type DeviceCode,
  type DevicePlugin,
  SignInError,
  type SignInPlugin,
  type StoredCredential,
} from '../../providers/shared/sign-in-plugin.ts'
import type { AccountDescriptor, Login, LoginRequest } from '../../schemas/auth.ts'
import { HearthError } from '../../schemas/problems.ts'
import type { Db } from '../../store/db.ts'
import { intentOf } from '../../util/canonical.ts'
import { requireIfMatch } from '../../util/preconditions.ts'
import { uuidV7Time } from '../../util/uuid.ts'
import { startBrowser } from './browser.ts'
import { type CallbackHit, CallbackListeners } from './callbacks.ts'
import {
  cliLogin,
  deviceFailure,
  deviceLogin,
  flowsOf,
  instructionsOf,
  pollForToken,
  requestCode,
  safeCode,
  startFailure,
} from './device.ts'
import { type FlowSecrets, parsePastedResponse } from './pkce.ts'
import { etagOf, type LoginRow, LoginRows, toLogin } from './rows.ts'

export { etagOf, toLogin }

export const SIGN_IN_TIMEOUT_MS = 5 * 60_000
export const TERMINAL_RETENTION_MS = 15 * 60_000
export const MAX_UNFINISHED = 8

export interface SignInDeps {
  db: Db
  /** The plugins on offer now (their settings may change), by extension. */
  plugins: () => ReadonlyMap<string, SignInPlugin>
  /** Whether an extension is enabled in settings. */
  enabled: (extension: string) => boolean
  /** Saves a credential under the credential lock (same id replaces, another appends). */
  save: (plugin: SignInPlugin, credential: StoredCredential) => Promise<AccountDescriptor>
  now: () => number
  /** Reports a failure nobody waits for (a callback's exchange) to the log, without secrets. */
  onError: (err: unknown) => void
  /** How long a flow may wait for its response (default five minutes; tests shorten it). */
  timeoutMs?: number
}

/** What only this process knows of an unfinished flow; never stored, never returned. */
interface BrowserFlow {
  kind: 'browser'
  secrets: FlowSecrets
  plugin: BrowserPlugin
  redirectUri: string
  port: number | null
  timer: NodeJS.Timeout
  abort: AbortController
}

/** A device or cli flow: its deadline, and the signal that stops its polls and requests. */
interface DeviceFlow {
  kind: 'device'
  plugin: DevicePlugin
  timer: NodeJS.Timeout | null
  abort: AbortController
}

type Flow = BrowserFlow | DeviceFlow

/** A PUT waiting for the provider's device code: its row does not exist yet. */
interface Starting {
  intent: string
  provider: string
  abort: AbortController
  done: Promise<unknown>
}

export class SignInEngine {
  readonly #d: SignInDeps
  readonly #rows: LoginRows
  readonly #listeners = new CallbackListeners()
  readonly #flows = new Map<string, Flow>()
  readonly #starting = new Map<string, Starting>()

  get #timeoutMs(): number {
    return this.#d.timeoutMs ?? SIGN_IN_TIMEOUT_MS
  }

  constructor(d: SignInDeps) {
    this.#d = d
    this.#rows = new LoginRows(d.db)
  }

  /** At start: flows of a previous process cannot finish (their PKCE material is gone). */
  start(): void {
    this.#rows.failUnfinished('daemon_restarted', this.#d.now())
    this.#rows.prune(this.#d.now() - TERMINAL_RETENTION_MS)
  }

  stop(): void {
    for (const [id, flow] of this.#flows) this.#end(id, flow)
    for (const s of this.#starting.values()) s.abort.abort()
    this.#listeners.closeAll()
  }

  unfinished(): Login[] {
    return this.#rows.unfinished().map(toLogin)
  }

  /** PUT: a repeat answers the login as it is (200); a new id starts a flow (201). */
  async create(
    id: string,
    raw: unknown,
    validate: () => LoginRequest,
  ): Promise<{ status: 200 | 201; row: LoginRow }> {
    const intent = intentOf(raw)
    const known = this.#readable(id)
    if (known) {
      if (known.intent !== intent)
        throw new HearthError('login_conflict', `Login ${id} was started with another request`)
      return { status: 200, row: known }
    }
    const starting = this.#starting.get(id)
    if (starting) {
      if (starting.intent !== intent)
        throw new HearthError('login_conflict', `Login ${id} was started with another request`)
      await starting.done.catch(() => {})
      return { status: 200, row: this.get(id) }
    }
    this.#checkAge(id)
    const req = validate()
    const plugin = this.#d.plugins().get(req.provider)
    if (!plugin) throw new HearthError('unknown_provider', `No sign-in is offered for ${req.provider}`)
    if (!this.#d.enabled(plugin.extension))
      throw new HearthError('extension_disabled', `${plugin.extension} is turned off in settings`)
    const offered = flowsOf(plugin)
    if (!offered.includes(req.flow))
      throw new HearthError(
        'flow_not_offered',
        offered.length === 0
          ? `${plugin.label} offers no sign-in${plugin.detail ? ` (${plugin.detail})` : ''}`
          : `${plugin.label} signs in with the flow ${offered.join(' or ')}, not ${req.flow}`,
      )
    if (plugin.oneAtATime) this.#refuseSecond(plugin)
    if (this.#rows.unfinishedCount() + this.#starting.size >= MAX_UNFINISHED)
      throw new HearthError(
        'too_many_logins',
        `${MAX_UNFINISHED} logins are unfinished; finish or cancel one`,
      )
    if (req.flow === 'cli')
      return { status: 201, row: await this.#beginCli(id, plugin as DevicePlugin, intent) }
    const abort = new AbortController()
    const done =
      plugin.protocol === 'oauth2_pkce'
        ? this.#begin(id, req, plugin, intent, abort)
        : this.#beginDevice(id, plugin, intent, abort)
    this.#starting.set(id, { intent, provider: plugin.extension, abort, done })
    try {
      return { status: 201, row: await done }
    } finally {
      this.#starting.delete(id)
    }
  }

  /** A plugin with one sign-in (an MCP server): a second unfinished login is a conflict. */
  #refuseSecond(plugin: SignInPlugin): void {
    const busy =
      this.#rows.unfinished().some((r) => r.provider === plugin.extension) ||
      [...this.#starting.values()].some((s) => s.provider === plugin.extension)
    if (busy)
      throw new HearthError(
        'login_conflict',
        `A sign-in to ${plugin.label} is under way; finish or cancel it first`,
      )
  }

  get(id: string): LoginRow {
    const row = this.#readable(id)
    if (row) return row
    this.#checkAge(id)
    throw new HearthError('login_not_found', `No login ${id}`)
  }

  /** PATCH: the pasted response, racing the callback. Answers once the exchange ended. */
  async answer(id: string, ifMatch: string | undefined, response: string): Promise<LoginRow> {
    const row = this.get(id)
    if (row.flow === 'device' || row.flow === 'cli')
      throw new HearthError('invalid_login_response', 'This sign-in finishes by itself; nothing is pasted')
    requireIfMatch(ifMatch, etagOf(row))
    const flow = this.#flows.get(id)
    if (row.state !== 'waiting' || flow?.kind !== 'browser')
      throw new HearthError('login_not_waiting', `Login ${id} is ${row.state}`)
    const pasted = parsePastedResponse(response)
    if (pasted.state !== null && pasted.state !== flow.secrets.state)
      throw new HearthError('state_mismatch', 'The pasted response belongs to another sign-in')
    if (pasted.error !== null) {
      this.#fail(id, flow, 'provider_refused', 'The provider refused the sign-in')
      return this.get(id)
    }
    if (pasted.code === null)
      throw new HearthError('invalid_login_response', 'No authorization code in the response')
    await this.#exchange(id, flow, pasted.code)
    return this.get(id)
  }

  /** DELETE: idempotent; an unfinished login is cancelled and its listener released. */
  cancel(id: string): void {
    const row = this.get(id)
    const flow = this.#flows.get(id)
    if (row.ended_ms !== null) return
    if (flow) this.#end(id, flow)
    this.#rows.finish(id, 'cancelled', { failure: null, progress: 'cancelled' }, this.#d.now())
  }

  /** A browser or manual login: its start (browser.ts), then its row, deadline and flow. */
  async #begin(
    id: string,
    req: LoginRequest,
    plugin: BrowserPlugin,
    intent: string,
    abort: AbortController,
  ): Promise<LoginRow> {
    const { secrets, port, redirectUri, url, instructions, failure } = await startBrowser({
      plugin,
      flow: req.flow,
      listeners: this.#listeners,
      onCallback: (hit) => this.#onCallback(id, hit),
      abort,
      onError: this.#d.onError,
    })
    const now = this.#d.now()
    this.#rows.insert({
      id,
      provider: plugin.extension,
      flow: req.flow,
      intent,
      url,
      instructions,
      progress: 'waiting for the browser',
      created_ms: now,
      expires_ms: now + this.#timeoutMs,
    })
    if (failure) {
      this.#rows.finish(id, 'failed', { failure, progress: 'failed' }, now)
      return this.get(id)
    }
    const timer = setTimeout(
      () => this.#fail(id, this.#flows.get(id), 'timed_out', 'timed out'),
      this.#timeoutMs,
    )
    timer.unref()
    this.#flows.set(id, { kind: 'browser', secrets, plugin, redirectUri, port, timer, abort })
    return this.get(id)
  }

  /**
   * A device login: the PUT answers once the provider gave its code (a refusal is a failed
   * login, as a busy callback port is); the login lives until the code's deadline while the
   * poll loop waits for the person to approve.
   */
  async #beginDevice(
    id: string,
    plugin: DevicePlugin,
    intent: string,
    abort: AbortController,
  ): Promise<LoginRow> {
    let code: DeviceCode | null = null
    let failure = 'daemon_restarted' // stopped while asking: what the next start would say
    try {
      code = await requestCode(plugin, abort.signal)
    } catch (err) {
      if (!abort.signal.aborted) failure = startFailure(err)
      if (!abort.signal.aborted && !(err instanceof SignInError)) this.#d.onError(err) // e.g. no answer in time
    }
    const now = this.#d.now()
    this.#rows.insert(deviceLogin({ id, provider: plugin.extension, intent }, plugin, code, now))
    if (!code || abort.signal.aborted) {
      this.#rows.finish(id, 'failed', { failure, progress: 'failed' }, now)
      return this.get(id)
    }
    const timer = setTimeout(
      () => this.#fail(id, this.#flows.get(id), 'timed_out', 'timed out'),
      code.expiresInMs,
    )
    timer.unref()
    const flow: DeviceFlow = { kind: 'device', plugin, timer, abort }
    this.#flows.set(id, flow)
    void this.#pollDevice(id, flow, code)
    return this.get(id)
  }

  async #pollDevice(id: string, flow: DeviceFlow, code: DeviceCode): Promise<void> {
    let token: string
    try {
      token = await pollForToken(flow.plugin, code, flow.abort.signal)
    } catch (err) {
      if (flow.abort.signal.aborted) return // cancelled, timed out or stopped: already recorded
      if (!(err instanceof SignInError)) this.#d.onError(err)
      this.#fail(id, flow, deviceFailure(err), 'failed', instructionsOf(err))
      return
    }
    await this.#obtain(id, flow, 'reading the account', (progress, signal) =>
      flow.plugin.finish({
        token,
        progress,
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.#timeoutMs)]),
      }),
    )
  }

  /** A cli login: the PUT answers once the tool's token was saved, or why it was not. */
  async #beginCli(id: string, plugin: DevicePlugin, intent: string): Promise<LoginRow> {
    const fromCli = plugin.fromCli?.bind(plugin)
    if (!fromCli) throw new Error(`${plugin.extension} has no cli flow`) // flowsOf said it has
    const now = this.#d.now()
    this.#rows.insert(cliLogin({ id, provider: plugin.extension, intent }, plugin, now, this.#timeoutMs))
    const flow: DeviceFlow = { kind: 'device', plugin, timer: null, abort: new AbortController() }
    this.#flows.set(id, flow)
    await this.#obtain(id, flow, 'reading the token', (progress, signal) =>
      fromCli({ progress, signal: AbortSignal.any([signal, AbortSignal.timeout(this.#timeoutMs)]) }),
    )
    return this.get(id)
  }

  async #onCallback(id: string, hit: CallbackHit): Promise<{ ok: boolean; message: string }> {
    const flow = this.#flows.get(id)
    const row = this.#rows.get(id)
    if (flow?.kind !== 'browser' || row?.state !== 'waiting')
      return { ok: false, message: 'This sign-in was already handled.' }
    if (hit.error !== null || hit.code === null) {
      this.#fail(id, flow, 'provider_refused', 'The provider refused the sign-in')
      return { ok: false, message: 'The provider refused the sign-in. You can close this tab.' }
    }
    await this.#exchange(id, flow, hit.code)
    const after = this.#rows.get(id)
    return after?.state === 'complete'
      ? { ok: true, message: `Signed in to ${flow.plugin.label}. You can close this tab.` }
      : { ok: false, message: `The sign-in failed (${after?.failure ?? 'unknown'}). You can close this tab.` }
  }

  /** The one exchange: whoever moves the login from waiting to exchanging first runs it. */
  #exchange(id: string, flow: BrowserFlow, code: string): Promise<void> {
    return this.#obtain(id, flow, 'exchanging the code', (progress, signal) =>
      flow.plugin.exchange({
        code,
        redirectUri: flow.redirectUri,
        verifier: flow.secrets.verifier,
        state: flow.secrets.state,
        progress,
        signal,
      }),
    )
  }

  /**
   * Claims the login (waiting → exchanging; only one caller wins), obtains the credential,
   * saves it under the lock and completes the login, or fails it with the refusal's code.
   */
  async #obtain(
    id: string,
    flow: Flow,
    claimed: string,
    obtain: (progress: (text: string) => void, signal: AbortSignal) => Promise<StoredCredential>,
  ): Promise<void> {
    if (!this.#rows.claim(id, claimed)) return
    this.#release(flow)
    try {
      const credential = await obtain(
        (text) => this.#rows.progress(id, text.slice(0, 200)),
        flow.abort.signal,
      )
      this.#rows.progress(id, 'saving the account')
      const account = await this.#d.save(flow.plugin, credential)
      this.#flows.delete(id)
      this.#rows.finish(
        id,
        'complete',
        { failure: null, progress: 'signed in', accounts: [account] },
        this.#d.now(),
      )
    } catch (err) {
      // Only the code is kept, never the message: a provider's text may quote what we sent.
      const failure = err instanceof SignInError ? safeCode(err.code) : 'exchange_failed'
      if (!(err instanceof SignInError)) this.#d.onError(err)
      this.#fail(id, flow, failure || 'exchange_failed', 'failed', instructionsOf(err))
    }
  }

  #fail(id: string, flow: Flow | undefined, failure: string, progress: string, instructions?: string): void {
    if (flow) this.#end(id, flow)
    this.#rows.finish(id, 'failed', { failure, progress, instructions }, this.#d.now())
  }

  /** Stops the flow's deadline and its callback listener (the exchange has its own abort). */
  #release(flow: Flow): void {
    if (flow.timer) clearTimeout(flow.timer)
    if (flow.kind !== 'browser') return
    if (flow.port !== null) this.#listeners.remove(flow.port, flow.secrets.state)
    flow.port = null
  }

  #end(id: string, flow: Flow): void {
    this.#release(flow)
    flow.abort.abort()
    this.#flows.delete(id)
  }

  /** The row unless it ended more than fifteen minutes ago (then it is pruned: 410). */
  #readable(id: string): LoginRow | undefined {
    const row = this.#rows.get(id)
    if (row?.ended_ms != null && row.ended_ms < this.#d.now() - TERMINAL_RETENTION_MS) {
      this.#rows.prune(this.#d.now() - TERMINAL_RETENTION_MS)
      throw new HearthError('login_expired', `Login ${id} ended more than fifteen minutes ago`)
    }
    return row
  }

  /**
   * An unknown id older than the retention is gone (410), never new: a login ends no earlier
   * than it starts, so one pruned fifteen minutes after its end has an id at least that old.
   */
  #checkAge(id: string): void {
    if (uuidV7Time(id) < this.#d.now() - TERMINAL_RETENTION_MS)
      throw new HearthError('login_expired', `Login id ${id} is older than fifteen minutes`)
  }
}
