// The MCP servers of the sessions a kernel process hosts: per session, one connection per
// server the daemon asked for (`mcp_load`). A load keeps the servers whose configuration
// is unchanged, closes those removed or changed and starts the new ones, then reports every
// server's state (`mcp_state`); a server that fails to start or exits later is reported
// with its reason and the session goes on without it. A signed-in server's token is asked
// of the daemon when the connection needs it (auth.ts); the session's roots come with each
// load and with `mcp_roots` (a workspace move), and every server is told when they change
// (roots.ts). The SDK is loaded only when a session has servers, so kernels of sessions
// without any never pay for it.
import { createHash } from 'node:crypto'
import { MCP_PREFIX } from '../../mcp/names.ts'
import type { McpRoot, McpServerConfig, McpServerStatus } from '../../mcp/types.ts'
import type { ToolEffect, ToolProgress, ToolResult } from '../../tools/types.ts'
import type { FromKernel, ToKernel } from '../protocol.ts'
import { TokenRequests } from './auth.ts'
import type { McpConnection } from './connection.ts'
import { ElicitBroker } from './elicit-broker.ts'

type Send = (msg: FromKernel) => void

interface Server {
  /** Hash of the whole configuration, secrets included: a change restarts the server. */
  fingerprint: string
  conn: McpConnection
  started: Promise<void>
}

type ClientModule = typeof import('./connection.ts')
let client: Promise<ClientModule> | undefined
/**
 * The MCP client, a bundle of its own beside the kernel's (scripts/build.mjs), loaded the
 * first time a session of this process has servers.
 */
function loadClient(): Promise<ClientModule> {
  client ??= import(new URL('./kernel-mcp.mjs', import.meta.url).href) as Promise<ClientModule>
  return client
}

/** The start of every namespaced name of a server's tools (as mcpToolName writes them). */
const namespacePrefix = (server: string) => `${MCP_PREFIX}${server}__`.replace(/[^A-Za-z0-9_-]/g, '_')

/** Two lists of roots alike (roots.ts is the client bundle's, not the kernel's: the SDK stays out). */
const sameRoots = (a: readonly McpRoot[] | undefined, b: readonly McpRoot[]) =>
  JSON.stringify(a ?? []) === JSON.stringify(b)

const fingerprintOf = (c: McpServerConfig) => createHash('sha256').update(JSON.stringify(c)).digest('hex')

/** Characters of a call's arguments shown in its summary. */
const SUMMARY_ARGS_CHARS = 160

export class McpHost {
  readonly #send: Send
  readonly #sessions = new Map<string, Map<string, Server>>()
  /** Loads of a session run one after another. */
  readonly #queue = new Map<string, Promise<void>>()
  /** Each session's roots, as the daemon last sent them. */
  readonly #roots = new Map<string, McpRoot[]>()
  readonly #tokens: TokenRequests
  /** The questions the servers ask the person, on their way to the daemon and back. */
  readonly elicitations: ElicitBroker

  constructor(send: Send) {
    this.#send = send
    this.#tokens = new TokenRequests(send)
    this.elicitations = new ElicitBroker(send)
  }

  /** The daemon's answer to a token request. */
  tokenAnswered(msg: Extract<ToKernel, { type: 'mcp_token' }>): void {
    this.#tokens.answered(msg)
  }

