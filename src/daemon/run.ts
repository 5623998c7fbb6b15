// The daemon process: take the home's lock, open the store, serve protocol 3 on loopback,
// publish daemon.json, and drain cleanly on SIGTERM, SIGINT or POST /server/shutdown.
import { randomBytes } from 'node:crypto'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createAdaptorServer } from '@hono/node-server'
import { v7 as uuidv7 } from 'uuid'
import { allRoutes } from '../api/index.ts'
import { BUILD } from '../build-info.ts'
import { buildApp } from '../http/app.ts'
import { Continuations } from '../http/continuation.ts'
import { openLog } from '../log.ts'
import { buildOpenApi } from '../openapi/build.ts'
import { ALL_OPS } from '../schemas/index.ts'
import { metaValue, openStore } from '../store/db.ts'
import { ensureHome, homeFiles } from './home.ts'
import { tryAcquireDaemonLock } from './lock.ts'
import { readRuntimeInfo, removeRuntimeInfo, writeRuntimeInfo } from './runtime-file.ts'
import { loadOrCreateToken } from './token.ts'

export const LOOPBACK_HOSTS = ['127.0.0.1', '::1'] as const
/** How long a drain waits for in-flight requests and streams before cutting connections. */
export const DRAIN_DEADLINE_MS = 10_000

export interface DaemonOptions {
  home: string
  port: number
  host: string
}

export class DaemonStartError extends Error {}

export async function runDaemon(opts: DaemonOptions): Promise<void> {
  if (!(LOOPBACK_HOSTS as readonly string[]).includes(opts.host)) {
    throw new DaemonStartError(
      `refusing to listen on ${opts.host}: hearth binds loopback only (127.0.0.1 or ::1)`,
    )
  }
  process.umask(0o077) // everything the daemon creates is private to its user
  ensureHome(opts.home)
  const files = homeFiles(opts.home)
  const acquired = tryAcquireDaemonLock(files.lock)
  if (!acquired) {
    const running = readRuntimeInfo(files.runtime)
    const who = running ? `pid ${running.pid} at ${running.url}` : 'it is still starting'
    throw new DaemonStartError(`another hearth daemon already runs for ${opts.home} (${who})`)
  }
  const lock = acquired
  removeRuntimeInfo(files.runtime) // left by a daemon that was killed
  const token = loadOrCreateToken(files.token)
  const log = openLog(opts.home)
  const db = openStore(files.db)
  const instanceId = uuidv7()
  const continuations = new Continuations(metaValue(db, 'continuation_key', () => randomBytes(32)))

  const inflight = new Set<Promise<unknown>>()
  const shutdown = new AbortController()
  let draining = false
  let port = 0
  let openapi: unknown

  const routes = allRoutes({
    home: opts.home,
    db,
    dbPath: files.db,
    instanceId,
    build: BUILD,
    continuations,
    now: Date.now,
    notices: () => [],
    draining: () => draining,
    requestShutdown: () => setImmediate(() => void drain('request')),
    openapi: () => {
      openapi ??= buildOpenApi(ALL_OPS)
      return openapi
    },
  })
  const app = buildApp(routes, {
    token,
    port: () => port,
    draining: () => draining,
    log,
    shutdownSignal: shutdown.signal,
    track: (work) => {
      inflight.add(work)
      return work.finally(() => inflight.delete(work))
    },
  })
  const server = createAdaptorServer({ fetch: app.fetch }) as Server

  async function drain(reason: string): Promise<void> {
    if (draining) {
      server.closeAllConnections()
      return
    }
    draining = true
    log.info({ reason }, 'draining')
    shutdown.abort()
    const closed = new Promise<void>((resolve) => server.close(() => resolve()))
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, DRAIN_DEADLINE_MS).unref())
    await Promise.race([Promise.allSettled([...inflight]).then(() => closed), deadline])
    server.closeAllConnections()
    db.close()
    removeRuntimeInfo(files.runtime, instanceId)
    lock.release()
    log.info('stopped')
    log.flush()
    process.exit(0)
  }

  process.on('SIGTERM', () => void drain('SIGTERM'))
  process.on('SIGINT', () => void drain('SIGINT'))
  process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection'))

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port, opts.host, () => resolve())
  })
  port = (server.address() as AddressInfo).port
  const url = `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}`
  writeRuntimeInfo(files.runtime, {
    url,
    pid: process.pid,
    instance_id: instanceId,
    protocol: 3,
    started_at: new Date().toISOString(),
  })
  log.info({ url, instance_id: instanceId, build: BUILD }, 'listening')
}
