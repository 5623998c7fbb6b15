// Group `mcp`: MCP servers in config.json `mcp.servers`, their secrets (`env`, `headers`,
// `bearerToken`) in creds.json `mcp.<server>`. A local server has `command` (with args,
// cwd, env); a remote one has `url` (with headers, bearerToken).
import { HearthError } from '../../schemas/problems.ts'
import type { JsonObject } from '../files.ts'
import { isObject, mergePatch, objectAt, SAVED, setOrDrop } from '../merge.ts'
import { copyFiles, type GroupCodec } from './types.ts'

const serversOf = (config: JsonObject) => objectAt(objectAt(config, 'mcp'), 'servers')

function readServer(stored: JsonObject, secrets: JsonObject) {
  const presence = (map: unknown) =>
    Object.fromEntries(Object.keys(isObject(map) ? map : {}).map((k) => [k, SAVED]))
  return {
    command: typeof stored.command === 'string' ? stored.command : null,
    args: Array.isArray(stored.args) ? stored.args : [],
    cwd: typeof stored.cwd === 'string' ? stored.cwd : null,
    url: typeof stored.url === 'string' ? stored.url : null,
    enabled: stored.enabled !== false,
    startup_timeout_ms: stored.startup_timeout_ms ?? null,
    tool_timeout_ms: stored.tool_timeout_ms ?? null,
    enabled_tools: Array.isArray(stored.enabled_tools) ? stored.enabled_tools : null,
    disabled_tools: Array.isArray(stored.disabled_tools) ? stored.disabled_tools : [],
    env: presence(secrets.env),
    headers: presence(secrets.headers),
    bearerToken: typeof secrets.bearerToken === 'string' ? SAVED : null,
  }
}

export const mcp: GroupCodec = {
  read(files) {
    const secrets = objectAt(files['creds.json'], 'mcp')
    const servers = Object.entries(serversOf(files['config.json'])).filter(([, s]) => isObject(s))
    return {
      servers: Object.fromEntries(
        servers.map(([name, s]) => [name, readServer(s as JsonObject, objectAt(secrets, name))]),
      ),
    }
  },

  apply(files, patch) {
    const next = copyFiles(files)
    const pub = objectAt(next['config.json'], 'mcp')
    const servers = objectAt(pub, 'servers')
    const secrets = objectAt(next['creds.json'], 'mcp')
    for (const [name, change] of Object.entries((patch.servers ?? {}) as Record<string, JsonObject | null>)) {
      if (change === null) {
        delete servers[name]
        delete secrets[name]
        continue
      }
      const { env, headers, bearerToken, ...fields } = change
      servers[name] = mergePatch(objectAt(servers, name), fields)
      const own = objectAt(secrets, name)
      for (const [key, value] of [
        ['env', env],
        ['headers', headers],
      ] as const) {
        if (value === undefined) continue
        setOrDrop(own, key, value === null ? {} : (mergePatch(objectAt(own, key), value) as JsonObject))
      }
      if (bearerToken === null) delete own.bearerToken
      else if (bearerToken !== undefined) own.bearerToken = bearerToken
      setOrDrop(secrets, name, own)
    }
    setOrDrop(pub, 'servers', servers)
    setOrDrop(next['config.json'], 'mcp', pub)
    setOrDrop(next['creds.json'], 'mcp', secrets)
    return next
  },

  check(candidate) {
    const secrets = objectAt(candidate['creds.json'], 'mcp')
    const bad = (detail: string) => new HearthError('invalid_settings', detail)
    for (const [name, s] of Object.entries(serversOf(candidate['config.json']))) {
      if (!isObject(s)) throw bad(`server ${name} is not an object`)
      const local = typeof s.command === 'string'
      const remote = typeof s.url === 'string'
      if (local === remote) throw bad(`server ${name} needs exactly one of command (local) or url (remote)`)
      const own = objectAt(secrets, name)
      if (local && (Object.keys(objectAt(own, 'headers')).length > 0 || own.bearerToken !== undefined))
        throw bad(`server ${name} runs a command: headers and bearerToken apply only to a url`)
      if (
        remote &&
        (Object.keys(objectAt(own, 'env')).length > 0 || s.args !== undefined || s.cwd !== undefined)
      )
        throw bad(`server ${name} is a url: env, args and cwd apply only to a command`)
    }
  },
}
