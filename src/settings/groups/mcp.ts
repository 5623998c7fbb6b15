// Group `mcp`: MCP servers in config.json `mcp.servers`, their secrets (`env`, `headers`,
// `bearerToken`, a sign-in's `client_secret`) in creds.json `mcp.<server>`. A local server
// has `command` (with args, cwd, env); a remote one has `url` (with headers, bearerToken,
// and `oauth`: its sign-in settings). A sign-in's tokens (creds.json `mcp.<server>.oauth`,
// written by the sign-in and its refresh, never by a PATCH) read only as presence.
import { HearthError } from '../../schemas/problems.ts'
import type { FileContents, JsonObject } from '../files.ts'
import { isObject, mergePatch, objectAt, SAVED, setOrDrop } from '../merge.ts'
import { copyFiles, type GroupCodec } from './types.ts'

const serversOf = (config: JsonObject) => objectAt(objectAt(config, 'mcp'), 'servers')

/** A remote server's sign-in: its settings, and whether tokens are saved (never the tokens). */
function readOAuth(stored: JsonObject, secrets: JsonObject) {
  const o = objectAt(stored, 'oauth')
  const tokens = objectAt(objectAt(secrets, 'oauth'), 'tokens')
  const signedIn = typeof tokens.access_token === 'string'
  const at = (v: unknown) => (typeof v === 'string' ? v : null)
  return {
    client_id: at(o.client_id),
    client_metadata_url: at(o.client_metadata_url),
    scopes: Array.isArray(o.scopes) ? o.scopes : null,
    callback_port: typeof o.callback_port === 'number' ? o.callback_port : null,
    client_secret: typeof secrets.client_secret === 'string' ? SAVED : null,
    signed_in: signedIn,
    expires_at:
      signedIn && typeof tokens.expires_at === 'number' ? new Date(tokens.expires_at).toISOString() : null,
    scope: signedIn ? at(tokens.scope) : null,
  }
}

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
    oauth: typeof stored.url === 'string' ? readOAuth(stored, secrets) : null,
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
      const { env, headers, bearerToken, oauth, ...fields } = change
      const own = objectAt(secrets, name)
      servers[name] = mergePatch(objectAt(servers, name), { ...fields, ...oauthSettings(oauth, own) })
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
    checkOAuth(candidate)
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

/**
 * The public part of an `oauth` patch for config.json; its `client_secret` goes to
 * `own` (creds.json). null removes both.
 */
function oauthSettings(patch: unknown, own: JsonObject): JsonObject {
  if (patch === undefined) return {}
  if (patch === null) {
    delete own.client_secret
    return { oauth: null }
  }
  const { client_secret, ...fields } = patch as JsonObject
  if (client_secret === null) delete own.client_secret
  else if (client_secret !== undefined) own.client_secret = client_secret
  return { oauth: fields }
}

/** Sign-in settings belong to a remote server. */
function checkOAuth(candidate: FileContents): void {
  const secrets = objectAt(candidate['creds.json'], 'mcp')
  for (const [name, s] of Object.entries(serversOf(candidate['config.json']))) {
    if (!isObject(s) || typeof s.command !== 'string') continue
    if (s.oauth !== undefined || objectAt(secrets, name).client_secret !== undefined)
      throw new HearthError('invalid_settings', `server ${name} runs a command: oauth applies only to a url`)
  }
}
