// A forwarding proxy in front of the daemon, so a test can cut the page's event stream as a
// network failure would. It passes every request on with the daemon's Host (the daemon
// refuses any other), streams answers back as they come, and remembers each session stream
// it carried (its query), which `dropStreams()` cuts on both sides.
import { type ClientRequest, createServer, type IncomingMessage, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TestDaemon } from '../helpers/daemon.ts'

interface Carried {
  browser: IncomingMessage
  upstream: ClientRequest
}

export class StreamProxy {
  readonly server: Server
  readonly d: TestDaemon
  /** The path and query of every session stream carried, in order. */
  readonly streams: string[] = []
  #open = new Set<Carried>()
  url = ''

  constructor(d: TestDaemon) {
    this.d = d
    this.server = createServer((req, res) => {
      const headers = { ...req.headers, host: new URL(d.url).host }
      const upstream = request({
        host: d.hostname,
        port: d.port,
        method: req.method,
        path: req.url,
        headers,
        agent: false,
      })
      const isStream =
        /^\/sessions\/[^/?]+\?/.test(req.url ?? '') &&
        String(req.headers.accept).includes('text/event-stream')
      const carried = { browser: req, upstream }
      if (isStream) {
        this.streams.push(req.url ?? '')
        this.#open.add(carried)
      }
      upstream.on('response', (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers)
        res.flushHeaders()
        up.on('data', (chunk) => res.write(chunk))
        up.on('end', () => res.end())
        up.on('error', () => res.destroy())
      })
      upstream.on('error', () => res.destroy())
      res.on('close', () => {
        this.#open.delete(carried)
        upstream.destroy()
      })
      req.pipe(upstream)
    })
  }

  async listen(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
    return this.url
  }

  /** Cuts every session stream now open, on both sides. */
  dropStreams(): number {
    const n = this.#open.size
    for (const c of this.#open) {
      c.browser.socket.destroy()
      c.upstream.destroy()
    }
    this.#open.clear()
    return n
  }

  close(): void {
    this.server.closeAllConnections()
    this.server.close()
  }
}
