// `hearth session set SESSION [--profile P] [--model M] [--effort E]` and
// `hearth interrupt SESSION`: changing a session and stopping its run from the command line.

import { HearthClient } from '../client/client.ts'
import { profilesOf } from '../client/profiles.ts'
import { homeOf, parseCommand } from '../command-line/args.ts'
import { CommandError, type Out, UsageError } from '../command-line/errors.ts'
import { oneSessionArg, resolveSessionId } from '../command-line/session-id.ts'
import type { SessionChangeRequest } from '../schemas/session-configuration.ts'
import type { SessionRead } from '../schemas/session-read.ts'

export async function setCommand(args: string[], out: Out, help: string): Promise<number> {
  const parsed = parseCommand(
    args,
    { profile: { type: 'string' }, model: { type: 'string' }, effort: { type: 'string' } },
    out,
    help,
    true,
  )
  if (!parsed) return 0
  const { values, positionals } = parsed
  const arg = oneSessionArg(positionals, 'hearth session set')
  const change: SessionChangeRequest = {}
  if (values.model !== undefined) change.model = values.model
  // The daemon checks the effort against the same list as settings (400 invalid_request).
  if (values.effort !== undefined)
    change.effort = values.effort === 'none' ? null : (values.effort as SessionChangeRequest['effort'])
  if (values.profile !== undefined) change.provider_profile = values.profile
  if (Object.keys(change).length === 0)
    throw new UsageError('hearth session set needs --profile, --model or --effort')
  for (const [flag, v] of Object.entries(values))
    if (v === '') throw new UsageError(`--${flag} must not be empty`)
  const client = HearthClient.fromHome(homeOf(values.home))
  const id = await resolveSessionId(client, arg)
  if (values.profile !== undefined) {
    const profiles = await profilesOf(client)
    const chosen = profiles[values.profile]
    if (!chosen) {
      const names = Object.keys(profiles)
      throw new CommandError(
        `no profile named ${values.profile}${names.length > 0 ? ` (profiles: ${names.join(', ')})` : ''}; see hearth profile list`,
      )
    }
    // A new profile brings its own model unless one is named.
    if (change.model === undefined && typeof chosen.model === 'string') change.model = chosen.model
  }
  const read = await client.call('sessions.get', {
    params: { session_id: id },
    query: { view: 'configuration' },
  })
  const etag = read.headers.get('etag') ?? (read.body as unknown as { etag: string }).etag
  await client.call('sessions.configure', {
    params: { session_id: id },
    query: { view: 'configuration' },
    headers: { 'if-match': etag },
    body: change,
  })
  const { body } = await client.call('sessions.get', { params: { session_id: id }, query: { tail: 0 } })
  const s = body as SessionRead
  out.write(`session ${s.id}: profile ${s.provider_profile || '(none)'}, model ${s.model || '(none)'}`)
  out.write(`${s.effort ? `, effort ${s.effort}` : ''}\n`)
  return 0
}

export async function interruptCommand(args: string[], out: Out, help: string): Promise<number> {
  const parsed = parseCommand(args, {}, out, help, true)
  if (!parsed) return 0
  const { values, positionals } = parsed
  const arg = oneSessionArg(positionals, 'hearth interrupt')
  const client = HearthClient.fromHome(homeOf(values.home))
  const id = await resolveSessionId(client, arg)
  const { body } = await client.call('sessions.get', { params: { session_id: id }, query: { tail: 0 } })
  const s = body as SessionRead
  // What this command saw: that run, and the inputs waiting up to now; nothing newer.
  const { body: done } = await client.call('sessions.interrupt', {
    params: { session_id: id },
    body: { run_id: s.status.run_id, through_input_order: s.input_order },
  })
  const cancelled = done.cancelled_inputs.length
  const waiting = cancelled > 0 ? `; cancelled ${cancelled} waiting input${cancelled === 1 ? '' : 's'}` : ''
  if (done.run_outcome === 'interrupted') out.write(`interrupted run ${done.run_id}${waiting}\n`)
  else out.write(`nothing was running${waiting}\n`)
  return 0
}
