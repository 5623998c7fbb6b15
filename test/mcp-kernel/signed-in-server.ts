// A real MCP server (the SDK's McpServer over StreamableHTTPServerTransport, with sessions so
// that it can ask the client for its roots) on a loopback port, guarded like a signed-in
// remote server: a request without one of the accepted bearer tokens gets 401 with a
// WWW-Authenticate challenge. It records the tokens it was sent, the roots it listed (in a
// call of its `roots` tool, and on its own after each `notifications/roots/list_changed`)
// and those notifications.
import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { ListRootsResultSchema, RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { fakeMcpServer } from '../fakes/mcp/tools.ts'

export interface Listed {
  uri: string
  name?: string
}

export class SignedInMcpServer {
  readonly #server: Server
  readonly url: string
  /** Bearer tokens it takes now (a test changes them: a token revoked, another issued). */
  readonly accepted = new Set<string>()
  /** The Authorization header of every request (absent: ''). */
  readonly authorizations: string[] = []
  /** Requests refused with 401. */
  refused = 0
  /** Each `roots/list` answer, in order. */
  readonly rootLists: Listed[][] = []
  /** `notifications/roots/list_changed` received. */
  rootsChanged = 0
  /** The authorization server its protected resource metadata names (RFC 9728), when set. */
  authorizationServer: string | null = null
  #waiters: (() => void)[] = []

  private constructor(server: Server, url: string) {
    this.#server = server
    this.url = url
  }

  static async start(): Promise<SignedInMcpServer> {
    let self: SignedInMcpServer | undefined
    const transports = new Map<string, StreamableHTTPServerTransport>()
    const server = createServer((req, res) => {
      const me = self as SignedInMcpServer
      if (req.method === 'GET' && req.url === '/.well-known/oauth-protected-resource/mcp') {
        const metadata = { resource: me.url, authorization_servers: [me.authorizationServer] }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(metadata))
        return
      }
      const auth = req.headers.authorization ?? ''
      me.authorizations.push(auth)
      if (!auth.startsWith('Bearer ') || !me.accepted.has(auth.slice(7))) {
        me.refused += 1
        res
          .writeHead(401, {
            'content-type': 'application/json',
            'www-authenticate': `Bearer resource_metadata="${me.url.replace('/mcp', '/.well-known/oauth-protected-resource/mcp')}"`,
          })
          .end('{"error":"invalid_token"}')
        return
      }
      const id = req.headers['mcp-session-id']
      const known = typeof id === 'string' ? transports.get(id) : undefined
      if (known) {
        void known.handleRequest(req, res)
        return
      }
      const mcp = fakeMcpServer('signed-in')
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => {
          transports.set(sid, transport)
        },
      })
      transport.onclose = () => {
        if (transport.sessionId) transports.delete(transport.sessionId)
      }
      mcp.registerTool('roots', { description: 'Lists the client’s roots' }, async (extra) => {
        const r = await extra.sendRequest({ method: 'roots/list' }, ListRootsResultSchema)
        me.#note(() => me.rootLists.push(r.roots))
        return { content: [{ type: 'text', text: r.roots.map((x) => x.uri).join(' ') }] }
      })
      // Told the roots changed, it lists them again (over the stream the client keeps open).
      mcp.server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
        me.#note(() => me.rootsChanged++)
        const r = await mcp.server.listRoots().catch(() => null)
        if (r) me.#note(() => me.rootLists.push(r.roots))
      })
      void mcp.connect(transport).then(() => transport.handleRequest(req, res))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    self = new SignedInMcpServer(server, `http://127.0.0.1:${port}/mcp`)
    return self
  }

  #note(change: () => void): void {
    change()
    const waiters = this.#waiters
    this.#waiters = []
    for (const w of waiters) w()
  }

  /** Resolves once `done()` holds (checked at each recorded change), or rejects after `ms`. */
  async until(done: () => boolean, ms = 30_000): Promise<void> {
    const deadline = Date.now() + ms
    while (!done()) {
      const left = deadline - Date.now()
      if (left <= 0) throw new Error('the MCP server did not see what the test waited for')
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left)
        this.#waiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections()
    await new Promise<void>((resolve) => this.#server.close(() => resolve()))
  }
}
