// The Hono application: guards that apply to every request, then one generic runner per
// op that negotiates, reads and validates the request, calls the handler and renders the
// result. Nothing here is specific to a resource group.

import { timingSafeEqual } from 'node:crypto'
import { Hono } from 'hono'
import type { Logger } from 'pino'
import { DEFAULT_BODY_LIMIT, EmptyRequest } from '../schemas/common.ts'
import type { OpSpec } from '../schemas/op.ts'
import { HearthError } from '../schemas/problems.ts'
import { readBody } from './body.ts'
import { accepts, hostAllowed, mediaTypeOf, originAllowed } from './negotiate.ts'
import { errorResponse, problemResponse } from './problem-response.ts'
import { jsonResponse } from './respond.ts'
import { honoPath, type RouteBinding } from './route.ts'
import { parseStrictJson } from './strict-json.ts'
import { checkBody, checkParams, checkQuery } from './validate.ts'

export interface AppDeps {
  token: string
  /** The bound port, known once listening; Host must carry it. */
  port: () => number
  draining: () => boolean
  log: Logger
  /** Tracks an in-flight request so a drain can wait for it. */
  track: <T>(work: Promise<T>) => Promise<T>
  /** Signal aborted when the daemon drains, for long-lived responses. */
  shutdownSignal: AbortSignal
}

function tokenMatches(header: string | undefined, token: Buffer): boolean {
  if (!header) return false
  const m = /^Bearer[ ]+([A-Za-z0-9_-]+)\s*$/.exec(header)
  if (!m) return false
  const given = Buffer.from(m[1])
  return given.length === token.length && timingSafeEqual(given, token)
}

function successMediaTypes(op: OpSpec): string[] {
  return Object.entries(op.responses)
    .filter(([s]) => Number(s) < 300)
    .map(([, r]) => r.mediaType ?? 'application/json')
}

async function readOpBody(op: OpSpec, req: Request): Promise<unknown> {
  const limit = op.bodyLimit ?? DEFAULT_BODY_LIMIT
  const bytes = await readBody(
    {
      stream: req.body,
      contentLength: req.headers.get('content-length') ?? undefined,
      contentEncoding: req.headers.get('content-encoding') ?? undefined,
    },
    limit,
  )
  if (!op.body) {
    if (bytes.length > 0) throw new HearthError('unexpected_body', 'This operation takes no request body')
    return undefined
  }
  if (bytes.length === 0 && op.body === EmptyRequest) return {}
  const type = mediaTypeOf(req.headers.get('content-type') ?? undefined)
  const allowed =
    op.bodyMediaType === 'application/merge-patch+json'
      ? [op.bodyMediaType, 'application/json']
      : ['application/json']
  if (!type || !allowed.includes(type)) {
    throw new HearthError('unsupported_media_type', `Send the body as ${allowed[0]}`)
  }
  const value = parseStrictJson(bytes.toString('utf8'))
  return checkBody(op.body, value)
}

export function buildApp(routes: RouteBinding[], deps: AppDeps): Hono {
  const app = new Hono()
  const token = Buffer.from(deps.token)

  app.use('*', async (c, next) => {
    const h = c.req.raw.headers
    if (!hostAllowed(h.get('host') ?? undefined, deps.port())) return problemResponse('host_not_allowed')
    if (!originAllowed(h.get('origin') ?? undefined)) return problemResponse('origin_not_allowed')
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
  for (const { op, handler } of routes) {
    const path = honoPath(op.path)
    methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), op.method])
    const mediaTypes = successMediaTypes(op)
    app.on(op.method, path, async (c) => {
      const req = c.req.raw
      const accept = req.headers.get('accept') ?? undefined
      if (!mediaTypes.some((t) => accepts(accept, t))) {
        throw new HearthError('not_acceptable', `This operation produces ${mediaTypes.join(', ')}`)
      }
      const params = checkParams(op.params, c.req.param() as Record<string, string>)
      const query = checkQuery(op.query, new URL(req.url).searchParams)
      const body = await readOpBody(op, req)
      const result = await handler({
        params,
        query,
        body,
        ifMatch: req.headers.get('if-match') ?? undefined,
        ifNoneMatch: req.headers.get('if-none-match') ?? undefined,
        accept: accept ?? '*/*',
        signal: AbortSignal.any([req.signal, deps.shutdownSignal]),
      } as never)
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
    const logId = crypto.randomUUID()
    deps.log.error({ err, log_id: logId }, 'unhandled error')
    return problemResponse('internal', `Internal error; see the daemon log entry ${logId}`)
  })
  return app
}
