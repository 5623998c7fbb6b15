// `hearth mcp add|list|remove|login|logout`: the MCP servers of settings group `mcp`, through
// a running daemon. Secrets (env values, headers, the bearer token, a client secret) go into
// creds.json through the same PATCH; reads only ever show that they are saved. A remote
// server's sign-in is a login like `hearth login`'s (provider `mcp:NAME`).
import { HearthClient } from '../client/client.ts'
import { homeOf, parseCommand, unknownSubcommand } from '../command-line/args.ts'
import { CommandError, type Out, UsageError } from '../command-line/errors.ts'
import { writeList } from './output.ts'

const ADD_USAGE =
  'hearth mcp add NAME [--env KEY=VALUE]... [--cwd DIR] -- COMMAND [ARGS...]\n' +
  '       hearth mcp add NAME --url URL [--header "Name: value"]... [--bearer-token-stdin]\n' +
  '                      [--client-id ID [--client-secret-stdin]] [--client-metadata-url URL]\n' +
  '                      [--scope SCOPE]... [--callback-port PORT]'

interface ServerRow {
  command: string | null
  args: string[]
  cwd: string | null
  url: string | null
  enabled: boolean
  env: Record<string, unknown>
  headers: Record<string, unknown>
  bearerToken: unknown
  oauth: { signed_in: boolean; expires_at: string | null } | null
}

async function serversOf(
  client: HearthClient,
): Promise<{ etag: string; servers: Record<string, ServerRow> }> {
  const res = await client.call('settings.get', { query: { group: 'mcp' } })
  const servers = (res.body as { settings: { servers: Record<string, ServerRow> } }).settings.servers
  return { etag: res.headers.get('etag') ?? '', servers }
}

async function patchServers(client: HearthClient, etag: string, servers: Record<string, unknown>) {
  await client.call('settings.patch', {
    query: { group: 'mcp' },
    body: { servers } as never,
    headers: { 'if-match': etag },
  })
}

