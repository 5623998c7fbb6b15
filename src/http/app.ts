// The Hono application: guards that apply to every request, then one generic runner per
// op that negotiates, reads and validates the request, calls the handler and renders the
// result. Nothing here is specific to a resource group.

import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { Readable } from 'node:stream'
import { Hono } from 'hono'
import type { DaemonLog } from '../deferred-log.ts'
import { DEFAULT_BODY_LIMIT, EmptyRequest } from '../schemas/common.ts'
import type { OpSpec } from '../schemas/op.ts'
import { HearthError } from '../schemas/problems.ts'
import { hasBody, readBody, releaseBody } from './body.ts'
import { accepts, hostAllowed, mediaTypeOf, originAllowed } from './negotiate.ts'
import { LightRequest } from './node-adapter.ts'
import { errorResponse, problemResponse } from './problem-response.ts'
import { jsonResponse } from './respond.ts'
import { honoPath, type RouteBinding } from './route.ts'
import { parseStrictJson } from './strict-json.ts'
import type * as Validate from './validate.ts'
import { isWebPath, type WebFiles } from './web-files.ts'

// validate.ts brings the TypeBox compiler, about a tenth of the daemon's start-up work. It is
// loaded once the daemon listens (the daemon calls loadValidators after writing daemon.json)
// or by the first request that validates, whichever comes first.
let validate: typeof Validate | undefined
let validateLoading: Promise<typeof Validate> | undefined

export function loadValidators(): Promise<typeof Validate> {
  validateLoading ??= import('./validate.ts').then((m) => {
    validate = m
    return m
  })
  return validateLoading
}

/** The validators; the op runner has awaited loadValidators before any use. */
function checks(): typeof Validate {
  if (!validate) throw new Error('validators used before loadValidators() resolved')
  return validate
}

export interface AppDeps {
  token: string
  /** The bound port, known once listening; Host must carry it. */
  port: () => number
  draining: () => boolean
  log: DaemonLog
  /** Tracks an in-flight request so a drain can wait for it. */
  track: <T>(work: Promise<T>) => Promise<T>
  /** Signal aborted when the daemon drains, for long-lived responses. */
  shutdownSignal: AbortSignal
  /** The capabilities now on (settings may turn optional ones off); all when absent. */
  capabilities?: () => Record<string, number>
  /** The extensions now enabled; all when absent. */
  extensions?: () => ReadonlySet<string>
  /** How long a request body may pause before 408 request_timeout (body.ts has the default). */
  bodyTimeoutMs?: number
  /**
   * Resolves once every commit so far is durable (an admission's sync may still run); an
   * answer waits for it, so it never shows what a power loss could take back.
   */
  settled?: () => Promise<void> | undefined
  /** The web client's files (under /web/), served without the token; absent: none. */
  webFiles?: WebFiles
}

/** Ops that wait for their own commit's sync before answering (inputs/group-commit.ts). */
const ANSWER_DURABLY = new Set(['inputs.put'])

/**
 * An op whose capability is off, or whose extension is disabled, does not exist; a zstd body
 * needs zstd_requests.
 */
function checkAvailable(op: OpSpec, req: Request, deps: AppDeps): void {
  if (op.extension && deps.extensions && !deps.extensions().has(op.extension))
    throw new HearthError('not_found', `Extension ${op.extension} is turned off in settings`)
  const coded = (req.headers.get('content-encoding') ?? '').toLowerCase().includes('zstd')
  if (!deps.capabilities || (!op.capability && !coded)) return
  const on = deps.capabilities()
  if (op.capability && !(op.capability in on))
    throw new HearthError('not_found', `Capability ${op.capability} is turned off in settings`)
  if (coded && !('zstd_requests' in on))
    throw new HearthError('unsupported_media_type', 'zstd request bodies are turned off in settings')
}

function tokenMatches(header: string | undefined, token: Buffer): boolean {
  if (!header) return false
  // The scheme name is case-insensitive (RFC 9110 §11.1).
  const m = /^Bearer[ ]+([A-Za-z0-9_-]+)\s*$/i.exec(header)
  if (!m) return false
  const given = Buffer.from(m[1])
  return given.length === token.length && timingSafeEqual(given, token)
}

