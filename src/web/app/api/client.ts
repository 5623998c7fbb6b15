// The page's typed client for protocol 3: operations are called by id, as src/client does,
// with the types of src/schemas (of its code, only the two small functions of op-call.ts
// are in the page). Every request carries the token as Authorization: Bearer, never in the address.
// A problem body becomes ProblemError, so screens branch on `code`.
import type { AllOps, OpId } from '../../../schemas/index.ts'
import type { OpSpec } from '../../../schemas/op.ts'
import {
  type CallResult,
  isProblem,
  type CallInput as OpCallInput,
  pathOf,
  type SuccessBody,
} from '../../../schemas/op-call.ts'
import type { Problem } from '../../../schemas/problems.ts'

export type { CallResult, SuccessBody }

/** A call's request, and the signal that aborts it (a screen that closes). */
export interface CallInput<O extends OpSpec> extends OpCallInput<O> {
  signal?: AbortSignal
}

export class ProblemError extends Error {
  readonly status: number
  readonly code: string
  readonly problem: Problem
  constructor(problem: Problem) {
    super(`${problem.code}: ${problem.detail}`)
    this.name = 'ProblemError'
    this.status = problem.status
    this.code = problem.code
    this.problem = problem
  }
}

/** The daemon did not answer, or answered outside the protocol. */
export class ConnectionError extends Error {}

async function problemOf(res: Response, what: string): Promise<Error> {
  let parsed: unknown
  try {
    parsed = await res.json()
  } catch {
    // not a problem body
  }
  return isProblem(parsed) ? new ProblemError(parsed) : new ConnectionError(`${what}: HTTP ${res.status}`)
}

export class ApiClient {
  readonly #token: () => string | undefined
  /** Called when the daemon refuses the token (401): the page asks for one again. */
  readonly #onUnauthorized: () => void

  constructor(token: () => string | undefined, onUnauthorized: () => void) {
    this.#token = token
    this.#onUnauthorized = onUnauthorized
  }

  async call<K extends OpId>(id: K, input: CallInput<AllOps[K]> = {}): Promise<CallResult<AllOps[K]>> {
    const res = await this.#send(id, input as CallInput<OpSpec>, { accept: 'application/json' })
    if (!res.ok) throw await problemOf(res, id)
    const text = await res.text()
    const body = (text.length > 0 ? JSON.parse(text) : undefined) as SuccessBody<AllOps[K]>
    return { status: res.status, body, headers: res.headers }
  }

  /** Opens an operation's event stream; resolves with the response once its head is in. */
  async stream<K extends OpId>(id: K, input: CallInput<AllOps[K]> = {}): Promise<Response> {
    const res = await this.#send(id, input as CallInput<OpSpec>, { accept: 'text/event-stream' })
    if (!res.ok) throw await problemOf(res, id)
    return res
  }

  /** Reads a binary resource (an image of an entry) as a Blob, for a blob: URL. */
  async blob<K extends OpId>(id: K, input: CallInput<AllOps[K]> = {}): Promise<Blob> {
    const res = await this.#send(id, input as CallInput<OpSpec>, {})
    if (!res.ok) throw await problemOf(res, id)
    return await res.blob()
  }

  async #send(id: string, input: CallInput<OpSpec>, headers: Record<string, string>): Promise<Response> {
    const op = __HEARTH_OPS__[id]
    if (!op) throw new Error(`unknown operation ${id}`)
    const url = new URL(pathOf(op.path, input.params as Record<string, string>), location.origin)
    for (const [k, v] of Object.entries(input.query ?? {}))
      if (v !== undefined) url.searchParams.set(k, String(v))
    const all: Record<string, string> = { ...headers, ...input.headers }
    const token = this.#token()
    if (token) all.authorization = `Bearer ${token}`
    let body: string | undefined
    if (input.body !== undefined) {
      body = JSON.stringify(input.body)
      all['content-type'] = op.bodyMediaType
    }
    let res: Response
    try {
      // credentials 'omit': there is no cookie to send, and none may be set.
      res = await fetch(url, {
        method: op.method,
        headers: all,
        body,
        signal: input.signal,
        credentials: 'omit',
        cache: 'no-store',
        referrerPolicy: 'no-referrer',
      })
    } catch (err) {
      if (input.signal?.aborted) throw err
      throw new ConnectionError(`the daemon does not answer (${(err as Error).message})`)
    }
    if (res.status === 401) this.#onUnauthorized()
    return res
  }
}
