// The daemon process: take the home's lock, open the store, serve protocol 3 on loopback,
// publish daemon.json, and drain cleanly on SIGTERM, SIGINT or POST /server/shutdown. The
// socket's binding is ./listen.ts, the kernel pool's sizes ./kernels.ts; the domain services
// are composed in ./services.ts.
import { randomBytes } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import type * as net from 'node:net'
import { fileURLToPath } from 'node:url'
import { v7 as uuidv7 } from 'uuid'
import { createApi } from '../api/index.ts'
import { BUILD } from '../build-info.ts'
import { DeferredLog } from '../deferred-log.ts'
import { ensureHome, homeFiles } from '../home.ts'
import { buildApp, loadValidators, precompileFirstRun, warmRoutes } from '../http/app.ts'
import { Continuations } from '../http/continuation.ts'
import { createFetchServer } from '../http/node-adapter.ts'
import { WebFiles } from '../http/web-files.ts'
import { buildOpenApi } from '../openapi/build.ts'
import { DEFAULT_EXTENSION } from '../schemas/extensions.ts'
import { ALL_OPS } from '../schemas/index.ts'
import { recoverCommit } from '../settings/files.ts'
import { CredentialLock } from '../settings/lock.ts'
import { migrateSecrets, undismissed } from '../settings/migrate.ts'
import { Profiles } from '../settings/profiles.ts'
import { Settings } from '../settings/service.ts'
import { type Db, metaValue, openStore, SchemaTooNewError } from '../store/db.ts'
import { kernelPool } from './kernels.ts'
import { LISTEN_ERRORS, LOOPBACK_HOSTS, listen } from './listen.ts'
import { type DaemonLock, tryAcquireDaemonLock } from './lock.ts'
import { readRuntimeInfo, removeRuntimeInfo, writeRuntimeInfo } from './runtime-file.ts'
import { composeServices } from './services.ts'
import { loadOrCreateToken } from './token.ts'

/**
 * How long a drain waits for in-flight requests and streams before cutting connections.
 * HEARTH_DRAIN_MS (a positive integer of milliseconds) overrides it; the tests lower it to
 * prove that connections are cut at the deadline without waiting ten seconds.
 */
export const DRAIN_DEADLINE_MS = 10_000

export function drainDeadlineMs(env: NodeJS.ProcessEnv = process.env): number {
  const v = Number(env.HEARTH_DRAIN_MS)
  return env.HEARTH_DRAIN_MS && Number.isSafeInteger(v) && v > 0 ? v : DRAIN_DEADLINE_MS
}

/**
 * How long request headers may take to arrive, and how long a request body may pause, before
 * the daemon answers 408 request_timeout and closes the connection. HEARTH_REQUEST_TIMEOUT_MS
 * overrides it, as HEARTH_DRAIN_MS does for the drain (the tests lower it).
 */
export const REQUEST_TIMEOUT_MS = 30_000

export function requestTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const v = Number(env.HEARTH_REQUEST_TIMEOUT_MS)
  return env.HEARTH_REQUEST_TIMEOUT_MS && Number.isSafeInteger(v) && v > 0 ? v : REQUEST_TIMEOUT_MS
}

export interface DaemonOptions {
  home: string
  port: number
  host: string
  /** Add the `demo` profile, answered by a built-in upstream (no account needed). */
  demo?: boolean
  /** Told once daemon.json is written (the CLI prints where the daemon listens). */
  onReady?: (ready: { url: string; pid: number; home: string }) => void
  /** Told when a drain has released the home, just before the process exits 0. */
  onStopped?: () => void
}

/** How long after daemon.json the log file is opened (see the end of serve). */
const AFTER_START_MS = 250

