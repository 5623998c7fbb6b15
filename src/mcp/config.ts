// The MCP servers a session uses, from settings group `mcp` (config.json `mcp.servers`) with
// their secrets from creds.json `mcp.<name>`: read when a run starts, so a run uses the
// servers as the settings are then. Disabled servers are left out, and a session's
// `selection.mcp` entry for a server wins over its `enabled`.
import { realpathSync } from 'node:fs'
import { basename, isAbsolute, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { FileContents, JsonObject } from '../settings/files.ts'
import { isObject, objectAt } from '../settings/merge.ts'
import type { Settings } from '../settings/service.ts'
import { tokensOf } from './oauth/record.ts'
import type { McpRoot, McpServerConfig } from './types.ts'

/** A server's start (spawn or connect, initialize, list its tools) may take this long. */
export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000
/** One tool call may take this long unless it reports progress. */
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x) => typeof x === 'string') : [])

function stringMap(v: unknown): Record<string, string> {
  if (!isObject(v)) return {}
  return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'))
}

function serverOf(
  name: string,
  s: JsonObject,
  secrets: JsonObject,
  workspace: string,
  signedInAt: string | null,
): McpServerConfig | null {
  const common = {
    name,
    startup_timeout_ms:
      typeof s.startup_timeout_ms === 'number' ? s.startup_timeout_ms : DEFAULT_STARTUP_TIMEOUT_MS,
    tool_timeout_ms: typeof s.tool_timeout_ms === 'number' ? s.tool_timeout_ms : DEFAULT_TOOL_TIMEOUT_MS,
    enabled_tools: Array.isArray(s.enabled_tools) ? strings(s.enabled_tools) : null,
    disabled_tools: strings(s.disabled_tools),
  }
  if (typeof s.command === 'string') {
    // A local server runs in the session's workspace (a relative cwd is taken from there).
    const cwd =
      typeof s.cwd === 'string' ? (isAbsolute(s.cwd) ? s.cwd : resolve(workspace, s.cwd)) : workspace
    return {
      ...common,
      transport: 'stdio',
      command: s.command,
      args: strings(s.args),
      cwd,
      env: stringMap(secrets.env),
    }
  }
  if (typeof s.url === 'string')
    return {
      ...common,
      transport: 'http',
      url: s.url,
      headers: stringMap(secrets.headers),
      bearer_token: typeof secrets.bearerToken === 'string' ? secrets.bearerToken : null,
      oauth: signedInAt,
    }
  return null
}

/**
 * The servers a session loads, ready to hand to a kernel (secrets included): those enabled
 * in settings, unless the session's `selection.mcp` entry for a server says otherwise.
 */
export function mcpServersOf(
  files: FileContents,
  workspace: string,
  selection: Record<string, boolean> = {},
): McpServerConfig[] {
  const servers = objectAt(objectAt(files['config.json'], 'mcp'), 'servers')
  const secrets = objectAt(files['creds.json'], 'mcp')
  const out: McpServerConfig[] = []
  for (const [name, s] of Object.entries(servers)) {
    if (!isObject(s) || !(selection[name] ?? s.enabled !== false)) continue
    // Only the sign-in's generation crosses to the kernel: the token is asked for apart.
    const signedInAt = tokensOf(files, name)?.signed_in_at ?? null
    const server = serverOf(name, s, objectAt(secrets, name), workspace, signedInAt)
    if (server) out.push(server)
  }
  return out
}

/** The servers as the settings are now; an unreadable config.json reads as none (GET /settings reports it). */
export function mcpServersOfSettings(
  settings: Settings,
  workspace: string,
  selection: Record<string, boolean> = {},
): McpServerConfig[] {
  try {
    return mcpServersOf(settings.files(), workspace, selection)
  } catch {
    return []
  }
}

/** Every secret value of the servers, so messages about them can be scrubbed of each. */
export function secretsOf(server: McpServerConfig): string[] {
  const values =
    server.transport === 'stdio'
      ? Object.values(server.env)
      : [...Object.values(server.headers), ...(server.bearer_token ? [server.bearer_token] : [])]
  // Very short values would scrub ordinary words; a secret that short protects nothing.
  return values.filter((v) => v.length >= 4)
}

/** `text` with each secret replaced. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text
  for (const s of secrets) out = out.split(s).join('[redacted]')
  return out
}

/**
 * The session's roots as its servers are offered them: the workspace, then the allowed
 * roots (settings `tools.allowed_roots`), each once, as `file://` URIs named by their folder.
 */
export function mcpRootsOf(workspace: string, allowedRoots: readonly string[]): McpRoot[] {
  const paths = [...new Set([workspace, ...allowedRoots].map(realPath))]
  return paths.map((p) => ({ uri: pathToFileURL(p).href, name: basename(p) || p }))
}

/** The path with its links resolved, as file tools see it (a path that is gone stays as given). */
function realPath(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    return p
  }
}
