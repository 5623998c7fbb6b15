// Group `models`: model metadata from the cached public catalogue (models.dev `api.json`
// shape) and the prompt-cache policy that applies to an extension and host. See
// docs/models.md for every field, the provider mapping and the cache-policy rules.
import type { Static } from 'typebox'
import * as Type from 'typebox'
import { Continuation, Limit, Nullable, ProfileName, Timestamp } from './common.ts'
import { defineOps } from './op.ts'

const Facts = { additionalProperties: false } as const
const Count = Nullable(Type.Integer({ minimum: 0 }))
const Flag = Nullable(Type.Boolean())
const Text = Nullable(Type.String())
const Price = Nullable(Type.Number({ minimum: 0, description: 'USD per million tokens' }))

export const ModelsQuery = Type.Object(
  {
    view: Type.Optional(
      Type.Enum(['catalogue', 'cache-policy'], { description: 'catalogue (default) or cache-policy' }),
    ),
    extension: Type.Optional(
      Type.String({ maxLength: 256, description: 'cache-policy selector; "" (default) matches any' }),
    ),
    host: Type.Optional(
      Type.String({ maxLength: 4096, description: 'cache-policy selector; "" (default) matches any' }),
    ),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'One model id' })),
    provider_profile: Type.Optional(ProfileName),
    provider: Type.Optional(
      Type.String({ minLength: 1, maxLength: 256, description: 'An extension or a catalogue provider id' }),
    ),
    endpoint: Type.Optional(Type.String({ format: 'uri', maxLength: 4096 })),
    limit: Type.Optional(Limit(200, 100)),
    next: Type.Optional(Continuation),
  },
  { additionalProperties: false },
)
export type ModelsQuery = Static<typeof ModelsQuery>

export const ModelCost = Type.Object(
  { input: Price, output: Price, cache_read: Price, cache_write: Price },
  { ...Facts, $id: 'ModelCost' },
)

export const ModelInfo = Type.Object(
  {
    id: Type.String(),
    name: Text,
    provider: Nullable(Type.String({ description: 'Catalogue provider id' })),
    cap_key: Type.String({
      description: '<catalogue provider>/<model id>, or manual/<model id> for an unlisted model',
    }),
    listed: Type.Boolean({ description: 'false for a manual model id the catalogue does not list' }),
    context_window: Count,
    max_output_tokens: Count,
    reasoning: Flag,
    tool_call: Flag,
    image_input: Flag,
    attachment: Flag,
    temperature: Flag,
    open_weights: Flag,
    input_modalities: Nullable(Type.Array(Type.String())),
    output_modalities: Nullable(Type.Array(Type.String())),
    knowledge: Text,
    release_date: Text,
    last_updated: Text,
    cost: ModelCost,
  },
  { ...Facts, $id: 'ModelInfo' },
)
export type ModelInfo = Static<typeof ModelInfo>

export const CatalogueSource = Type.Object(
  {
    kind: Type.Enum(['snapshot', 'cache'], {
      description: 'snapshot: shipped with hearth; cache: HOME/cache/models.json from hearth models refresh',
    }),
    updated_at: Timestamp,
  },
  { ...Facts, $id: 'CatalogueSource' },
)

export const ModelCatalogue = Type.Object(
  {
    view: Type.Literal('catalogue'),
    provider_profile: Nullable(Type.String()),
    extension: Nullable(Type.String()),
    endpoint: Nullable(Type.String()),
    provider: Nullable(Type.String({ description: 'The catalogue provider the request maps to' })),
    source: CatalogueSource,
    items: Type.Array(ModelInfo),
    next: Nullable(Continuation),
  },
  { ...Facts, $id: 'ModelCatalogue' },
)
export type ModelCatalogue = Static<typeof ModelCatalogue>

export const CachePolicy = Type.Object(
  {
    mode: Type.Enum(['implicit', 'explicit', 'off'], {
      description:
        'implicit: the provider caches prefixes itself; explicit: hearth marks cache breakpoints; off: no cache hints',
    }),
    key: Nullable(Type.Literal('session', { description: 'Send the session id as the prompt cache key' })),
    retention: Nullable(Type.Enum(['in_memory', '24h'], { description: 'OpenAI prompt_cache_retention' })),
    ttl_seconds: Nullable(Type.Integer({ minimum: 1, description: 'Lifetime of an explicit breakpoint' })),
    breakpoints: Nullable(Type.Integer({ minimum: 1, description: 'Most explicit breakpoints per request' })),
  },
  { ...Facts, $id: 'CachePolicy' },
)
export type CachePolicy = Static<typeof CachePolicy>

export const CacheSelector = Type.Object(
  {
    extension: Type.String({ description: '"" matches any extension' }),
    host: Type.String({ description: '"" matches any host' }),
    source: Type.Enum(['settings', 'built-in']),
  },
  { ...Facts, $id: 'CacheSelector' },
)

export const ModelCachePolicy = Type.Object(
  {
    view: Type.Literal('cache-policy'),
    extension: Type.String(),
    host: Type.String(),
    matched: CacheSelector,
    policy: CachePolicy,
  },
  { ...Facts, $id: 'ModelCachePolicy' },
)
export type ModelCachePolicy = Static<typeof ModelCachePolicy>

export const ModelRead = Type.Union([ModelCatalogue, ModelCachePolicy], {
  $id: 'ModelRead',
  discriminator: { propertyName: 'view' },
})
export type ModelRead = Static<typeof ModelRead>

export const modelsOps = defineOps({
  'models.get': {
    method: 'GET',
    path: '/models',
    summary: 'Read model metadata or the prompt-cache policy',
    description:
      'Catalogue view: exactly one of provider_profile or provider; endpoint only with provider; model returns one row (a manual id the catalogue does not list is a row with listed false and null facts); otherwise the models of the provider by id, paged. Cache-policy view: the policy for extension and host (both default to the empty selector). Reads never fetch from the network.',
    tags: ['models'],
    query: ModelsQuery,
    responses: { 200: { description: 'The catalogue page or the cache policy', schema: ModelRead } },
    problems: ['invalid_model_query', 'profile_not_found', 'provider_not_found', 'invalid_continuation'],
  },
})