function successMediaTypes(op: OpSpec): string[] {
  return Object.entries(op.responses)
    .filter(([s]) => Number(s) < 300)
    .flatMap(([, r]) => [r.mediaType ?? 'application/json', ...(r.stream ? ['text/event-stream'] : [])])
}

/** Read-only fields are named as such rather than as unknown, so clients learn why. */
function checkReadOnly(op: OpSpec, value: unknown): void {
  for (const pointer of op.readOnly ?? []) {
    let node: unknown = value
    for (const key of pointer.split('/').slice(1)) {
      node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined
    }
    if (node !== undefined) throw new HearthError('read_only_field', `${pointer} is read-only`)
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

function utf8Text(bytes: Buffer): string {
  try {
    return utf8.decode(bytes)
  } catch {
    throw new HearthError('malformed_json', 'The body is not valid UTF-8')
  }
}

/**
 * The request body to read: the Node request itself from the adapter (LightRequest), else
 * the web stream. A request without a body stream (GET and HEAD under other adapters) is read
 * from the Node request too, so every method gets the same limits and checks.
 */
function bodyStream(req: Request, env: unknown): ReadableStream<Uint8Array> | Readable | null {
  if (req instanceof LightRequest) return req.takeNodeBody()
  if (req.body) return req.body
  const incoming = (env as { incoming?: IncomingMessage } | undefined)?.incoming
  return incoming && hasBody(req.headers) ? incoming : null
}

async function readOpBody(op: OpSpec, req: Request, env: unknown, idleMs?: number): Promise<unknown> {
  const limit = op.bodyLimit ?? DEFAULT_BODY_LIMIT
  const bytes = await readBody(
    {
      stream: bodyStream(req, env),
      contentLength: req.headers.get('content-length') ?? undefined,
      contentEncoding: req.headers.get('content-encoding') ?? undefined,
    },
    limit,
    idleMs,
  )
  if (!op.body) {
    if (bytes.length > 0) throw new HearthError('unexpected_body', 'This operation takes no request body')
    return undefined
  }
  if (bytes.length === 0 && op.body === EmptyRequest) return {}
  // One media type per operation: a merge patch is sent as application/merge-patch+json
  // only, since the type names how the body applies (docs/http.md says why).
  const type = mediaTypeOf(req.headers.get('content-type') ?? undefined)
  const expected = op.bodyMediaType ?? 'application/json'
  if (type !== expected) throw new HearthError('unsupported_media_type', `Send the body as ${expected}`)
  let value: unknown
  try {
    value = parseStrictJson(utf8Text(bytes))
  } finally {
    releaseBody(bytes)
  }
  checkReadOnly(op, value)
  return op.deferBodyCheck ? value : checks().checkBody(op.body, value)
}

/**
 * The handler input's `body`: validated already, or, for ops that look the request up
 * before validating it (deferBodyCheck), validated when the handler first reads it.
 */
function opBody(op: OpSpec, parsed: unknown): { body: unknown; rawBody: unknown } {
  if (!op.deferBodyCheck || !op.body) return { body: parsed, rawBody: parsed }
  const schema = op.body
  let checked: { value: unknown } | undefined
  return {
    rawBody: parsed,
    get body() {
      checked ??= { value: checks().checkBody(schema, parsed) }
      return checked.value
    },
  }
}

/** Error codes of a write that found no space: SQLite's, and the system's (disk, quota). */
const STORAGE_FULL = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT'])

/**
 * The code that says the disk is full, from the error or one of its causes. Nothing was
 * committed (SQLite rolls the statement back), and the daemon writes again once there is
 * space: that is a 507 for the client to retry later, not an internal error.
 */
function storageFullCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as Error).cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code
    if (typeof code === 'string' && STORAGE_FULL.has(code)) return code
  }
  return undefined
}

/**
 * Builds the route matcher now: Hono builds it at the first match (~9 ms for all the
 * routes here), which would otherwise fall on the first request.
 */
export function warmRoutes(app: Hono): void {
  app.router.match('GET', '/server')
}

/**
 * The operations a client's first run goes through: create a session, watch it, send an
 * input. Their validators are compiled while the daemon is idle after start (~6 ms for the
 * first session's create, ~2 ms for its first input), not by that first run.
 */
const FIRST_RUN_OPS: readonly string[] = [
  'PUT /sessions/{session_id}',
  'GET /sessions/{session_id}',
  'PUT /sessions/{session_id}/inputs/{input_id}',
]

