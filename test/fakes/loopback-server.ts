// The HTTP server under every fake upstream: 127.0.0.1, port 0, a handler whose failure
// cuts the connection, and a close that does not wait for keep-alive clients.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

export class LoopbackServer {
  readonly url: string
  readonly #server: Server
  readonly #sockets = new Set<Socket>()

  private constructor(server: Server) {
    this.#server = server
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    server.on('connection', (socket) => {
      this.#sockets.add(socket)
      socket.on('close', () => this.#sockets.delete(socket))
    })
  }

  static async listen(
    handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  ): Promise<LoopbackServer> {
    const server = createServer((req, res) => {
      handle(req, res).catch(() => res.destroy())
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return new LoopbackServer(server)
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy()
    await new Promise<void>((resolve) => this.#server.close(() => resolve()))
  }
}
