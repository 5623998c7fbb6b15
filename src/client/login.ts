// One sign-in as a client runs it, shared by `hearth login` and the terminal client's login
// screen: start a login (client-generated id), follow its state until it ends, pass on a
// pasted response with the ETag last read, cancel. The daemon runs the OAuth flow itself
// (listener, PKCE, exchange; or a device code's polling); opening the browser is the
// client's policy (HEARTH_NO_BROWSER).
import { spawn } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { v7 as uuidv7 } from 'uuid'
import type { Login } from '../schemas/auth.ts'
import { type HearthClient, ProblemError } from './client.ts'

export const TERMINAL_LOGIN_STATES: ReadonlySet<string> = new Set(['complete', 'failed', 'cancelled'])
const POLL_MS = 400

/** Whether this environment asks for no browser (HEARTH_NO_BROWSER set and not empty). */
export function browserAllowed(env: NodeJS.ProcessEnv = process.env): boolean {
  return !env.HEARTH_NO_BROWSER
}

/**
 * Opens `url` in the person's browser (open, explorer or xdg-open); false when
 * HEARTH_NO_BROWSER asks not to. A missing opener is quietly ignored: the URL is shown anyway.
 */
export function openBrowser(url: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (!browserAllowed(env)) return false
  const command =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open'
  try {
    const child = spawn(command, [url], { stdio: 'ignore', detached: true, env })
    child.on('error', () => {})
    child.unref()
  } catch {
    // no browser here
  }
  return true
}

export class LoginFlow {
  readonly id: string
  readonly #client: HearthClient
  login: Login
  #etag: string
  #stopped = false

  private constructor(client: HearthClient, id: string, login: Login, etag: string) {
    this.#client = client
    this.id = id
    this.login = login
    this.#etag = etag
  }

  /** Starts a sign-in to `provider` (PUT /auth/logins/{new uuidv7}). */
  static async start(
    client: HearthClient,
    provider: string,
    flow: Login['flow'] = 'browser',
  ): Promise<LoginFlow> {
    const id = uuidv7()
    const r = await client.call('auth.login.put', {
      params: { login_id: id },
      body: { provider, flow, values: {} },
    })
    return new LoginFlow(client, id, r.body as Login, r.headers.get('etag') ?? '')
  }

  get done(): boolean {
    return TERMINAL_LOGIN_STATES.has(this.login.state)
  }

  /** Reads the login again. */
  async read(): Promise<Login> {
    const r = await this.#client.call('auth.login.get', { params: { login_id: this.id } })
    this.login = r.body as Login
    this.#etag = r.headers.get('etag') ?? this.#etag
    return this.login
  }

  /**
   * Polls until the login ends (or stop()), calling `onChange` whenever its state or
   * progress moved; resolves with the last login read.
   */
  async follow(onChange: (login: Login) => void): Promise<Login> {
    let seen = `${this.login.state}\n${this.login.progress}`
    while (!this.done && !this.#stopped) {
      await sleep(POLL_MS)
      if (this.#stopped) break
      await this.read()
      const now = `${this.login.state}\n${this.login.progress}`
      if (now !== seen) {
        seen = now
        onChange(this.login)
      }
    }
    return this.login
  }

  /** Stops following (the login itself goes on; cancel() ends it). */
  stop(): void {
    this.#stopped = true
  }

  /**
   * Passes on what the person pasted (a callback URL, `code#state`, a query string or a
   * code). A stale ETag (the login moved meanwhile) is read again and tried once more.
   */
  async answer(response: string): Promise<Login> {
    const patch = () =>
      this.#client.call('auth.login.patch', {
        params: { login_id: this.id },
        body: { response },
        headers: { 'if-match': this.#etag },
      })
    let r: Awaited<ReturnType<typeof patch>>
    try {
      r = await patch()
    } catch (err) {
      if (!(err instanceof ProblemError && err.code === 'precondition_failed')) throw err
      await this.read()
      r = await patch()
    }
    this.login = r.body as Login
    this.#etag = r.headers.get('etag') ?? this.#etag
    return this.login
  }

  /** Cancels the login (idempotent); accounts it already saved stay. */
  async cancel(): Promise<void> {
    this.stop()
    await this.#client.call('auth.login.delete', { params: { login_id: this.id } })
  }
}

/** The flow a client starts for a provider of GET /auth: its device flow when it has one. */
export function defaultFlow(provider: { flows: readonly string[] } | undefined): 'browser' | 'device' {
  return provider?.flows.includes('device') ? 'device' : 'browser'
}

/** The code a device login's instructions ask the person to enter, or null. */
export function userCodeOf(login: Login): string | null {
  return login.flow === 'device' ? (/enter the code (\S+?);/.exec(login.instructions)?.[1] ?? null) : null
}

/** Whether a problem advises signing in (its message ends in `run /login`). */
export function advisesLogin(
  problem: { title?: string; detail?: string | null } | null | undefined,
): boolean {
  return !!problem && `${problem.title ?? ''} ${problem.detail ?? ''}`.includes('run /login')
}

/** Who signed in, for a result line: the accounts' labels (else ids). */
export function signedInAs(login: Login): string {
  return login.accounts.map((a) => a.label ?? a.email ?? a.id).join(', ')
}
