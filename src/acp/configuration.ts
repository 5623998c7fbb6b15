// A session's configuration as the ACP handlers read and change it: the configuration
// resource (GET ?view=configuration, its ETag the validator) and a merge patch sent with
// If-Match, read again and retried when another client changed the session meanwhile.
import { RequestError } from '@agentclientprotocol/sdk'
import { type HearthClient, ProblemError } from '../client/client.ts'
import type { ConfigurationResource } from '../schemas/session-configuration.ts'

export type Configuration = ConfigurationResource['value']

/** The session's configuration; an unknown or deleted session is ACP's session not found. */
export async function readConfiguration(
  client: HearthClient,
  sessionId: string,
): Promise<ConfigurationResource> {
  try {
    const { body } = await client.call('sessions.get', {
      params: { session_id: sessionId },
      query: { view: 'configuration' },
    })
    return body as unknown as ConfigurationResource
  } catch (err) {
    throw notFoundOr(err, sessionId)
  }
}

/** The session's 404/410 as ACP's session not found; other errors unchanged. */
export function notFoundOr(err: unknown, sessionId: string): unknown {
  if (err instanceof ProblemError && (err.code === 'session_not_found' || err.code === 'session_deleted'))
    return RequestError.sessionNotFound(sessionId)
  return err
}

/** A daemon problem as a JSON-RPC error the editor can show (invalid params for a 400). */
export function requestErrorOf(err: unknown): unknown {
  if (!(err instanceof ProblemError)) return err
  const data = { code: err.code, detail: err.problem.detail }
  return err.status === 400 || err.status === 409
    ? RequestError.invalidParams(data, err.problem.title ?? err.code)
    : RequestError.internalError(data, err.problem.title ?? err.code)
}

const ATTEMPTS = 5

/** Applies `patch` to the session's configuration; a 412 (changed meanwhile) reads and tries again. */
export async function patchConfiguration(
  client: HearthClient,
  sessionId: string,
  patch: Record<string, unknown>,
): Promise<Configuration> {
  for (let attempt = 1; ; attempt++) {
    const resource = await readConfiguration(client, sessionId)
    try {
      const { body } = await client.call('sessions.configure', {
        params: { session_id: sessionId },
        query: { view: 'configuration' },
        headers: { 'if-match': resource.etag },
        body: patch as never,
      })
      return (body as { resource: ConfigurationResource }).resource.value
    } catch (err) {
      if (err instanceof ProblemError && err.status === 412 && attempt < ATTEMPTS) continue
      throw requestErrorOf(notFoundOr(err, sessionId))
    }
  }
}
