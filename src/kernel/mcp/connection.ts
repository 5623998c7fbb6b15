// One MCP server of one session, through @modelcontextprotocol/sdk: started (a child process
// over stdio, or a streamable HTTP endpoint), initialized, its tools listed and offered under
// namespaced names, its calls run with the session's abort signal and its progress streamed.
// Loaded by the kernel only when a session has servers (host.ts imports it lazily).
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import {
  ErrorCode,
  McpError,
  ProgressNotificationSchema,
  type Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { BUILD } from '../../build-info.ts'
import { scrub, secretsOf } from '../../mcp/config.ts'
import { mcpToolName, withHash } from '../../mcp/names.ts'
import type { McpOfferedTool, McpRoot, McpServerConfig, McpServerStatus } from '../../mcp/types.ts'
import type { ToolEffect, ToolProgress, ToolResult } from '../../tools/types.ts'
import { type AskToken, ServerAuth, signInReason } from './auth.ts'
import {
  type Asker,
  answerElicitations,
  CallDeadline,
  ELICITATION_CAPABILITY,
  type RunningCall,
} from './elicitation.ts'
import { toToolResult } from './results.ts'
import { ROOTS_CAPABILITY, serveRoots, tellRootsChanged } from './roots.ts'

/** What a connection asks of its session: a signed-in server's token, and the session's roots. */
export interface SessionLink {
  token: AskToken
  roots: () => readonly McpRoot[]
}

/** Characters of a server's stderr kept to explain why it failed or exited. */
const STDERR_TAIL_CHARS = 2000
/** Characters of a failure reason shown on the session. */
const REASON_CHARS = 1000
/** Pages of tools/list read at most (a server that pages forever is cut off). */
const MAX_TOOL_PAGES = 50
/** The SDK's own request timeout, out of the way: a call's timeout is kept here (call). */
const NO_SDK_TIMEOUT_MS = 2_147_483_647

/**
 * A tool runs as a read only when its server says both that it changes nothing
 * (`readOnlyHint`) and that it reaches nothing outside (`openWorldHint: false`); anything
 * else is a command, which the approval policy asks about under `ask`.
 */
export function effectOf(tool: Tool): ToolEffect {
  const a = tool.annotations
  return a?.readOnlyHint === true && a?.openWorldHint === false ? 'read' : 'exec'
}

export class McpConnection {
  readonly config: McpServerConfig
  status: McpServerStatus
  /** The tools offered, by their namespaced name. */
  readonly tools = new Map<string, McpOfferedTool>()
  readonly #client: Client
  readonly #transport: Transport
  readonly #secrets: string[]
  readonly #auth: ServerAuth
  #stderr = ''
  #closing = false
  #calls = 0
  readonly #progress = new Map<string, (p: { progress: number; total?: number; message?: string }) => void>()
  /** Told when a server that was serving goes away (its process exited, its endpoint failed). */
  onExit: (() => void) | undefined
  /** Told when a serving server's tool list changed (`notifications/tools/list_changed`). */
  onChange: (() => void) | undefined
  /** Asks the person what the server wants to know (elicitation.ts); unset answers `cancel`. */
  onElicit: Asker | undefined
  /** Told of a URL interaction's `notifications/elicitation/complete`. */
  onElicitDone: ((elicitationId: string) => void) | undefined
  /** Calls running now, by their progress token, oldest first. */
  readonly #running = new Map<string, RunningCall>()

  constructor(config: McpServerConfig, link: SessionLink) {
    this.config = config
    this.#secrets = secretsOf(config)
    this.#auth = new ServerAuth(config.transport === 'http' && config.oauth ? link.token : null)
    this.status = {
      name: config.name,
      transport: config.transport,
      state: 'starting',
      reason: null,
      since: new Date().toISOString(),
      tools: [],
      sign_in: null,
    }
    this.#client = new Client(
      { name: 'hearth', version: BUILD },
      { capabilities: { ...ROOTS_CAPABILITY, elicitation: ELICITATION_CAPABILITY } },
    )
    serveRoots(this.#client, link.roots)
    answerElicitations(this.#client, {
      running: () => [...this.#running.values()],
      asker: () => this.onElicit,
      completed: (id) => this.onElicitDone?.(id),
    })
    this.#transport = this.#newTransport()
    this.#client.onclose = () => this.#closed()
    this.#client.setNotificationHandler(ProgressNotificationSchema, (n) => this.#onProgress(n.params))
  }

  #newTransport(): Transport {
    const c = this.config
    if (c.transport === 'stdio') {
      // The child gets only the SDK's short list of safe variables (HOME, PATH, USER…) and its
      // own: never hearth's token, provider keys or other servers' secrets.
      const t = new StdioClientTransport({
        command: c.command,
        args: c.args,
        env: c.env,
        cwd: c.cwd ?? undefined,
        stderr: 'pipe',
      })
      t.stderr?.on('data', (chunk: Buffer) => {
        this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS)
      })
      return t
    }
    const headers: Record<string, string> = { ...c.headers }
    if (c.bearer_token) headers.Authorization = `Bearer ${c.bearer_token}`
    return new StreamableHTTPClientTransport(new URL(c.url), {
      requestInit: { headers },
      fetch: this.#auth.fetch,
      // A server that went away is reported, not retried for minutes.
      reconnectionOptions: {
        initialReconnectionDelay: 1000,
        maxReconnectionDelay: 5000,
        reconnectionDelayGrowFactor: 2,
        maxRetries: 2,
      },
    })
  }

  /** Connects, initializes and lists the tools, within the startup timeout. */
  async start(): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`it did not start within ${this.config.startup_timeout_ms} ms`)),
        this.config.startup_timeout_ms,
      )
    })
    try {
      await Promise.race([this.#connectAndList(), timeout])
      this.#set('ready', null)
    } catch (err) {
      this.#set('failed', this.#reason('it failed to start', err))
      await this.close()
    } finally {
      clearTimeout(timer)
    }
  }

  async #connectAndList(): Promise<void> {
    await this.#client.connect(this.#transport, { timeout: this.config.startup_timeout_ms })
    await this.#listTools()
    // A server that says its tools change tells when: the next model request offers the new list.
    if (this.#client.getServerCapabilities()?.tools?.listChanged)
      this.#client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.#toolsChanged())
  }

  async #toolsChanged(): Promise<void> {
    if (this.status.state !== 'ready') return
    try {
      await this.#listTools()
      this.#set('ready', null)
      this.onChange?.()
    } catch {
      // The connection failing is reported by its close; the last list stays meanwhile.
    }
  }

  async #listTools(): Promise<void> {
    const listed: Tool[] = []
    let cursor: string | undefined
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const r = await this.#client.listTools(cursor ? { cursor } : {}, {
        timeout: this.config.startup_timeout_ms,
      })
      listed.push(...r.tools)
      cursor = r.nextCursor
      if (!cursor) break
    }
    const { enabled_tools: only, disabled_tools: never } = this.config
    this.tools.clear()
    for (const tool of listed) {
      if (only && !only.includes(tool.name)) continue
      if (never.includes(tool.name)) continue
      let name = mcpToolName(this.config.name, tool.name)
      // Two tool names that differ only in characters a provider refuses.
      if (this.tools.has(name)) name = withHash(name, `${this.config.name}\0${tool.name}`)
      const { $schema: _draft, ...parameters } = tool.inputSchema as Record<string, unknown>
      this.tools.set(name, {
        name,
        tool: tool.name,
        description: tool.description || tool.title || `${tool.name} (MCP server ${this.config.name})`,
        parameters,
        effect: effectOf(tool),
      })
    }
  }

  #set(state: McpServerStatus['state'], reason: string | null): void {
    // Left out because it refused hearth: what to do is the reason, whatever failed next.
    const signIn = state !== 'ready' && state !== 'starting' && this.#auth.signInRequired
    this.status = {
      ...this.status,
      state: signIn ? 'failed' : state,
      reason: signIn ? signInReason(this.config.name) : reason,
      since: new Date().toISOString(),
      tools: state === 'ready' ? [...this.tools.values()] : [],
      sign_in: signIn ? 'required' : null,
    }
  }

  /** The session's roots changed: a serving server is told (it lists them again when it wants). */
  rootsChanged(): void {
    if (this.status.state === 'ready') tellRootsChanged(this.#client)
  }

  /** Its secrets from settings and the access tokens it was given. */
  get #allSecrets(): string[] {
    return [...this.#secrets, ...this.#auth.seen]
  }

  /** Why, in a sentence, with the server's last stderr lines; never one of its secrets. */
  #reason(what: string, err?: unknown): string {
    const message = err === undefined ? '' : `: ${(err as Error)?.message ?? String(err)}`
    const stderr = this.#stderr.trim()
    const tail = stderr ? ` (stderr: ${stderr.split('\n').slice(-5).join(' | ')})` : ''
    return scrub(`${what}${message}${tail}`, this.#allSecrets).slice(0, REASON_CHARS)
  }

  #closed(): void {
    if (this.#closing || this.status.state !== 'ready') return
    // stderr may still hold the last words of a process that just exited.
    setImmediate(() => {
      if (this.status.state !== 'ready') return
      this.#set('exited', this.#reason('the server exited'))
      this.onExit?.()
    })
  }

  /** One call of one of its tools, by the namespaced name. */
  async call(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    progress: (c: ToolProgress) => void,
    callId: string | null = null,
  ): Promise<ToolResult> {
    const tool = this.tools.get(name)
    if (!tool) return { outcome: 'error', output: `No tool ${name}` }
    const meta = { server: this.config.name, tool: tool.tool }
    if (this.status.state !== 'ready')
      return {
        outcome: 'error',
        output: `The MCP server ${this.config.name} is not running (${this.status.reason ?? this.status.state}); its tools cannot be used in this session now.`,
        meta,
      }
    const token = `hearth-${++this.#calls}`
    const deadline = new CallDeadline(this.config.tool_timeout_ms)
    this.#running.set(token, { callId, deadline })
    this.#progress.set(token, (p) => {
      // Progress shows the call is alive: its timeout starts again.
      deadline.restart()
      const of = p.total === undefined ? '' : `/${p.total}`
      progress({ stream: 'stdout', text: `[${p.progress}${of}] ${p.message ?? ''}\n` })
    })
    try {
      const result = await this.#client.callTool(
        { name: tool.tool, arguments: args, _meta: { progressToken: token } },
        undefined,
        // Aborting (an interrupt, the timeout) sends notifications/cancelled to the server.
        { signal: AbortSignal.any([signal, deadline.signal]), timeout: NO_SDK_TIMEOUT_MS },
      )
      return toToolResult(result, meta, this.#allSecrets)
    } catch (err) {
      return this.#callFailed(err, signal, deadline.signal, meta)
    } finally {
      deadline.clear()
      this.#running.delete(token)
      this.#progress.delete(token)
    }
  }

  /**
   * Progress of this connection's calls, by the token each call sent. The SDK's own progress
   * handling drops a notification that arrives in the same read as its call's response (it
   * forgets the call's handler before the notification is handled), so the last progress
   * of a quick call was lost; here a call's handler lives until its result has been taken.
   */
  #onProgress(p: {
    progressToken: string | number
    progress: number
    total?: number
    message?: string
  }): void {
    this.#progress.get(String(p.progressToken))?.(p)
  }

  #callFailed(
    err: unknown,
    signal: AbortSignal,
    deadline: AbortSignal,
    meta: Record<string, unknown>,
  ): ToolResult {
    if (signal.aborted) return { outcome: 'interrupted', output: 'The call was interrupted.', meta }
    if (deadline.aborted || (err instanceof McpError && err.code === ErrorCode.RequestTimeout))
      return {
        outcome: 'timeout',
        output: `The MCP server ${this.config.name} did not answer within ${this.config.tool_timeout_ms} ms.`,
        meta,
      }
    if (err instanceof McpError && err.code !== ErrorCode.ConnectionClosed)
      return { outcome: 'error', output: scrub(err.message, this.#allSecrets), meta }
    // The connection itself failed: the process exited or the endpoint went away.
    if (this.status.state === 'ready') {
      this.#set('exited', this.#reason('the server stopped answering', err))
      this.onExit?.()
    }
    return {
      outcome: 'error',
      output: `The MCP server ${this.config.name} stopped answering: ${this.status.reason}`,
      meta,
    }
  }

  async close(): Promise<void> {
    this.#closing = true
    await this.#client.close().catch(() => {})
  }
}
