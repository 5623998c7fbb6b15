// Signed-in remote servers, kernel side. The daemon holds a server's tokens (creds.json) and
// refreshes them; the kernel asks it for the access token (`mcp_token`) and keeps it while
// it is good: before a request, a token that expires within 60 s is asked for again; a
// request the server refuses (401) asks once more naming the refused token and is sent
// again once. Refused still, or with no token to offer, the server needs a sign-in.
import type { McpAccessToken } from '../../mcp/types.ts'
import type { FromKernel, ToKernel } from '../protocol.ts'

/** A token that expires within this long is asked for again before a request. */
export const RENEW_BEFORE_MS = 60_000

/** Asks the daemon for the server's access token (`rejected`: the one the server just refused). */
export type AskToken = (rejected?: string) => Promise<McpAccessToken | null>

/** What a server that needs a sign-in shows as its reason: what to do about it. */
export const signInReason = (server: string) =>
  `it needs a sign-in: run \`hearth mcp login ${server}\` (or set its bearerToken)`

/** The kernel's token requests waiting for the daemon's answers, by request id. */
export class TokenRequests {
  readonly #send: (msg: FromKernel) => void
  readonly #waiting = new Map<number, (token: McpAccessToken | null) => void>()
  #next = 0

  constructor(send: (msg: FromKernel) => void) {
    this.#send = send
  }

  ask(sessionId: string, server: string, rejected?: string): Promise<McpAccessToken | null> {
    const request_id = ++this.#next
    return new Promise((resolve) => {
      this.#waiting.set(request_id, resolve)
      this.#send({
        type: 'mcp_token',
        session_id: sessionId,
        server,
        request_id,
        ...(rejected === undefined ? {} : { rejected }),
      })
    })
  }

  answered(msg: Extract<ToKernel, { type: 'mcp_token' }>): void {
    this.#waiting.get(msg.request_id)?.(msg.token)
    this.#waiting.delete(msg.request_id)
  }
}

/**
 * The `fetch` of one server's transport: it carries the server's access token (when the
 * server has a sign-in: it replaces a bearerToken) and notes a refusal no token could mend.
 */
export class ServerAuth {
  /** The server refused hearth (401) and no usable token is left: it needs a sign-in. */
  signInRequired = false
  /** Every token this connection held, so that messages can be scrubbed of them. */
  readonly seen: string[] = []
  readonly #ask: AskToken | null
  readonly #now: () => number
  #token: McpAccessToken | null = null
  /** The request in flight, shared by the requests that need a token meanwhile. */
  #asking: Promise<McpAccessToken | null> | null = null

  /** `ask` is null for a server without a sign-in (nothing is asked; a 401 is still noted). */
  constructor(ask: AskToken | null, now: () => number = Date.now) {
    this.#ask = ask
    this.#now = now
  }

  readonly fetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const token = await this.#current()
    const response = await fetch(url, withBearer(init, token))
    if (response.status !== 401) {
      if (response.ok) this.signInRequired = false
      return response
    }
    const renewed = token ? await this.#renew(token.access_token) : null
    if (!token || !renewed || renewed.access_token === token.access_token) {
      this.signInRequired = true
      return response
    }
    await response.body?.cancel().catch(() => {})
    const again = await fetch(url, withBearer(init, renewed))
    // Refused with a fresh token too: only a new sign-in mends that.
    if (again.status === 401) this.signInRequired = true
    else if (again.ok) this.signInRequired = false
    return again
  }

  /** The token kept, unless none was asked yet or it expires within RENEW_BEFORE_MS. */
  async #current(): Promise<McpAccessToken | null> {
    if (!this.#ask) return null
    const t = this.#token
    if (t && (t.expires_at === null || t.expires_at - this.#now() > RENEW_BEFORE_MS)) return t
    return this.#request(undefined)
  }

  /** A token other than `rejected`: another request may have renewed it already. */
  async #renew(rejected: string): Promise<McpAccessToken | null> {
    if (this.#asking) await this.#asking
    if (this.#token && this.#token.access_token !== rejected) return this.#token
    return this.#request(rejected)
  }

  #request(rejected: string | undefined): Promise<McpAccessToken | null> {
    if (this.#asking) return this.#asking
    const ask = this.#ask as AskToken
    this.#asking = ask(rejected)
      .then((token) => {
        this.#token = token
        if (token && !this.seen.includes(token.access_token)) this.seen.push(token.access_token)
        return token
      })
      .finally(() => {
        this.#asking = null
      })
    return this.#asking
  }
}

/** `init` with `Authorization: Bearer` the token (unchanged without one). */
function withBearer(init: RequestInit | undefined, token: McpAccessToken | null): RequestInit | undefined {
  if (!token) return init
  const headers = new Headers(init?.headers)
  headers.set('authorization', `Bearer ${token.access_token}`)
  return { ...init, headers }
}
