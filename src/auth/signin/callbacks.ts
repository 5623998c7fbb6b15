// Loopback listeners for browser redirects. One listener per port, on 127.0.0.1 only,
// shared by every login waiting on that port (two ChatGPT sign-ins share :1455) and
// dispatched by the `state` query parameter; it closes when its last login stops waiting.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { BrowserPlugin, CallbackSpec } from '../../providers/shared/sign-in-plugin.ts'

export interface CallbackHit {
  code: string | null
  error: string | null
  errorDescription: string | null
}

/** Answers the browser: the page it shows once the redirect arrived. */
export type CallbackHandler = (hit: CallbackHit) => Promise<{ ok: boolean; message: string }>

interface Listener {
  server: Server
  port: number
  path: string
  handlers: Map<string, CallbackHandler>
}

export class PortBusyError extends Error {}

/** A port free on 127.0.0.1 now: the redirect URI of a manual login that takes any port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => resolve(port))
    })
  })
}

const page = (title: string, message: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif;margin:3em">` +
  `<h1>${title}</h1><p>${message.replace(/[<>&]/g, '')}</p></body>`

export class CallbackListeners {
  readonly #byPort = new Map<number, Listener>()

  /** Registers `state` on the spec's listener (started if needed); returns the bound port. */
  async add(spec: CallbackSpec, state: string, handler: CallbackHandler): Promise<number> {
    const existing = spec.port === 0 ? undefined : this.#byPort.get(spec.port)
    if (existing && existing.path === spec.path) {
      existing.handlers.set(state, handler)
      return existing.port
    }
    const listener = await this.#start(spec)
    listener.handlers.set(state, handler)
    return listener.port
  }

  /** Forgets `state`; the listener closes once no login waits on it. */
  remove(port: number, state: string): void {
    const l = this.#byPort.get(port)
    if (!l) return
    l.handlers.delete(state)
    if (l.handlers.size === 0) {
      // Stop listening now; a browser whose callback is being answered gets its page.
      this.#byPort.delete(port)
      l.server.close()
      l.server.closeIdleConnections()
    }
  }

  closeAll(): void {
    for (const [port, l] of this.#byPort) {
      this.#byPort.delete(port)
      l.server.close()
      l.server.closeAllConnections()
    }
  }

  async #start(spec: CallbackSpec): Promise<Listener> {
    const handlers = new Map<string, CallbackHandler>()
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1')
      const reply = (status: number, title: string, message: string) => {
        res.writeHead(status, {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
          connection: 'close',
        })
        res.end(page(title, message))
      }
      if (req.method !== 'GET' || url.pathname !== spec.path) return reply(404, 'Not found', 'Nothing here.')
      const handler = handlers.get(url.searchParams.get('state') ?? '')
      if (!handler)
        return reply(
          400,
          'Sign-in not found',
          'This sign-in is unknown or already finished. Start a new one.',
        )
      void handler({
        code: url.searchParams.get('code'),
        error: url.searchParams.get('error'),
        errorDescription: url.searchParams.get('error_description'),
      }).then(
        (r) => reply(r.ok ? 200 : 400, r.ok ? 'Signed in' : 'Sign-in failed', r.message),
        () => reply(500, 'Sign-in failed', 'The sign-in could not be completed.'),
      )
    })
    await new Promise<void>((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException) => {
        if (err.code === 'EADDRINUSE' && !spec.fixed) {
          server.listen(0, '127.0.0.1') // not fixed: any free port will do
          return
        }
        reject(err.code === 'EADDRINUSE' ? new PortBusyError(`port ${spec.port} is busy`) : err)
      }
      server.on('error', onError)
      server.once('listening', () => {
        server.off('error', onError)
        resolve()
      })
      server.listen(spec.port, '127.0.0.1')
    })
    const port = (server.address() as AddressInfo).port
    const listener = { server, port, path: spec.path, handlers }
    this.#byPort.set(port, listener)
    return listener
  }
}

/** A browser login's instructions: where the browser returns, or why it cannot. */
export function browserInstructions(plugin: BrowserPlugin, flow: string, failure: string | null): string {
  if (failure === 'callback_port_busy')
    return `Port ${plugin.callback.port} is in use by another program, so the browser cannot return here. Close it and start a new sign-in, or use the manual flow.`
  return flow === 'browser'
    ? `Open the URL and sign in to ${plugin.label}; this finishes by itself when the browser returns. If the browser cannot reach this machine, paste the address it ends on.`
    : `Open the URL and sign in to ${plugin.label}, then paste the address the browser ends on (or the code it shows).`
}
