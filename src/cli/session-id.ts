// Session ids on the command line: a whole UUIDv7, or the start of one that only one
// session's id has (`hearth session show 0193a4`). A prefix is resolved here, on the client, through
// the session list (every session, children too): deleted sessions are not listed, so a
// prefix never names one. An ambiguous prefix names its candidates.
import { version as uuidVersion, validate as validateUuid } from 'uuid'
import type { HearthClient } from '../client/client.ts'
import { CommandError, UsageError } from './errors.ts'

/** The most candidates an ambiguous prefix lists. */
const MAX_CANDIDATES = 10

/** Whether `text` can be the start of a UUID (hex digits and dashes, at most 36). */
const PREFIX = /^[0-9a-f][0-9a-f-]{0,35}$/i

/** Refuses, as a usage error, what can be neither a session id nor the start of one. */
export function checkSessionArg(text: string): void {
  const whole = text.length === 36 && validateUuid(text)
  if ((whole && uuidVersion(text) !== 7) || (!whole && (!PREFIX.test(text) || text.length === 36)))
    throw new UsageError(`${text} is not a session id (a UUIDv7 or the start of one)`)
}

/** The session id `text` names: itself when whole, else the one listed id it starts. */
export async function resolveSessionId(client: HearthClient, text: string): Promise<string> {
  checkSessionArg(text)
  if (text.length === 36) return text.toLowerCase()
  const prefix = text.toLowerCase()
  const found: { id: string; name: string }[] = []
  let next: string | undefined
  do {
    const { body } = await client.call('sessions.list', { query: { scope: 'all', limit: 200, next } })
    for (const s of body.items)
      if (s.id.startsWith(prefix)) found.push({ id: s.id, name: s.name || s.automatic_name })
    next = body.next ?? undefined
  } while (next !== undefined && found.length <= MAX_CANDIDATES)
  if (found.length === 1) return found[0].id
  if (found.length === 0) throw new CommandError(`no session id starts with ${text}`)
  const listed = found
    .slice(0, MAX_CANDIDATES)
    .map((s) => `\n  ${s.id}${s.name ? `  ${s.name}` : ''}`)
    .join('')
  const more = found.length > MAX_CANDIDATES ? '\n  …' : ''
  throw new CommandError(`${text} is the start of more than one session id; give more of it:${listed}${more}`)
}

/** The one session argument of a command (usage error when missing or doubled). */
export function oneSessionArg(args: string[], command: string): string {
  if (args.length === 0) throw new UsageError(`${command} needs a session id`)
  if (args.length > 1) throw new UsageError(`unexpected argument ${args[1]}`)
  checkSessionArg(args[0])
  return args[0]
}
