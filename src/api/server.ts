// Handlers of group `server`. Quota readings are the store's (src/quota/store.ts); this
// module checks the read path's parameters and mints and opens its continuations.
import type { Continuations } from '../http/continuation.ts'
import { jsonTextResponse } from '../http/respond.ts'
import { bindGroup } from '../http/route.ts'
import type { HistoryPage, HistoryQuery } from '../quota/store.ts'
import { HearthError } from '../schemas/problems.ts'
import type { Notice, QuotaHistoryPage, QuotaReading, Server, ServerQuery } from '../schemas/server.ts'
import { serverOps } from '../schemas/server.ts'
import type { SandboxStatus } from '../tools/types.ts'

/** What GET /server reads of the stored quota readings. */
export interface QuotaReads {
  latest: () => QuotaReading[]
  history: (q: HistoryQuery) => HistoryPage
}

export interface ServerDeps {
  instanceId: string
  build: string
  capabilities: () => Record<string, number>
  /** Extensions that are implemented and enabled, with their versions. */
  extensions: () => { name: string; version: number }[]
  notices: () => Notice[]
  draining: () => boolean
  /** Starts the drain once the current response has been sent. */
  requestShutdown: () => void
  openapi: () => unknown
  /** Whether tool commands run in a sandbox here (probed by a kernel process; null before). */
  sandbox: () => SandboxStatus | null
  quota: QuotaReads
  continuations: Continuations
}

export function serverRoutes(d: ServerDeps) {
  return bindGroup(serverOps)({
    'server.openapi': () => ({ status: 200, body: d.openapi() as never }),
    'server.get': ({ query, header }) => {
      const { latest, history } = quotaOf(d, query)
      const head = {
        instance_id: d.instanceId,
        protocol: 3,
        state: d.draining() ? 'draining' : 'ready',
        capabilities: d.capabilities(),
        build: d.build,
        digest: null,
        extensions: d.extensions(),
      } satisfies Partial<Server>
      const tail = {
        notices: d.notices(),
        sandbox: d.sandbox() ?? { available: null, kind: null, reason: 'Not probed yet: ask again shortly' },
      } satisfies Partial<Server>
      // The fields in Server's order, the readings spliced in as text serialized once per change.
      const text = `${JSON.stringify(head).slice(0, -1)},"quota":${readingsJson(latest)},${historyJson(history)}${JSON.stringify(tail).slice(1)}`
      return { response: jsonTextResponse(200, text, {}, header('accept-encoding')) }
    },
    'server.shutdown': ({ body }) => {
      if (body.instance_id !== d.instanceId) {
        throw new HearthError('instance_mismatch', `This daemon is instance ${d.instanceId}`)
      }
      d.requestShutdown()
      return { status: 202, body: { instance_id: d.instanceId, state: 'draining' } }
    },
  })
}

const TRAIL_FILTER = ['quota_provider', 'quota_account', 'quota_limit'] as const
const HISTORY_SCOPE = 'server.quota_history'

/**
 * `quota` (null while the store holds no reading) and, with include=quota_history, one page
 * of the history. The parameters are checked before anything is read.
 */
function quotaOf(d: ServerDeps, query: ServerQuery) {
  const history = query.include === 'quota_history' ? quotaHistory(d, query) : noQuotaFilter(query)
  const latest = d.quota.latest()
  return { latest: latest.length > 0 ? latest : null, history }
}

/**
 * The JSON of a list of readings, made once per list the store answers: the latest readings
 * (up to 200, some 70 KB) and history pages change only when a poll is recorded, while
 * clients ask often.
 */
const READINGS_JSON = new WeakMap<QuotaReading[], string>()
function readingsJson(readings: QuotaReading[] | null): string {
  if (readings === null) return 'null'
  let text = READINGS_JSON.get(readings)
  if (text === undefined) {
    text = JSON.stringify(readings)
    READINGS_JSON.set(readings, text)
  }
  return text
}

/** `"quota_history":{…},` with the page's readings as kept text, or nothing without one. */
function historyJson(history: { quota_history?: QuotaHistoryPage }): string {
  const page = history.quota_history
  if (page === undefined) return ''
  return `"quota_history":{"items":${readingsJson(page.items)},"next":${JSON.stringify(page.next)}},`
}

/** Filter and paging parameters are only read with include=quota_history. */
function noQuotaFilter(query: ServerQuery): Record<string, never> {
  const given = [...TRAIL_FILTER, 'quota_since', 'limit', 'next'].filter(
    (k) => query[k as keyof ServerQuery] !== undefined,
  )
  if (given.length > 0)
    throw new HearthError('invalid_parameter', `${given.join(', ')} only go with include=quota_history`)
  return {}
}

/** RFC 3339 in UTC: the date-time format (checked by the schema) ending in Z. */
const UTC = /[Zz]$/

/**
 * The quota_history page: all readings, or one limit trail (the three filter names
 * together), narrowed by quota_since. The continuation holds the last row id served and is
 * bound to the filter it was minted for (Continuations: every parameter but limit and next).
 */
function quotaHistory(d: ServerDeps, query: ServerQuery): { quota_history: QuotaHistoryPage } {
  const named = TRAIL_FILTER.filter((k) => query[k] !== undefined)
  if (named.length > 0 && named.length < TRAIL_FILTER.length)
    throw new HearthError('invalid_parameter', `${TRAIL_FILTER.join(', ')} go together`)
  if (query.quota_since !== undefined && named.length === 0)
    throw new HearthError('invalid_parameter', `quota_since needs ${TRAIL_FILTER.join(', ')}`)
  const sinceMs = query.quota_since === undefined ? undefined : sinceOf(query.quota_since)
  const { limit, next, include: _, ...binding } = query
  const after = next === undefined ? null : d.continuations.open<unknown>(HISTORY_SCOPE, binding, next)
  if (after !== null && !(Number.isSafeInteger(after) && (after as number) > 0))
    throw new HearthError('invalid_continuation', 'Not a quota history position')
  const page = d.quota.history({
    limit,
    next: after as number | null,
    provider: query.quota_provider,
    account: query.quota_account,
    limitId: query.quota_limit,
    sinceMs,
  })
  const token = page.next === null ? null : d.continuations.mint(HISTORY_SCOPE, binding, page.next)
  return { quota_history: { items: page.items, next: token } }
}

function sinceOf(text: string): number {
  const ms = Date.parse(text)
  if (!UTC.test(text) || !Number.isFinite(ms))
    throw new HearthError('invalid_parameter', 'quota_since is an RFC 3339 time in UTC (ending in Z)')
  return ms
}