/** Profiles from config.json and creds.json, plus the demo profile when asked for. */
async function loadProfiles(opts: DaemonOptions): Promise<Profiles> {
  const profiles = new Profiles(opts.home)
  if (opts.demo) {
    const { startDemoUpstream, DEMO_MODEL } = await import('../providers/demo/upstream.ts')
    const upstream = await startDemoUpstream()
    profiles.addBuiltIn({
      name: 'demo',
      extension: DEFAULT_EXTENSION,
      effort: null,
      account_id: null,
      transport: { endpoint: upstream.url, protocol: 'responses', model: DEMO_MODEL, api_key: null },
      limits: {},
    })
  }
  return profiles
}

/** A start that failed for a reason the user can act on; the CLI prints the message, exits 1. */
export class DaemonStartError extends Error {}

/**
 * V8 flags that keep the daemon small under load (docs/performance.md, Memory), set once it
 * is ready. Any flag set before Node loads its builtins costs start-up ~20 ms: V8 checks the
 * code cache that Node ships for them against a hash of the flags, so with a changed flag
 * each builtin compiles from source (node:crypto 5 → 13 ms). Both flags are read when used:
 * - `--no-turbofan`: no TurboFan tier; Maglev serves glue around SQLite and sockets, and
 *   TurboFan's jobs and the code it pages in cost ~6 MB. (Kernels keep every tier.) Not
 *   `--max-opt=2`, which has the same effect on the command line but none once V8 runs.
 * - `--no-maglev-destroy-on-background`: a finished Maglev job frees its memory on the main
 *   thread instead of waiting for a background thread; under load 160 jobs (24 MB, which
 *   malloc then keeps) piled up.
 */
function setMemoryFlags(): void {
  const v8 = process.getBuiltinModule('node:v8')
  v8.setFlagsFromString('--no-turbofan')
  v8.setFlagsFromString('--no-maglev-destroy-on-background')
}

export async function runDaemon(opts: DaemonOptions): Promise<void> {
  if (!(LOOPBACK_HOSTS as readonly string[]).includes(opts.host)) {
    throw new DaemonStartError(
      `refusing to listen on ${opts.host}: hearth binds loopback only (--host 127.0.0.1 or --host ::1)`,
    )
  }
  process.umask(0o077) // everything the daemon creates is private to its user
  const files = homeFiles(opts.home)
  let acquired: DaemonLock | undefined
  try {
    ensureHome(opts.home)
    acquired = tryAcquireDaemonLock(files.lock)
  } catch (err) {
    throw new DaemonStartError(`cannot use the home ${opts.home}: ${(err as Error).message}`)
  }
  if (!acquired) {
    const running = readRuntimeInfo(files.runtime)
    const who = running ? `pid ${running.pid} at ${running.url}` : 'it is still starting'
    throw new DaemonStartError(`another hearth daemon already runs for ${opts.home} (${who})`)
  }
  const lock = acquired
  removeRuntimeInfo(files.runtime) // left by a daemon that was killed
  let log: DeferredLog | undefined
  let db: Db | undefined
  try {
    const token = loadOrCreateToken(files.token)
    log = new DeferredLog() // opened once ready (see deferred-log.ts)
    db = openStore(files.db)
    await serve(opts, files, lock, token, log, db)
  } catch (err) {
    // Nothing was published: undo what was opened so the lock is free at once.
    db?.close()
    lock.release()
    log?.fatal({ err }, 'start failed')
    await log?.open(opts.home).catch(() => undefined)
    if (err instanceof SchemaTooNewError) throw new DaemonStartError(err.message)
    const code = (err as NodeJS.ErrnoException).code
    const syscall = (err as NodeJS.ErrnoException).syscall
    if ((syscall === 'listen' || syscall === 'bind') && code !== undefined) {
      const why = LISTEN_ERRORS[code] ?? (err as Error).message
      throw new DaemonStartError(`cannot listen on ${opts.host} port ${opts.port}: ${why}`)
    }
    throw err
  }
}

