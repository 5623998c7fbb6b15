// Handlers of group `server`.
import { bindGroup } from '../http/route.ts'
import { HearthError } from '../schemas/problems.ts'
import { type Notice, serverOps } from '../schemas/server.ts'
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
    'server.get': () => ({
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
