// `hearth config get|set` and `hearth profile add`: settings through a running daemon.
// Every change is a PATCH with the group's ETag read just before, so a concurrent change
// is reported (412) rather than overwritten.
import { HearthClient } from '../client/client.ts'
import { SETTINGS_GROUPS, type SettingsGroup } from '../schemas/settings.ts'
import { homeOf, parseCommand } from './args.ts'
import { CommandError, type Out, UsageError } from './errors.ts'

function groupOf(name: string | undefined): SettingsGroup {
  if (name === undefined || !(SETTINGS_GROUPS as readonly string[]).includes(name))
    throw new UsageError(`the group is one of ${SETTINGS_GROUPS.join(', ')}`)
  return name as SettingsGroup
}

/** PATCHes one group with its current ETag; returns the SettingsChange body. */
async function patch(client: HearthClient, group: SettingsGroup, body: unknown) {
  const read = await client.call('settings.get', { query: { group } })
  const etag = read.headers.get('etag') ?? ''
  const res = await client.call('settings.patch', {
    query: { group },
    body: body as never,
    headers: { 'if-match': etag },
  })
  return res.body
}

export async function configCommand(args: string[], out: Out, help: string): Promise<number> {
  const parsed = parseCommand(args, {}, out, help, true)
  if (!parsed) return 0
  const { values, positionals } = parsed
  const [verb, group, json, extra] = positionals
  const client = HearthClient.fromHome(homeOf(values.home))
  if (verb === 'get') {
    if (json !== undefined) throw new UsageError(`unexpected argument ${json}`)
    const res = await client.call('settings.get', {
      query: group === undefined ? {} : { group: groupOf(group) },
    })
    out.write(`${JSON.stringify(res.body, null, 2)}\n`)
    return 0
  }
  if (verb === 'set') {
    if (json === undefined) throw new UsageError('hearth config set GROUP PATCH-JSON')
    if (extra !== undefined) throw new UsageError(`unexpected argument ${extra}`)
    let body: unknown
    try {
      body = JSON.parse(json)
    } catch {
      throw new UsageError('PATCH-JSON is not valid JSON')
    }
    const change = await patch(client, groupOf(group), body)
    out.write(`${JSON.stringify(change.settings, null, 2)}\n`)
    return 0
  }
  throw new UsageError('hearth config get [GROUP] | hearth config set GROUP PATCH-JSON')
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '')
}

export async function profileCommand(args: string[], out: Out, help: string): Promise<number> {
  const parsed = parseCommand(
    args,
    {
      endpoint: { type: 'string' },
      model: { type: 'string' },
      protocol: { type: 'string', default: 'responses' },
      extension: { type: 'string', default: 'openai-compatible' },
      'api-key-stdin': { type: 'boolean' },
      default: { type: 'boolean' },
    },
    out,
    help,
    true,
  )
  if (!parsed) return 0
  const { values, positionals } = parsed
  const [verb, name, extra] = positionals
  if (verb !== 'add' || name === undefined || extra !== undefined)
    throw new UsageError('hearth profile add NAME --endpoint URL --model ID [--api-key-stdin] [--default]')
  const profile: Record<string, unknown> = { extension: values.extension, protocol: values.protocol }
  if (values.endpoint !== undefined) profile.endpoint = values.endpoint
  if (values.model !== undefined) profile.model = values.model
  if (values['api-key-stdin']) {
    const key = await readStdin()
    if (key === '') throw new CommandError('no API key on standard input')
    profile.api_key = key
  }
  const client = HearthClient.fromHome(homeOf(values.home))
  const body = { profiles: { [name]: profile }, ...(values.default ? { default_profile: name } : {}) }
  const change = await patch(client, 'providers', body)
  const saved = (change.settings as { profiles: Record<string, { api_key: unknown }> }).profiles[name]
  out.write(`saved profile ${name}${saved?.api_key ? ' (with its API key)' : ''}\n`)
  return 0
}
