// Handlers of group `server`.
import { bindGroup } from '../http/route.ts'
import { HearthError } from '../schemas/problems.ts'
import { type Notice, type ServerQuery, serverOps } from '../schemas/server.ts'
import type { SandboxStatus } from '../tools/types.ts'

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
}

export function serverRoutes(d: ServerDeps) {
  return bindGroup(serverOps)({
    'server.openapi': () => ({ status: 200, body: d.openapi() as never }),
    'server.get': ({ query }) => ({
      status: 200,
      body: {
        instance_id: d.instanceId,
        protocol: 3,
        state: d.draining() ? 'draining' : 'ready',
        capabilities: d.capabilities(),
        build: d.build,
        digest: null,
        extensions: d.extensions(),
        quota: null,
        ...(query.include === 'quota_history'
          ? { quota_history: quotaHistory(query) }
          : noQuotaFilter(query)),
        notices: d.notices(),
        sandbox: d.sandbox() ?? { available: null, kind: null, reason: 'Not probed yet: ask again shortly' },
      },
    }),
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

/** Filter and paging parameters are only read with include=quota_history. */
function noQuotaFilter(query: ServerQuery): Record<string, never> {
  const given = [...TRAIL_FILTER, 'quota_since', 'limit', 'next'].filter(
    (k) => query[k as keyof ServerQuery] !== undefined,
  )
  if (given.length > 0)
    throw new HearthError('invalid_parameter', `${given.join(', ')} only go with include=quota_history`)
  return {}
}

/**
 * The quota_history page. The filter is one limit trail (all three names together) and
 * quota_since narrows it further. No readings are recorded yet, so the page is empty and
 * no continuation was ever minted: any `next` is not one of ours.
 */
function quotaHistory(query: ServerQuery): { items: never[]; next: null } {
  const named = TRAIL_FILTER.filter((k) => query[k] !== undefined)
  if (named.length > 0 && named.length < TRAIL_FILTER.length)
    throw new HearthError('invalid_parameter', `${TRAIL_FILTER.join(', ')} go together`)
  if (query.quota_since !== undefined && named.length === 0)
    throw new HearthError('invalid_parameter', `quota_since needs ${TRAIL_FILTER.join(', ')}`)
  if (query.next !== undefined)
    throw new HearthError('invalid_continuation', 'This continuation was not minted for this query')
  return { items: [], next: null }
}