export async function precompileFirstRun(routes: readonly RouteBinding[]): Promise<void> {
  const { precompile } = await loadValidators()
  for (const { op } of routes)
    if (FIRST_RUN_OPS.includes(`${op.method} ${op.path}`)) precompile([op.params, op.query, op.body])
}

export function buildApp(routes: RouteBinding[], deps: AppDeps): Hono {
  const app = new Hono()
  const token = Buffer.from(deps.token)

  app.use('*', async (c, next) => {
    const h = c.req.raw.headers
    if (!hostAllowed(h.get('host') ?? undefined, deps.port())) return problemResponse('host_not_allowed')
    if (!originAllowed(h.get('origin') ?? undefined)) return problemResponse('origin_not_allowed')
    // The web client's files hold no secret: the page gets the API's token from its own
    // address's fragment, which the daemon never receives (docs/web.md).
    if (deps.webFiles && isWebPath(c.req.path))
      return deps.webFiles.serve(c.req.method, c.req.path, h.get('accept-encoding') ?? undefined)
    if (!tokenMatches(h.get('authorization') ?? undefined, token)) {
      return problemResponse(
        'unauthorized',
        'Send Authorization: Bearer <token> (the token is in HEARTH_HOME/token)',
        {
          'www-authenticate': 'Bearer realm="hearth"',
        },
      )
    }
    if (deps.draining()) return problemResponse('daemon_draining', undefined, { connection: 'close' })
    await deps.track(next())
  })

  const methodsByPath = new Map<string, string[]>()
  for (const { id, op, handler } of routes) {
    const path = honoPath(op.path)
    const gated = deps.settled && !ANSWER_DURABLY.has(id) ? deps.settled : undefined
    methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), op.method])
    const mediaTypes = successMediaTypes(op)
    app.on(op.method, path, async (c) => {
      const req = c.req.raw
      const accept = req.headers.get('accept') ?? undefined
      if (!mediaTypes.some((t) => accepts(accept, t))) {
        throw new HearthError('not_acceptable', `This operation produces ${mediaTypes.join(', ')}`)
      }
      checkAvailable(op, req, deps)
      const { checkParams, checkQuery } = validate ?? (await loadValidators())
      const params = checkParams(op.params, c.req.param() as Record<string, string>)
      const query = checkQuery(op.query, new URL(req.url).searchParams)
      const body = opBody(op, await readOpBody(op, req, c.env, deps.bodyTimeoutMs))
      let result: Awaited<ReturnType<typeof handler>>
      try {
        result = await handler(
          Object.defineProperties(
            {
              params,
              query,
              ifMatch: req.headers.get('if-match') ?? undefined,
              ifNoneMatch: req.headers.get('if-none-match') ?? undefined,
              accept: accept ?? '*/*',
              header: (name: string) => req.headers.get(name) ?? undefined,
              // Made on first use: AbortSignal.any costs ~10 µs and most handlers never read it.
              get signal() {
                return AbortSignal.any([req.signal, deps.shutdownSignal])
              },
            },
            Object.getOwnPropertyDescriptors(body),
          ) as never,
        )
      } finally {
        // What the handler read may include a commit whose sync runs still.
        const settled = gated?.()
        if (settled) await settled
      }
      if ('response' in result) return result.response
      return jsonResponse(
        result.status,
        result.body,
        result.headers ?? {},
        req.headers.get('accept-encoding') ?? undefined,
      )
    })
  }
  for (const [path, methods] of methodsByPath) {
    const allow = [...new Set(methods.includes('GET') ? [...methods, 'HEAD'] : methods)].join(', ')
    app.all(path, () => problemResponse('method_not_allowed', `Allowed: ${allow}`, { allow }))
  }

  app.notFound(() => problemResponse('not_found', 'No route matches this path'))
  app.onError((err) => {
    if (err instanceof HearthError) return errorResponse(err)
    const full = storageFullCode(err)
    if (full) {
      deps.log.warn({ cause: full }, 'a write was refused: the disk is full')
      return problemResponse(
        'insufficient_storage',
        `The home's file system is full (${full}); free space and retry`,
      )
    }
    const logId = crypto.randomUUID()
    deps.log.error({ err, log_id: logId }, 'unhandled error')
    return problemResponse('internal', `Internal error; see the daemon log entry ${logId}`)
  })
  return app
}
