// Handlers of GET /hosts and POST /hosts/{host}/probe. Domain code is in src/hosts/.

import type { Hosts } from '../hosts/service.ts'
import type { Continuations } from '../http/continuation.ts'
import { bindGroup } from '../http/route.ts'
import { hostsOps } from '../schemas/hosts.ts'
import { HearthError } from '../schemas/problems.ts'

export interface HostsApiDeps {
  hosts: Hosts
  continuations: Continuations
}

export function hostsRoutes(d: HostsApiDeps) {
  return bindGroup(hostsOps)({
    'hosts.list': async ({ query }) => {
      const binding = { target: query.target ?? '' }
      const after = query.next ? d.continuations.open<unknown>('hosts', binding, query.next) : null
      if (after !== null && typeof after !== 'string')
        throw new HearthError('invalid_continuation', 'Not a hosts position')
      const page = await d.hosts.list(query.target, query.limit ?? 100, after)
      const next = page.after === null ? null : d.continuations.mint('hosts', binding, page.after)
      return { status: 200, body: { items: page.items, next } }
    },
    'hosts.probe': async ({ params }) => ({ status: 202, body: await d.hosts.probe(params.host) }),
  })
}
