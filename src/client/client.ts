// Typed client for protocol 3, driven by the same op table the daemon serves. It finds a
// daemon through HOME/daemon.json and HOME/token, and turns problem bodies into
// ProblemError so callers branch on `code`, never on message text.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { AllOps, OpId } from '../schemas/index.ts'
import type { OpSpec } from '../schemas/op.ts'
import { type CallInput, type CallResult, isProblem, pathOf, type SuccessBody } from '../schemas/op-call.ts'
import type { Problem } from '../schemas/problems.ts'

export type { CallInput, CallResult }

export class ProblemError extends Error {
  readonly status: number
  readonly code: string
  readonly problem: Problem
  /** The daemon that answered, when known (for messages that name its home). */
  readonly endpoint: Endpoint | undefined
  constructor(problem: Problem, endpoint?: Endpoint) {
    super(`${problem.code}: ${problem.detail}`)
    this.name = 'ProblemError'
    this.status = problem.status
    this.code = problem.code
    this.problem = problem
    this.endpoint = endpoint
  }
}

/**
 * A failure a client expects and names in one sentence (no daemon, an answer outside the
 * protocol, a creation whose outcome is unknown): callers show its message, not a stack.
 * A problem the daemon answered is a ProblemError instead, shown from its code and title.
 */
export class ClientError extends Error {}

/** No daemon answers for this home: nothing to talk to (never starts one). */
export class NoDaemonError extends ClientError {
  /**
   * The network error code when a request was attempted (ECONNREFUSED: nothing was sent;
   * anything else, such as ECONNRESET, may have reached the daemon), else undefined.
   */
  readonly reason: string | undefined
  constructor(message: string, reason?: string) {
    super(message)
    this.name = 'NoDaemonError'
    this.reason = reason
  }
}

/** The daemon answered with something that is not protocol 3 (not JSON, not a problem). */
export class ProtocolError extends ClientError {
  readonly status: number
  constructor(message: string, status: number) {
    super(message)
    this.name = 'ProtocolError'
    this.status = status
  }
}

export interface Endpoint {
  url: string
  token: string
  /** The home the endpoint was read from, for messages. */
  home?: string
}

const startHint = (home: string) => `start one with: hearth daemon --home ${home}`

/** Whether a process with this pid exists (it may belong to another user: EPERM). */
function alive(pid: unknown): boolean {
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export function endpointOfHome(home: string): Endpoint {
  let runtime: { url?: unknown; pid?: unknown }
  try {
    runtime = JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8'))
  } catch {
    throw new NoDaemonError(`no hearth daemon runs for ${home}; ${startHint(home)}`)
  }
  if (typeof runtime?.url !== 'string') {
    throw new NoDaemonError(`${join(home, 'daemon.json')} names no URL; ${startHint(home)}`)
  }
  let token: string
  try {
    token = readFileSync(join(home, 'token'), 'utf8').trim()
  } catch {
    if (!alive(runtime.pid)) throw new NoDaemonError(`no hearth daemon runs for ${home}; ${startHint(home)}`)
    // The daemon reads its token once, at start: only a restart writes a new file.
    throw new NoDaemonError(
      `a hearth daemon runs for ${home} (pid ${runtime.pid} at ${runtime.url}), but ${join(home, 'token')} ` +
        `is missing, so nothing can talk to it; stop it (kill ${runtime.pid}) and ${startHint(home)}`,
    )
  }
  return { url: runtime.url, token, home }
}

/**
 * The operation table, imported on the first call: building its schemas loads typebox, tens
 * of milliseconds that a command (and the terminal client's first frame) need not wait for.
 */
let allOps: Promise<typeof import('../schemas/index.ts').ALL_OPS> | undefined
function opOf(id: OpId): Promise<OpSpec> {
  allOps ??= import('../schemas/index.ts').then((m) => m.ALL_OPS)
  return allOps.then((ops) => ops[id] as OpSpec)
}

/** Whether the home's daemon answers (false when none is named, or it does not listen). */
export async function daemonAnswers(home: string): Promise<boolean> {
  try {
    await HearthClient.fromHome(home).call('server.get')
    return true
  } catch (err) {
    if (err instanceof NoDaemonError) return false
    throw err
  }
}

export class HearthClient {
  readonly endpoint: Endpoint
  constructor(endpoint: Endpoint) {
    this.endpoint = endpoint
  }

  static fromHome(home: string): HearthClient {
    return new HearthClient(endpointOfHome(home))
  }

  async call<K extends OpId>(id: K, input: CallInput<AllOps[K]> = {}): Promise<CallResult<AllOps[K]>> {
    const { res, op, url } = await this.#send(await opOf(id), input as CallInput<OpSpec>)
    const text = await res.text()
    let parsed: unknown
    try {
      parsed = text.length > 0 ? JSON.parse(text) : undefined
    } catch {
      throw new ProtocolError(
        `${op.method} ${url.pathname}: HTTP ${res.status} with a body that is not JSON`,
        res.status,
      )
    }
    if (!res.ok) {
      if (isProblem(parsed)) throw new ProblemError(parsed, this.endpoint)
      throw new ProtocolError(
        `${op.method} ${url.pathname}: HTTP ${res.status} without a problem body`,
        res.status,
      )
    }
    return { status: res.status, body: parsed as SuccessBody<AllOps[K]>, headers: res.headers }
  }

  /**
   * Opens a stream of an op that has one (Accept: text/event-stream, identity encoding) and
   * returns the response once its head arrived with status 200; the caller reads the body.
   * Errors as for call(). `signal` aborts the request and the body.
   */
  async stream<K extends OpId>(id: K, input: CallInput<AllOps[K]>, signal?: AbortSignal): Promise<Response> {
    const headers = { accept: 'text/event-stream', 'accept-encoding': 'identity', ...input.headers }
    const { res, op, url } = await this.#send(
      await opOf(id),
      { ...(input as CallInput<OpSpec>), headers },
      signal,
    )
    if (res.ok) return res
    const text = await res.text()
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      // not a problem body: reported below
    }
    if (isProblem(parsed)) throw new ProblemError(parsed, this.endpoint)
    throw new ProtocolError(
      `${op.method} ${url.pathname}: HTTP ${res.status} without a problem body`,
      res.status,
    )
  }

  async #send(
    op: OpSpec,
    input: CallInput<OpSpec>,
    signal?: AbortSignal,
  ): Promise<{ res: Response; op: OpSpec; url: URL }> {
    const url = new URL(pathOf(op.path, input.params as Record<string, string>), this.endpoint.url)
    for (const [k, v] of Object.entries(input.query ?? {}))
      if (v !== undefined) url.searchParams.set(k, String(v))
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.endpoint.token}`,
      ...input.headers,
    }
    let body: string | undefined
    if (input.body !== undefined) {
      body = JSON.stringify(input.body)
      headers['content-type'] = op.bodyMediaType ?? 'application/json'
    }
    try {
      return { res: await fetch(url, { method: op.method, headers, body, signal }), op, url }
    } catch (err) {
      if (signal?.aborted) throw err
      const c = (err as { cause?: { code?: string; message?: string } }).cause
      const cause = c?.code ?? c?.message ?? (err as Error).message
      const hint = this.endpoint.home ? `; ${startHint(this.endpoint.home)}` : ''
      throw new NoDaemonError(
        `the hearth daemon at ${this.endpoint.url} does not answer (${cause})${hint}`,
        c?.code ?? 'unknown',
      )
    }
  }
}
