// A remote server's sign-in settings: config.json `mcp.servers.<name>.oauth` (a client id
// registered beforehand, a client id metadata document's URL, the scopes to ask for, a fixed
// callback port) and the client secret of a registered client in creds.json
// `mcp.<name>.client_secret` (write-only).
import type { FileContents } from '../../settings/files.ts'
import { isObject, objectAt } from '../../settings/merge.ts'

export interface McpOAuthSettings {
  client_id: string | null
  client_secret: string | null
  client_metadata_url: string | null
  scopes: string[] | null
  callback_port: number | null
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null)

export function oauthSettingsOf(files: FileContents, server: string): McpOAuthSettings {
  const stored = objectAt(objectAt(objectAt(files['config.json'], 'mcp'), 'servers'), server)
  const o = objectAt(stored, 'oauth')
  const secrets = objectAt(objectAt(files['creds.json'], 'mcp'), server)
  return {
    client_id: str(o.client_id),
    client_secret: str(secrets.client_secret),
    client_metadata_url: str(o.client_metadata_url),
    scopes: Array.isArray(o.scopes) ? o.scopes.filter((s): s is string => typeof s === 'string') : null,
    callback_port: typeof o.callback_port === 'number' ? o.callback_port : null,
  }
}

/** The remote servers of settings (the ones a person can sign in to), with their URLs. */
export function remoteServersOf(files: FileContents): Map<string, string> {
  const servers = objectAt(objectAt(files['config.json'], 'mcp'), 'servers')
  return new Map(
    Object.entries(servers).flatMap(([name, s]) =>
      isObject(s) && typeof s.url === 'string' ? [[name, s.url] as [string, string]] : [],
    ),
  )
}

/** The local (command) servers of settings. */
export function localServersOf(files: FileContents): string[] {
  const servers = objectAt(objectAt(files['config.json'], 'mcp'), 'servers')
  return Object.entries(servers).flatMap(([name, s]) =>
    isObject(s) && typeof s.command === 'string' ? [name] : [],
  )
}
