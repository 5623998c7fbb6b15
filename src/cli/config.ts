// `hearth config get|set` and `hearth profile add|list|remove|use`: settings through a
// running daemon.
// Every change is a PATCH with the group's ETag read just before, so a concurrent change
// is reported (412) rather than overwritten.
import { HearthClient } from '../client/client.ts'
import { homeOf, parseCommand, unknownSubcommand } from '../command-line/args.ts'
import { CommandError, type Out, UsageError } from '../command-line/errors.ts'
import { DEFAULT_EXTENSION } from '../schemas/extensions.ts'
import { SETTINGS_GROUPS, type SettingsGroup } from '../schemas/settings.ts'
import { writeJson, writeList } from './output.ts'

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
    writeJson(out, res.body)
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
    writeJson(out, change.settings)
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
      extension: { type: 'string', default: DEFAULT_EXTENSION },
      'api-key-stdin': { type: 'boolean' },
      default: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    out,
    help,
    true,
  )
  if (!parsed) return 0
  const { values, positionals } = parsed
  const [verb, name, extra] = positionals
  if (extra !== undefined) throw new UsageError(`unexpected argument ${extra}`)
  const client = () => HearthClient.fromHome(homeOf(values.home))
  switch (verb) {
    case 'add':
      if (name === undefined)
        throw new UsageError(
          'hearth profile add NAME --endpoint URL --model ID [--api-key-stdin] [--default]',
        )
      return addProfile(client(), name, values, out)
    case 'list':
      if (name !== undefined) throw new UsageError(`unexpected argument ${name}`)
      return listProfiles(client(), values.json ?? false, out)
    case 'remove':
    case 'use': {
      if (name === undefined) throw new UsageError(`hearth profile ${verb} NAME`)
      return verb === 'use' ? useProfile(client(), name, out) : removeProfile(client(), name, out)
    }
    case undefined:
      throw new UsageError('hearth profile needs a command: add, list, remove or use')
    default:
      throw unknownSubcommand('profile', verb, 'add, list, remove or use')
  }
}

async function addProfile(
  client: HearthClient,
  name: string,
  values: Record<string, string | boolean | undefined>,
  out: Out,
): Promise<number> {
  const profile: Record<string, unknown> = { extension: values.extension, protocol: values.protocol }
  if (values.endpoint !== undefined) profile.endpoint = values.endpoint
  if (values.model !== undefined) profile.model = values.model
  if (values['api-key-stdin']) {
    const key = await readStdin()
    if (key === '') throw new CommandError('no API key on standard input')
    profile.api_key = key
  }
  const body = { profiles: { [name]: profile }, ...(values.default ? { default_profile: name } : {}) }
  const change = await patch(client, 'providers', body)
  const saved = (change.settings as { profiles: Record<string, { api_key: unknown }> }).profiles[name]
  out.write(`saved profile ${name}${saved?.api_key ? ' (with its API key)' : ''}\n`)
  return 0
}

interface ProfileRow {
  extension: string
  model?: string | null
  endpoint?: string | null
  api_key: unknown
  read_only?: boolean
}

async function providersOf(client: HearthClient) {
  const { body } = await client.call('settings.get', { query: { group: 'providers' } })
  return (body as { settings: { default_profile: string | null; profiles: Record<string, ProfileRow> } })
    .settings
}

async function listProfiles(client: HearthClient, json: boolean, out: Out): Promise<number> {
  const { default_profile, profiles } = await providersOf(client)
  const row = (n: string, p: ProfileRow) => {
    const marks = [
      n === default_profile ? 'default' : null,
      p.read_only ? 'built in, read-only' : null,
      p.api_key ? 'key saved' : null,
    ].filter(Boolean)
    return [`${n === default_profile ? '* ' : '  '}${n}`, p.extension, p.model ?? '', marks.join(', ')]
  }
  return writeList(out, {
    json,
    value: { default_profile, profiles },
    head: ['  NAME', 'EXTENSION', 'MODEL', ''],
    rows: () => Object.entries(profiles).map(([n, p]) => row(n, p)),
    empty: 'No profiles. Add one with hearth profile add, or start the daemon with --demo.\n',
  })
}

async function useProfile(client: HearthClient, name: string, out: Out): Promise<number> {
  const { profiles } = await providersOf(client)
  if (!profiles[name]) throw new CommandError(`no profile named ${name}; see hearth profile list`)
  await patch(client, 'providers', { default_profile: name })
  out.write(`new sessions use profile ${name}\n`)
  return 0
}

async function removeProfile(client: HearthClient, name: string, out: Out): Promise<number> {
  const { default_profile, profiles } = await providersOf(client)
  if (!profiles[name]) throw new CommandError(`no profile named ${name}; see hearth profile list`)
  if (profiles[name].read_only)
    throw new CommandError(`profile ${name} is built into the running daemon (--demo) and cannot be removed`)
  // The default may not name a removed profile: it goes with it.
  const wasDefault = default_profile === name
  await patch(client, 'providers', {
    profiles: { [name]: null },
    ...(wasDefault ? { default_profile: null } : {}),
  })
  out.write(`removed profile ${name}${wasDefault ? '; there is no default profile now' : ''}\n`)
  return 0
}
