// Session ids on the command line: a whole UUIDv7, the start of one, or its end (its
// handle), when only one session's id starts or ends that way (`hearth session show
// 0193a4`, `hearth chat 7c2e9f`). A UUIDv7 starts with its creation time, so sessions of
// one day share their first eleven digits; its last digits are random, so the last six
// (the handle `hearth sessions` shows) tell sessions apart. Both are resolved here, on the
// client, through the session list (every session, children too): deleted sessions are not
// listed, so neither ever names one. An ambiguous one names its candidates.
import { version as uuidVersion, validate as validateUuid } from 'uuid'
import type { HearthClient } from '../client/client.ts'
import type { SessionSummary } from '../schemas/session-read.ts'
import { CommandError, UsageError } from './errors.ts'

/** The most candidates an ambiguous prefix lists. */
const MAX_CANDIDATES = 10

/** The digits of a session's handle: the end of its id, made longer where two ids share it. */
export const HANDLE_LENGTH = 6

/** Whether `text` can be the start or the end of a UUID (hex digits and dashes, at most 36). */
const PART = /^[0-9a-f-]{0,35}[0-9a-f][0-9a-f-]{0,35}$/i

/** Refuses, as a usage error, what can be neither a session id nor the start or end of one. */
export function checkSessionArg(text: string): void {
  const whole = text.length === 36 && validateUuid(text)
  if ((whole && uuidVersion(text) !== 7) || (!whole && (!PART.test(text) || text.length >= 36)))
    throw new UsageError(`${text} is not a session id (a UUIDv7, its start or its end)`)
}

/** Every session, children too, newest activity first, read a page at a time. */
async function* allSessions(client: HearthClient): AsyncGenerator<SessionSummary> {
  let next: string | undefined
  do {
    const { body } = await client.call('sessions.list', { query: { scope: 'all', limit: 200, next } })
    yield* body.items
    next = body.next ?? undefined
  } while (next !== undefined)
}

/** The session id `text` names: itself when whole, else the one listed id it starts or ends. */
export async function resolveSessionId(client: HearthClient, text: string): Promise<string> {
  checkSessionArg(text)
  if (text.length === 36) return text.toLowerCase()
  const part = text.toLowerCase()
  const digits = part.replaceAll('-', '')
  const found: { id: string; name: string }[] = []
  for await (const s of allSessions(client)) {
    if (s.id.startsWith(part) || s.id.replaceAll('-', '').endsWith(digits))
      found.push({ id: s.id, name: s.name || s.automatic_name })
    if (found.length > MAX_CANDIDATES) break
  }
  if (found.length === 1) return found[0].id
  if (found.length === 0) throw new CommandError(`no session id starts or ends with ${text}`)
  const listed = found
    .slice(0, MAX_CANDIDATES)
    .map((s) => `\n  ${handleOf(s.id)}  ${s.id}${s.name ? `  ${s.name}` : ''}`)
    .join('')
  const more = found.length > MAX_CANDIDATES ? '\n  …' : ''
  throw new CommandError(`${text} names more than one session; give more of it:${listed}${more}`)
}

/** The last `length` digits of an id (dashes left out). */
export function handleOf(id: string, length = HANDLE_LENGTH): string {
  return id.replaceAll('-', '').slice(-length)
}

/**
 * The handle of each id: its last HANDLE_LENGTH digits, or more where two of `ids` end the
 * same way, so that each handle names one of them.
 */
export function handlesOf(ids: readonly string[]): Map<string, string> {
  const handles = new Map<string, string>()
  for (const id of ids) {
    let length = HANDLE_LENGTH
    while (
      length < 32 &&
      ids.some((other) => other !== id && handleOf(other, length) === handleOf(id, length))
    )
      length++
    handles.set(id, handleOf(id, length))
  }
  return handles
}

/**
 * What a person types to name session `id` again (`hearth chat HANDLE`): its handle among
 * all sessions, or the whole id when the sessions cannot be read.
 */
export async function typedHandle(client: HearthClient, id: string): Promise<string> {
  try {
    const ids: string[] = [id]
    for await (const s of allSessions(client)) if (s.id !== id) ids.push(s.id)
    return handlesOf(ids).get(id) ?? id
  } catch {
    return id
  }
}

/** The session of `workspace` with the newest activity (`hearth -c`, `hearth chat --last`). */
export async function latestSessionIn(client: HearthClient, workspace: string): Promise<string> {
  const { body } = await client.call('sessions.list', { query: { workspace, limit: 1 } })
  const latest = body.items[0]
  if (!latest) throw new CommandError(`no session in ${workspace} yet; hearth chat starts one there`)
  return latest.id
}

/** The options of `hearth chat`, full-screen or line mode: --last (-c, --continue) opens the workspace's latest session. */
export const CHAT_OPTIONS = {
  workspace: { type: 'string' },
  last: { type: 'boolean' },
  continue: { type: 'boolean', short: 'c' },
} as const

/** The session `hearth chat` opens: the one named, the workspace's latest (--last), or none (a new one). */
export async function chosenSession(
  client: HearthClient,
  named: string | undefined,
  latest: boolean,
  workspace: string,
): Promise<string | undefined> {
  if (named !== undefined && latest) throw new UsageError('give a session or --last (-c), not both')
  if (named !== undefined) return resolveSessionId(client, named)
  return latest ? latestSessionIn(client, workspace) : undefined
}

/** The one session argument of a command (usage error when missing or doubled). */
export function oneSessionArg(args: string[], command: string): string {
  if (args.length === 0) throw new UsageError(`${command} needs a session id`)
  if (args.length > 1) throw new UsageError(`unexpected argument ${args[1]}`)
  checkSessionArg(args[0])
  return args[0]
}
