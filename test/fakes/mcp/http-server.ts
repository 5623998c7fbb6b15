// A real MCP server over streamable HTTP (the SDK's StreamableHTTPServerTransport, stateless:
// a server and transport per request), on a loopback port. It refuses requests without the
// expected bearer token and header, and records the headers it was sent.
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { fakeMcpServer } from './tools.ts'

export interface FakeMcpHttpOptions {
  bearerToken: string
  /** A header every request must carry, with this value. */
  header: { name: string; value: string }
}

export class FakeMcpHttpServer {
  readonly #server: Server
  readonly url: string
  /** Headers of every request received (lowercase names). */
  readonly requests: IncomingMessage['headers'][] = []
  /** Requests refused for missing or wrong credentials. */
  refused = 0

  private constructor(server: Server, url: string) {
    this.#server = server
    this.url = url
  }

  static async start(opts: FakeMcpHttpOptions): Promise<FakeMcpHttpServer> {
    let self: FakeMcpHttpServer | undefined
    const server = createServer((req, res) => {
      self?.requests.push(req.headers)
      const authorized =
        req.headers.authorization === `Bearer ${opts.bearerToken}` &&
        req.headers[opts.header.name.toLowerCase()] === opts.header.value
      if (!authorized) {
        if (self) self.refused += 1
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}')
        return
      }
      if (req.method !== 'POST') {
        res.writeHead(405, { allow: 'POST' }).end()
        return
      }
      const mcp = fakeMcpServer('fake-http')
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
      res.on('close', () => {
        void transport.close()
        void mcp.close()
      })
      void mcp.connect(transport).then(() => transport.handleRequest(req, res))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    self = new FakeMcpHttpServer(server, `http://127.0.0.1:${port}/mcp`)
    return self
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections()
    await new Promise<void>((resolve) => this.#server.close(() => resolve()))
  }
}
