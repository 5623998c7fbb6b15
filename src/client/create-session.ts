// Creating a session with an uncertain network. The client picks the id, so a request
// whose response was lost can be sent again unchanged: either it creates the session now,
// or the daemon answers 412 and the session's creation.submitted shows whether the request
// that won was this one (spec: "GET creation.submitted proves the original intent").
import type { SessionCreationRequest } from '../schemas/session-configuration.ts'
import type { SessionRead } from '../schemas/session-read.ts'
import { ClientError, type HearthClient, NoDaemonError, ProblemError } from './client.ts'

/** The id exists and its creation request was a different one. */
export class CreationConflictError extends ClientError {
  readonly submitted: unknown
  constructor(id: string, submitted: unknown) {
    super(`session ${id} already exists with another creation request`)
    this.name = 'CreationConflictError'
    this.submitted = submitted
  }
}

/** Every attempt failed without an answer; the session may or may not exist. */
export class CreationUncertainError extends ClientError {
  constructor(id: string, cause: Error) {
    super(`could not confirm whether session ${id} was created (${cause.message})`, { cause })
    this.name = 'CreationUncertainError'
  }
}

export interface CreateOptions {
  /** A client for the daemon as it is now, asked again before every attempt. */
  client: () => HearthClient
  /** Pauses before the second, third … attempt (default 200, 500, 1000, 2000 ms). */
  retryDelaysMs?: readonly number[]
}

/** Whether `submitted` (the stored creation.submitted) is what `req` asks for. */
export function sameIntent(req: SessionCreationRequest, submitted: Record<string, unknown>): boolean {
  const fork = req.kind === 'forked'
  const expected: Record<string, unknown> = {
    kind: req.kind,
    workspace: req.workspace ?? null,
    name: req.name ?? null,
    provider_profile: req.provider_profile ?? null,
    model: req.model ?? null,
    effort: req.effort ?? null,
    source_id: fork ? req.source_id.toLowerCase() : null,
    through_entry: fork ? (req.through_entry ?? null) : null,
    parent_id: req.kind === 'child' ? req.parent_id.toLowerCase() : null,
  }
  return Object.entries(expected).every(([k, v]) => (submitted[k] ?? null) === v)
}

/**
 * PUT /sessions/{id} with If-None-Match: *. A refused connection (ECONNREFUSED: nothing was
 * sent) fails at once on the first attempt; any other network failure retries the same id
 * and body, and a 412 on a retry is success when creation.submitted matches.
 */
export async function createSessionOnce(
  id: string,
  req: SessionCreationRequest,
  o: CreateOptions,
): Promise<SessionRead> {
  const delays = o.retryDelaysMs ?? [200, 500, 1000, 2000]
  let uncertain: Error | undefined
  for (let attempt = 0; ; attempt++) {
    try {
      const { body } = await o.client().call('sessions.create', {
        params: { session_id: id },
        headers: { 'if-none-match': '*' },
        body: req,
      })
      return body as SessionRead
    } catch (err) {
      if (err instanceof ProblemError && err.status === 412 && uncertain) {
        const { body } = await o
          .client()
          .call('sessions.get', { params: { session_id: id }, query: { tail: 0 } })
        const read = body as SessionRead
        if (sameIntent(req, read.creation.submitted)) return read
        throw new CreationConflictError(id, read.creation.submitted)
      }
      if (!(err instanceof NoDaemonError)) throw err
      // Refused before anything was sent, and no earlier attempt may have landed: no daemon.
      if (!uncertain && (err.reason === undefined || err.reason === 'ECONNREFUSED')) throw err
      if (err.reason !== undefined && err.reason !== 'ECONNREFUSED') uncertain = err
      if (attempt >= delays.length) throw new CreationUncertainError(id, uncertain ?? err)
      await new Promise((r) => setTimeout(r, delays[attempt]))
    }
  }
}
