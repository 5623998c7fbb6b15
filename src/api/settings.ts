// Handlers of group `settings`.
import { bindGroup } from '../http/route.ts'
import { settingsOps } from '../schemas/settings.ts'
import type { Settings } from '../settings/service.ts'

export function settingsRoutes(settings: Settings) {
  return bindGroup(settingsOps)({
    'settings.get': ({ query }) => {
      const { body, etag } = settings.read(query.group)
      return { status: 200, body: body as never, headers: { etag } }
    },
    'settings.patch': async ({ query, ifMatch, rawBody }) => {
      const { body, etag } = await settings.patch(query.group, ifMatch, rawBody)
      return { status: 200, body: body as never, headers: { etag } }
    },
  })
}