  /** The session's roots are these now: its running servers are told when they changed. */
  rootsChanged(sessionId: string, roots: McpRoot[]): void {
    if (sameRoots(this.#roots.get(sessionId), roots)) return
    this.#roots.set(sessionId, roots)
    for (const s of this.#sessions.get(sessionId)?.values() ?? []) s.conn.rootsChanged()
  }

  /** Brings the session's servers to `configs`, then reports their states. */
  load(
    sessionId: string,
    loadId: number,
    configs: McpServerConfig[],
    roots: McpRoot[],
    retry = false,
  ): Promise<void> {
    // In the order the messages came: a later `mcp_roots` is newer than this load's.
    this.rootsChanged(sessionId, roots)
    const before = this.#queue.get(sessionId) ?? Promise.resolve()
    const next = before.then(() => this.#load(sessionId, loadId, configs, retry)).catch(() => {})
    this.#queue.set(sessionId, next)
    void next.then(() => {
      if (this.#queue.get(sessionId) === next) this.#queue.delete(sessionId)
    })
    return next
  }

  async #load(sessionId: string, loadId: number, configs: McpServerConfig[], retry: boolean): Promise<void> {
    const servers = this.#sessions.get(sessionId) ?? new Map<string, Server>()
    const wanted = new Map(configs.map((c) => [c.name, c]))
    const closing: Promise<void>[] = []
    for (const [name, s] of servers) {
      const want = wanted.get(name)
      const quarantined = s.conn.status.state === 'failed' || s.conn.status.state === 'exited'
      if (want && fingerprintOf(want) === s.fingerprint && !(retry && quarantined)) continue
      servers.delete(name)
      closing.push(s.conn.close())
    }
    if (configs.length > 0) {
      const { McpConnection } = await loadClient()
      for (const c of configs) {
        if (servers.has(c.name)) continue
        const conn = new McpConnection(c, {
          token: (rejected) => this.#tokens.ask(sessionId, c.name, rejected),
          roots: () => this.#roots.get(sessionId) ?? [],
        })
        conn.onExit = () => this.#report(sessionId)
        conn.onChange = () => this.#report(sessionId)
        const where = { session_id: sessionId, server: c.name }
        conn.onElicit = (callId, params, signal) =>
          this.elicitations.ask({ ...where, call_id: callId }, params, signal)
        conn.onElicitDone = (id) => this.elicitations.completed(where, id)
        servers.set(c.name, { fingerprint: fingerprintOf(c), conn, started: conn.start() })
      }
    }
    if (servers.size > 0) this.#sessions.set(sessionId, servers)
    else this.#sessions.delete(sessionId)
    await Promise.all([...closing, ...[...servers.values()].map((s) => s.started)])
    this.#report(sessionId, loadId)
  }

  #report(sessionId: string, loadId?: number): void {
    const servers = [...(this.#sessions.get(sessionId)?.values() ?? [])]
    const status: McpServerStatus[] = servers.map((s) => s.conn.status)
    this.#send({
      type: 'mcp_state',
      session_id: sessionId,
      ...(loadId === undefined ? {} : { load_id: loadId }),
      servers: status,
    })
  }

  /** The running server serving a namespaced tool name in this session. */
  #serverOf(sessionId: string, name: string): McpConnection | undefined {
    for (const s of this.#sessions.get(sessionId)?.values() ?? [])
      if (s.conn.status.state === 'ready' && s.conn.tools.has(name)) return s.conn
    return undefined
  }

  /** What a call of this tool would do, for the check; undefined when no server has it. */
  describe(
    sessionId: string,
    name: string,
  ): { effect: ToolEffect; server: string; tool: string } | undefined {
    const conn = this.#serverOf(sessionId, name)
    const tool = conn?.tools.get(name)
    if (!conn || !tool) return undefined
    return { effect: tool.effect, server: conn.config.name, tool: tool.tool }
  }

  /** `server: tool {arguments}`, cut to one short line. */
  summarize(sessionId: string, name: string, args: unknown): string {
    const d = this.describe(sessionId, name)
    const shown = JSON.stringify(args) ?? ''
    const cut = shown.length > SUMMARY_ARGS_CHARS ? `${shown.slice(0, SUMMARY_ARGS_CHARS)}…` : shown
    return `${d?.server ?? 'mcp'}: ${d?.tool ?? name} ${cut}`
  }

  /** The tool names this session's servers offer now. */
  names(sessionId: string): string[] {
    const out: string[] = []
    for (const s of this.#sessions.get(sessionId)?.values() ?? [])
      if (s.conn.status.state === 'ready') out.push(...s.conn.tools.keys())
    return out
  }

  call(
    sessionId: string,
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    progress: (c: ToolProgress) => void,
    callId: string | null = null,
  ): Promise<ToolResult> {
    const conn = this.#serverOf(sessionId, name)
    if (!conn) return Promise.resolve({ outcome: 'error', output: this.noSuchTool(sessionId, name) })
    return conn.call(name, args, signal, progress, callId)
  }

  /**
   * Why no server takes this name, so the model can choose again: the server it names is
   * not running, or runs without such a tool (its tools are listed), or there is no such
   * server (the running servers' tools are listed).
   */
  noSuchTool(sessionId: string, name: string): string {
    const servers = [...(this.#sessions.get(sessionId)?.values() ?? [])].map((s) => s.conn)
    // The longest matching prefix wins, should one server's name start another's.
    const named = servers
      .filter((c) => name.startsWith(namespacePrefix(c.config.name)))
      .sort((a, b) => b.config.name.length - a.config.name.length)[0]
    if (named && named.status.state !== 'ready') {
      const why = named.status.reason ?? named.status.state
      return `No tool ${name}: its MCP server is not running in this session (${named.config.name}: ${why})`
    }
    if (named) {
      const tools = [...named.tools.keys()].join(', ') || 'none'
      return `No tool ${name}: the MCP server ${named.config.name} has no such tool. Its tools: ${tools}`
    }
    const tools = this.names(sessionId).join(', ') || 'none'
    return `No tool ${name}: no MCP server of this session offers it. The MCP tools: ${tools}`
  }

  /** The session left this process (released, moved or deleted): its servers stop. */
  async close(sessionId: string): Promise<void> {
    const servers = this.#sessions.get(sessionId)
    this.#sessions.delete(sessionId)
    this.#roots.delete(sessionId)
    await Promise.all([...(servers?.values() ?? [])].map((s) => s.conn.close()))
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.#sessions.keys()].map((id) => this.close(id)))
  }
}