async function serve(
  opts: DaemonOptions,
  files: ReturnType<typeof homeFiles>,
  lock: DaemonLock,
  token: string,
  log: DeferredLog,
  db: Db,
): Promise<void> {
  // Random bytes from node:crypto: uuid's default source is Web Crypto, whose first use
  // loads a few milliseconds of modules the daemon does not otherwise need at start.
  const instanceId = uuidv7({ random: randomBytes(16) })
  const continuations = new Continuations(metaValue(db, 'continuation_key', () => randomBytes(32)))
  const deadlineMs = drainDeadlineMs()
  const timeoutMs = requestTimeoutMs()

  const inflight = new Set<Promise<unknown>>()
  const shutdown = new AbortController()
  let draining = false
  let port = 0
  let openapi: unknown

  // A settings commit cut by a crash is finished (or discarded) before anything reads them.
  const recovered = recoverCommit(opts.home)
  if (recovered !== 'none') log.warn({ recovered }, 'settings commit recovered')
  const kernels = kernelPool(log, opts.home)
  const profiles = await loadProfiles(opts)
  const settings = new Settings({
    home: opts.home,
    lock: new CredentialLock(),
    etagKey: metaValue(db, 'settings_etag_key', () => randomBytes(32)),
    builtInProfiles: () => profiles.builtInReads(),
  })
  const migrated = await migrateSecrets(opts.home, settings)
  const parts = { home: opts.home, db, now: Date.now, profiles, settings, kernels }
  const services = composeServices({
    ...parts,
    onError: (err) => log.error({ err }, 'background work failed'),
    onNotice: (fields, message) => log.warn(fields, message),
  })
  const api = createApi(
    {
      ...parts,
      log,
      dbPath: files.db,
      instanceId,
      build: BUILD,
      continuations,
      notices: () => undismissed(settings, migrated),
      draining: () => draining,
      requestShutdown: () => setImmediate(() => void drain('request')),
      openapi: () => {
        openapi ??= buildOpenApi(ALL_OPS)
        return openapi
      },
    },
    services,
  )
  const app = buildApp(api.routes, {
    token,
    port: () => port,
    draining: () => draining,
    log,
    shutdownSignal: shutdown.signal,
    capabilities: api.capabilities,
    extensions: api.extensions,
    bodyTimeoutMs: timeoutMs,
    // dist/web/ beside the daemon's bundle (scripts/build.mjs builds both).
    webFiles: new WebFiles(fileURLToPath(new URL('./web/', import.meta.url))),
    settled: () => services.sessions.core.hub.settled(),
    track: (work) => {
      inflight.add(work)
      return work.finally(() => inflight.delete(work))
    },
  })
  const server = createFetchServer(app.fetch, {
    onError: (err) => log.error({ err }, 'response failed'),
    headersTimeoutMs: timeoutMs,
  })
  // Responses not yet started when a drain begins tell the client the connection ends.
  const responses = new Set<ServerResponse>()
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (draining) res.setHeader('connection', 'close')
    responses.add(res)
    res.on('close', () => responses.delete(res))
  })

  /** Releases everything the daemon holds; synchronous so it also runs on a fatal error. */
  function release(): void {
    kernels.close()
    try {
      db.close()
    } catch {
      // already closed
    }
    removeRuntimeInfo(files.runtime, instanceId)
    lock.release()
  }

  /** Opens HOME/logs/hearth.log (once) and writes the lines queued until then. */
  function openLog(): Promise<void> {
    return log
      .open(opts.home)
      .catch((err) => void process.stderr.write(`hearth: cannot open the log: ${err.message}\n`))
  }

  // Stop admitting (close the listener; requests arriving on open connections get 503
  // daemon_draining with Connection: close), let in-flight requests finish and streams end
  // (they see `shutdown.signal`), and cut whatever is still open at the deadline.
  async function drain(reason: string): Promise<void> {
    if (draining) {
      server.closeAllConnections() // a second signal: stop waiting
      return
    }
    draining = true
    log.info({ reason, deadline_ms: deadlineMs }, 'draining')
    shutdown.abort()
    services.stop() // runs in progress end as interrupted and commit before the store closes
    for (const res of responses) if (!res.headersSent) res.setHeader('connection', 'close')
    // close() stops the listener and closes idle connections; the server calls back once
    // every connection is gone. A connection busy now turns idle when its response ends
    // (a client may keep it alive), so idle connections are closed again until then.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()))
    const sweep = setInterval(() => server.closeIdleConnections(), 25)
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), deadlineMs)
    })
    const cut = await Promise.race([
      Promise.allSettled([...inflight]).then(() => closed.then(() => false)),
      deadline,
    ])
    clearInterval(sweep)
    clearTimeout(timer)
    if (cut) log.warn({ open_requests: inflight.size }, 'drain deadline passed: cutting connections')
    server.closeAllConnections()
    release()
    log.info('stopped')
    await openLog() // a stop right after start: the queued lines are written first
    opts.onStopped?.()
    process.exit(0) // the log writes what it holds synchronously on exit (log-file.ts)
  }

  await listen(server, opts.port, opts.host)
  port = (server.address() as net.AddressInfo).port
  // Registered once listening: a failed start must not leave them behind.
  process.on('SIGTERM', () => void drain('SIGTERM'))
  process.on('SIGINT', () => void drain('SIGINT'))
  // A stray rejected promise (say, a write to a socket the client closed) is logged and
  // the daemon keeps serving; a thrown exception leaves state unknown, so the daemon logs
  // it, releases the home and exits 1.
  process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection'))
  let failing = false
  process.on('uncaughtException', (err) => {
    log.fatal({ err }, 'uncaught exception')
    process.stderr.write(`hearth: uncaught exception: ${err.stack ?? err}\n`)
    if (failing) process.exit(1) // another one while the log was being written
    failing = true
    release()
    // Right after start the log may not be open yet: its lines, this one included, are
    // written before the exit (the log writes what it holds synchronously on exit).
    const exit = () => process.exit(1)
    openLog().then(exit, exit)
    setTimeout(exit, 2000).unref()
  })

  const url = `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}`
  writeRuntimeInfo(files.runtime, {
    url,
    pid: process.pid,
    instance_id: instanceId,
    protocol: 3,
    started_at: new Date().toISOString(),
  })
  log.info({ url, instance_id: instanceId, build: BUILD }, 'listening')
  opts.onReady?.({ url, pid: process.pid, home: opts.home })
  // What a first request needs comes first: the request validators (the TypeBox compiler,
  // loaded now rather than before daemon.json) and the route matcher, which Hono builds at
  // the first match. Then the V8 memory flags, before any function is hot enough for
  // TurboFan (builtins first loaded after them compile from source, so not earlier). The
  // log file (pino: ~15 ms to load and open) waits until the requests a client sends as it
  // starts have been answered; lines queue until then.
  loadValidators()
    .then(() => warmRoutes(app))
    .catch((err) => log.error({ err }, 'loading the request validators failed'))
    .finally(setMemoryFlags)
  // Then, idle, what a first run would otherwise compile on its way (src/http/app.ts). The
  // daemon does not compact its heap after start-up as kernels do: under load it kept the
  // kernel pool from releasing its idle processes (test/inputs/kernels.test.ts, idle release).
  setTimeout(() => {
    openLog()
      .then(() => precompileFirstRun(api.routes))
      .catch((err) => log.error({ err }, "compiling the first turn's validators failed"))
  }, AFTER_START_MS).unref()
  // Finish work a previous run left half done (a subtree deletion cut by kill -9). It runs
  // after listening so a long recovery never delays readiness; the gated rows refuse
  // requests until it completes.
  services.start().catch((err) => log.error({ err }, 'resuming interrupted work failed'))
}
