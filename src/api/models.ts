// Handlers of group `models`.
import type { Continuations } from '../http/continuation.ts'
import { bindGroup } from '../http/route.ts'
import type { CacheRule } from '../models/cache-policy.ts'
import { Catalogue } from '../models/catalogue.ts'
import { modelsCachePath } from '../models/catalogue-shape.ts'
import { ModelsService } from '../models/service.ts'
import { type ModelInfo, modelsOps } from '../schemas/models.ts'
import type { Profiles } from '../settings/profiles.ts'

export interface ModelsDeps {
  home: string
  profiles: Pick<Profiles, 'resolve'>
  continuations: Continuations
  /** Cache rules from settings, consulted before the built-in table; none by default. */
  cacheRules?: () => readonly CacheRule[]
  /** Per-model facts from settings that win over the catalogue; none by default. */
  overrides?: () => Readonly<Record<string, Partial<ModelInfo>>>
  /** The service to use, when shared with other routes (made from the above otherwise). */
  models?: ModelsService
}

/** The continuation scope of catalogue pages. */
const SCOPE = 'models.catalogue'

/** The models domain over the catalogue in `home` (one per daemon: routes and session reads). */
export function modelsServiceOf(d: Omit<ModelsDeps, 'continuations' | 'models'>): ModelsService {
  return new ModelsService({
    catalogue: new Catalogue(modelsCachePath(d.home)),
    profiles: d.profiles,
    cacheRules: d.cacheRules ?? (() => []),
    overrides: d.overrides,
  })
}

export function modelsRoutes(d: ModelsDeps) {
  const models = d.models ?? modelsServiceOf(d)
  const c = d.continuations
  return bindGroup(modelsOps)({
    'models.get': async ({ query }) => {
      if (query.view === 'cache-policy') return { status: 200, body: models.cachePolicy(query) }
      const { plan, state } = await models.plan(query)
      // A token stays bound to the listing it pages: the same profile or provider and endpoint.
      const binding = {
        provider_profile: query.provider_profile,
        provider: query.provider,
        endpoint: query.endpoint,
      }
      const after = query.next ? c.open<string>(SCOPE, binding, query.next) : null
      const page = models.page(plan, state, after, query.limit ?? 100)
      const next = page.last === null ? null : c.mint(SCOPE, binding, page.last)
      return { status: 200, body: { ...page.body, next } }
    },
  })
}
