// Handlers of extension `paperclips`. Domain code is in src/work/paperclips.ts; this module
// mints the listing's continuations and shapes the answers.
import type { Continuations } from '../http/continuation.ts'
import { bindGroup } from '../http/route.ts'
import { paperclipsOps } from '../schemas/paperclips.ts'
import { HearthError } from '../schemas/problems.ts'
import { lower } from '../util/uuid.ts'
import type { Paperclips } from '../work/paperclips.ts'

export interface PaperclipsApiDeps {
  clips: Paperclips
  continuations: Continuations
}

const clipUrl = (id: string) => `/extensions/paperclips/items/${id}`

export function paperclipsRoutes(d: PaperclipsApiDeps) {
  return bindGroup(paperclipsOps)({
    'paperclips.list': ({ query }) => {
      const before = query.next ? d.continuations.open<number>('paperclips', {}, query.next) : null
      if (before !== null && !Number.isSafeInteger(before))
        throw new HearthError('invalid_continuation', 'Not a clips position')
      const page = d.clips.list(query.limit ?? 50, before)
      const next = page.before === null ? null : d.continuations.mint('paperclips', {}, page.before)
      return { status: 200, body: { items: page.items, next } }
    },
    'paperclips.create': ({ body }) => {
      const clip = d.clips.create({ ...body, session_id: body.session_id ? lower(body.session_id) : null })
      const url = clipUrl(clip.id)
      return { status: 201, body: { resource: { url, value: clip } }, headers: { location: url } }
    },
    'paperclips.get': ({ params }) => ({ status: 200, body: d.clips.get(lower(params.clip_id)) }),
    'paperclips.delete': ({ params }) => ({ status: 200, body: d.clips.delete(lower(params.clip_id)) }),
  })
}