export async function mcpCommand(args: string[], out: Out, help: string): Promise<number> {
  const parsed = parseCommand(
    args,
    {
      env: { type: 'string', multiple: true },
      cwd: { type: 'string' },
      url: { type: 'string' },
      header: { type: 'string', multiple: true },
      'bearer-token-stdin': { type: 'boolean' },
      'client-id': { type: 'string' },
      'client-secret-stdin': { type: 'boolean' },
      'client-metadata-url': { type: 'string' },
      scope: { type: 'string', multiple: true },
      'callback-port': { type: 'string' },
      manual: { type: 'boolean' },
      'startup-timeout-ms': { type: 'string' },
      'tool-timeout-ms': { type: 'string' },
      json: { type: 'boolean' },
    },
    out,
    help,
    true,
  )
  if (!parsed) return 0
  const { values, positionals } = parsed
  const [verb, name, ...rest] = positionals
  const client = () => HearthClient.fromHome(homeOf(values.home))
  switch (verb) {
    case 'add':
      if (name === undefined) throw new UsageError(ADD_USAGE)
      return addServer(client(), name, rest, values, out)
    case 'list':
      if (name !== undefined) throw new UsageError(`unexpected argument ${name}`)
      return listServers(client(), values.json ?? false, out)
    case 'remove':
      if (name === undefined) throw new UsageError('hearth mcp remove NAME')
      if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`)
      return removeServer(client(), name, out)
    case 'login':
    case 'logout': {
      if (name === undefined || rest.length > 0) throw new UsageError(`hearth mcp ${verb} NAME`)
      const { mcpLogin, mcpLogout } = await import('./mcp-signin.ts')
      return verb === 'login' ? mcpLogin(name, values, out, help) : mcpLogout(client(), name, out)
    }
    case undefined:
      throw new UsageError('hearth mcp needs a command: add, list, remove, login or logout')
    default:
      throw unknownSubcommand('mcp', verb, 'add, list, remove, login or logout')
  }
}

/** `KEY=VALUE` pairs (env) or `Name: value` pairs (headers) as a map. */
function pairs(items: string[] | undefined, separator: '=' | ':', what: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const item of items ?? []) {
    const at = item.indexOf(separator)
    if (at <= 0)
      throw new UsageError(
        `${what} ${JSON.stringify(item)} is not ${separator === '=' ? 'KEY=VALUE' : '"Name: value"'}`,
      )
    out[item.slice(0, at).trim()] = item.slice(at + 1).trim()
  }
  return out
}

function milliseconds(value: unknown, option: string): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`--${option} needs a number of milliseconds`)
  return n
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '')
}

function serverBody(command: string[], values: Record<string, unknown>): Record<string, unknown> {
  const url = values.url as string | undefined
  const local = command.length > 0
  if (local === (url !== undefined))
    throw new UsageError(`a server has a command or a --url, not both\n${ADD_USAGE}`)
  const timeouts = {
    startup_timeout_ms: milliseconds(values['startup-timeout-ms'], 'startup-timeout-ms'),
    tool_timeout_ms: milliseconds(values['tool-timeout-ms'], 'tool-timeout-ms'),
  }
  const body: Record<string, unknown> = Object.fromEntries(
    Object.entries(timeouts).filter(([, v]) => v !== undefined),
  )
  if (local) {
    if (values.header !== undefined || values['bearer-token-stdin'] || oauthBody(values))
      throw new UsageError('--header, --bearer-token-stdin and the sign-in options are for a --url server')
    const env = pairs(values.env as string[] | undefined, '=', '--env')
    return {
      ...body,
      command: command[0],
      args: command.slice(1),
      ...(values.cwd !== undefined ? { cwd: values.cwd } : {}),
      ...(Object.keys(env).length > 0 ? { env } : {}),
    }
  }
  if (values.env !== undefined || values.cwd !== undefined)
    throw new UsageError('--env and --cwd are for a server that runs a command')
  const headers = pairs(values.header as string[] | undefined, ':', '--header')
  const oauth = oauthBody(values)
  return {
    ...body,
    url,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(oauth ? { oauth } : {}),
  }
}

async function addServer(
  client: HearthClient,
  name: string,
  command: string[],
  values: Record<string, unknown>,
  out: Out,
): Promise<number> {
  const body = serverBody(command, values)
  if (values['bearer-token-stdin'] && values['client-secret-stdin'])
    throw new UsageError('standard input holds one secret: --bearer-token-stdin or --client-secret-stdin')
  if (values['bearer-token-stdin']) {
    const token = await readStdin()
    if (token === '') throw new CommandError('no bearer token on standard input')
    body.bearerToken = token
  }
  if (values['client-secret-stdin']) {
    const secret = await readStdin()
    if (secret === '') throw new CommandError('no client secret on standard input')
    body.oauth = { ...(body.oauth as object), client_secret: secret }
  }
  const { etag, servers } = await serversOf(client)
  if (servers[name])
    throw new CommandError(`there is a server named ${name} already; hearth mcp remove ${name} first`)
  await patchServers(client, etag, { [name]: body })
  const secrets = ['env', 'headers', 'bearerToken'].filter((k) => body[k] !== undefined)
  if (values['client-secret-stdin']) secrets.push('client secret')
  out.write(
    `saved MCP server ${name}${secrets.length > 0 ? ` (its ${secrets.join(', ')} in creds.json)` : ''}\n`,
  )
  return 0
}

function targetOf(s: ServerRow): string {
  if (s.url) return s.url
  return [s.command ?? '', ...s.args].map((a) => (/[\s"']/.test(a) ? JSON.stringify(a) : a)).join(' ')
}

function marksOf(s: ServerRow): string {
  const env = Object.keys(s.env)
  const headers = Object.keys(s.headers)
  return [
    s.enabled ? null : 'disabled',
    env.length > 0 ? `env ${env.join(', ')}` : null,
    headers.length > 0 ? `headers ${headers.join(', ')}` : null,
    s.bearerToken ? 'bearer token' : null,
    signInOf(s),
  ]
    .filter(Boolean)
    .join('; ')
}

async function listServers(client: HearthClient, json: boolean, out: Out): Promise<number> {
  const { servers } = await serversOf(client)
  return writeList(out, {
    json,
    value: servers,
    head: ['NAME', 'TRANSPORT', 'COMMAND OR URL', 'SAVED SECRETS / STATE'],
    rows: () =>
      Object.entries(servers).map(([n, s]) => [n, s.url ? 'http' : 'stdio', targetOf(s), marksOf(s)]),
    empty: 'No MCP servers. Add one with hearth mcp add.\n',
  })
}

async function removeServer(client: HearthClient, name: string, out: Out): Promise<number> {
  const { etag, servers } = await serversOf(client)
  if (!servers[name]) throw new CommandError(`no MCP server named ${name}; see hearth mcp list`)
  await patchServers(client, etag, { [name]: null })
  out.write(`removed MCP server ${name} (and its secrets)\n`)
  return 0
}

/** A remote server's sign-in state for the list. */
function signInOf(s: ServerRow): string | null {
  if (!s.oauth) return null
  if (s.oauth.signed_in) return s.oauth.expires_at ? `signed in (expires ${s.oauth.expires_at})` : 'signed in'
  return s.bearerToken ? null : 'not signed in'
}

/** The sign-in options of `add` as the server's `oauth` settings, or null when none is given. */
function oauthBody(values: Record<string, unknown>): Record<string, unknown> | null {
  const port = values['callback-port']
  const oauth = {
    client_id: values['client-id'],
    client_metadata_url: values['client-metadata-url'],
    scopes: values.scope,
    callback_port: port === undefined ? undefined : Number(port),
  }
  if (
    port !== undefined &&
    !(Number.isInteger(oauth.callback_port) && (oauth.callback_port as number) >= 1024)
  )
    throw new UsageError('--callback-port needs a port number from 1024 to 65535')
  if (values['client-secret-stdin'] && !values['client-id'])
    throw new UsageError('--client-secret-stdin goes with --client-id')
  const given = Object.entries(oauth).filter(([, v]) => v !== undefined)
  return given.length > 0 ? Object.fromEntries(given) : null
}
