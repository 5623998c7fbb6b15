// The daemon's socket: the hosts it may use (loopback only), bound without a name lookup of the address, and what
// a bind that fails says to the user. Kept apart from ./run.ts, which starts and drains the
// daemon, because how a socket is bound on this Node is a detail of its own.

import type { Server } from 'node:http'
import * as net from 'node:net'

/** The only hosts the daemon listens on. */
export const LOOPBACK_HOSTS = ['127.0.0.1', '::1'] as const

/** What a failed bind says, by its error code. */
export const LISTEN_ERRORS: Record<string, string> = {
  EADDRINUSE: 'the port is already in use (choose another with --port, or --port 0 for any free port)',
  EACCES: 'permission denied (ports below 1024 need privileges; use --port 0 for any free port)',
  EADDRNOTAVAIL: 'the address is not available on this machine',
  EAFNOSUPPORT: 'this machine does not support that address family',
}

/**
 * Binds first with net.BoundSocket where Node has it (24.19+): `listen(port, host)` looks an
 * IP literal up as if it were a name and filters the answers through net.isIPv6, whose first
 * call compiles a large regular expression (~5 ms of start-up). A bind error (EADDRINUSE…)
 * is thrown by the constructor, with `syscall` "bind".
 */
export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => reject(err)
    server.once('error', onError)
    const listening = () => {
      server.off('error', onError)
      resolve()
    }
    if (!net.BoundSocket) {
      server.listen(port, host, listening)
      return
    }
    let bound: net.BoundSocket
    try {
      bound = new net.BoundSocket({ host, port })
    } catch (err) {
      server.off('error', onError)
      reject(err)
      return
    }
    server.listen(bound, listening)
  })
}
