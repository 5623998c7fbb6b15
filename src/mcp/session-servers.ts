// A session's own MCP servers: the list a client (an editor speaking ACP) gives one session,
// loaded by that session's kernel beside the servers of settings group `mcp`. The list lives
// in the daemon's memory only: the secrets an editor passes (environment variables, headers)
// are never written to settings, the store, an event or the log, and a read names them only.
// A restart forgets the lists; the client gives them again when it loads the session.
import { HearthError } from '../schemas/problems.ts'
import type { SessionMcpServer, SessionMcpServers } from '../schemas/session-mcp.ts'
import { DEFAULT_STARTUP_TIMEOUT_MS, DEFAULT_TOOL_TIMEOUT_MS } from './config.ts'
import type { McpServerConfig } from './types.ts'

export class SessionMcpServerLists {
  readonly #bySession = new Map<string, McpServerConfig[]>()

  /** Replaces the session's list (an empty list forgets it). Two servers of one name: 400. */
  replace(sessionId: string, servers: readonly SessionMcpServer[]): void {
    const names = new Set<string>()
    for (const s of servers) {
      if (names.has(s.name)) throw new HearthError('invalid_request', `Two servers are named ${s.name}`)
      names.add(s.name)
    }
    if (servers.length === 0) this.#bySession.delete(sessionId)
    else this.#bySession.set(sessionId, servers.map(configOf))
  }

  /**
   * The servers the session's kernel loads beside the settings' (secrets included); a local
   * one runs in the session's workspace as it is at the load.
   */
  of(sessionId: string, workspace: string | null = null): McpServerConfig[] {
    return (this.#bySession.get(sessionId) ?? []).map((s) =>
      s.transport === 'stdio' ? { ...s, cwd: workspace } : s,
    )
  }

  forget(sessionId: string): void {
    this.#bySession.delete(sessionId)
  }

  /** The list as a read shows it: secrets by name only. */
  view(sessionId: string): SessionMcpServers {
    return { session_id: sessionId, servers: this.of(sessionId).map(viewOf) }
  }
}

function configOf(s: SessionMcpServer): McpServerConfig {
  const common = {
    name: s.name,
    startup_timeout_ms: DEFAULT_STARTUP_TIMEOUT_MS,
    tool_timeout_ms: DEFAULT_TOOL_TIMEOUT_MS,
    enabled_tools: null,
    disabled_tools: [],
  }
  if ('command' in s)
    return {
      ...common,
      transport: 'stdio',
      command: s.command,
      args: s.args ?? [],
      cwd: null,
      env: s.env ?? {},
    }
  return {
    ...common,
    transport: 'http',
    url: s.url,
    headers: s.headers ?? {},
    bearer_token: null,
    oauth: null,
  }
}

const saved = (names: string[]) => Object.fromEntries(names.map((n) => [n, { saved: true as const }]))

/** A URL without user info, query or fragment (either may carry a token). */
function bareUrl(url: string): string {
  try {
    const u = new URL(url)
    return `${u.protocol}//${u.host}${u.pathname}`
  } catch {
    return ''
  }
}

function viewOf(s: McpServerConfig): SessionMcpServers['servers'][number] {
  if (s.transport === 'stdio')
    return {
      name: s.name,
      transport: 'stdio',
      command: s.command,
      url: null,
      env: saved(Object.keys(s.env)),
      headers: {},
    }
  return {
    name: s.name,
    transport: 'http',
    command: null,
    url: bareUrl(s.url),
    env: {},
    headers: saved(Object.keys(s.headers)),
  }
}

/**
 * The servers a session loads: the settings' (already filtered by its selection) with the
 * session's own over any of the same name, the editor's choice for this session.
 */
export function withSessionServers(
  fromSettings: McpServerConfig[],
  own: McpServerConfig[],
): McpServerConfig[] {
  if (own.length === 0) return fromSettings
  const names = new Set(own.map((s) => s.name))
  return [...fromSettings.filter((s) => !names.has(s.name)), ...own]
}
