// GET /models without HTTP: which parameters go together, the provider a request maps to,
// the rows of a page, and the cache policy. The handler adds the continuation tokens.
import type { DiscoveredModel } from '../providers/descriptor.ts'
import { providerOf } from '../providers/registry.ts'
import type { StoredCredential } from '../providers/shared/sign-in-plugin.ts'
import type { ModelCachePolicy, ModelCatalogue, ModelInfo, ModelsQuery } from '../schemas/models.ts'
import { HearthError } from '../schemas/problems.ts'
import type { ResolvedProfile } from '../settings/profiles.ts'
import { type CacheRule, matchCachePolicy } from './cache-policy.ts'
import type { Catalogue, CatalogueState } from './catalogue.ts'
import { discoveredList } from './discovered.ts'
import { catalogueProviderOf, isExtension } from './provider-map.ts'
import { byId, discoveredRow, manualRow } from './rows.ts'

export interface ModelsServiceDeps {
  catalogue: Catalogue
  profiles: { resolve(name: string): ResolvedProfile | undefined }
  /** User cache rules from settings, consulted before the built-in table. */
  cacheRules: () => readonly CacheRule[]
  /** Facts per model id from settings (`models.overrides`) that win over the catalogue. */
  overrides?: () => Readonly<Record<string, Partial<ModelInfo>>>
  /** Providers' own model lists (their descriptor's `catalogue.discover`), when the daemon has them. */
  discovery?: DiscoveryDeps
}

export interface DiscoveryDeps {
  /** The home the lists are cached in. */
  home: string
  /** A credential to list a provider's models with (a profile's bound account), or null: none. */
  credential(extension: string, accountId: string | null): Promise<StoredCredential | null>
}

/** A provider's own model list as a listing uses it. */
export interface DiscoveredList {
  fetchedAt: number
  models: readonly DiscoveredModel[]
}

/** Overridable facts (settings `models.overrides`); any other key there is ignored. */
const OVERRIDABLE = ['context_window', 'max_output_tokens', 'reasoning', 'image_input'] as const

function withOverrides(row: ModelInfo, o: Partial<ModelInfo> | undefined): ModelInfo {
  if (!o) return row
  const out = { ...row }
  for (const k of OVERRIDABLE) if (o[k] !== undefined) (out as Record<string, unknown>)[k] = o[k]
  return out
}

/** What a catalogue request asks for once its parameters are checked and resolved. */
export interface CataloguePlan {
  provider_profile: string | null
  extension: string | null
  endpoint: string | null
  /** The catalogue provider id, null when none describes these models. */
  provider: string | null
  /** The model to describe (the query's), or null to list the provider's models. */
  model: string | null
  /** A profile's configured model, listed as a manual row when the catalogue lacks it. */
  profileModel: string | null
  /** The provider's own model list (they are the listing), or null when it has none. */
  discovered: DiscoveredList | null
}

export interface CataloguePage {
  body: Omit<ModelCatalogue, 'next'>
  /** The id of the last row when more rows follow, else null. */
  last: string | null
}

/** A plan before its query's model and its discovered list are added. */
type Planned = Omit<CataloguePlan, 'model' | 'discovered'> & { accountId: string | null }

const CATALOGUE_ONLY = ['provider_profile', 'provider', 'endpoint', 'model', 'limit', 'next'] as const
const POLICY_ONLY = ['extension', 'host'] as const

function refuse(detail: string): never {
  throw new HearthError('invalid_model_query', detail)
}

function given(q: ModelsQuery, names: readonly (keyof ModelsQuery)[]): string[] {
  return names.filter((n) => q[n] !== undefined)
}

export class ModelsService {
  readonly #d: ModelsServiceDeps
  constructor(d: ModelsServiceDeps) {
    this.#d = d
  }

  cachePolicy(q: ModelsQuery): ModelCachePolicy {
    const wrong = given(q, CATALOGUE_ONLY)
    if (wrong.length > 0) refuse(`view=cache-policy takes extension and host, not ${wrong.join(', ')}`)
    const extension = q.extension ?? ''
    const host = q.host ?? ''
    const { rule, source } = matchCachePolicy(this.#d.cacheRules(), extension, host)
    return {
      view: 'cache-policy',
      extension,
      host,
      matched: { extension: rule.extension, host: rule.host, source },
      policy: rule.policy,
    }
  }

  /** Checks the catalogue parameters and resolves the profile or provider they name. */
  async plan(q: ModelsQuery): Promise<{ plan: CataloguePlan; state: CatalogueState }> {
    const wrong = given(q, POLICY_ONLY)
    if (wrong.length > 0) refuse(`${wrong.join(' and ')} select a cache policy: use view=cache-policy`)
    if ((q.provider_profile === undefined) === (q.provider === undefined))
      refuse('give exactly one of provider_profile or provider')
    if (q.endpoint !== undefined && q.provider === undefined) refuse('endpoint is only taken with provider')
    if (q.model !== undefined && q.next !== undefined) refuse('model reads one row; next pages a listing')
    const state = await this.#d.catalogue.current()
    const plan =
      q.provider_profile !== undefined ? this.#ofProfile(q.provider_profile) : this.#ofProvider(q, state)
    const discovered = await discoveredList(this.#d.discovery, plan.extension, plan.accountId)
    return { plan: { ...plan, model: q.model ?? null, discovered }, state }
  }

  #ofProfile(name: string): Planned {
    const p = this.#d.profiles.resolve(name)
    if (!p) throw new HearthError('profile_not_found', `No provider profile is named ${name}`)
    const endpoint = p.transport.endpoint || null
    return {
      provider_profile: name,
      extension: p.extension,
      endpoint,
      provider: catalogueProviderOf(p.extension, endpoint),
      profileModel: p.transport.model || null,
      accountId: p.account_id,
    }
  }

  /** An extension name maps like a profile would; otherwise it is a catalogue provider id. */
  #ofProvider(q: ModelsQuery, state: CatalogueState): Planned {
    const name = q.provider as string
    const endpoint = q.endpoint ?? null
    const base = { provider_profile: null, endpoint, profileModel: null, accountId: null }
    if (isExtension(name)) return { ...base, extension: name, provider: catalogueProviderOf(name, endpoint) }
    if (!state.has(name))
      throw new HearthError('provider_not_found', `${name} is neither an extension nor a catalogue provider`)
    return { ...base, extension: null, provider: name }
  }

  /** One page of rows after `after` (an id), or the one row `model` names. */
  page(plan: CataloguePlan, state: CatalogueState, after: string | null, limit: number): CataloguePage {
    const body = {
      view: 'catalogue' as const,
      provider_profile: plan.provider_profile,
      extension: plan.extension,
      endpoint: plan.endpoint,
      provider: plan.provider,
      source: plan.discovered
        ? { kind: 'cache' as const, updated_at: new Date(plan.discovered.fetchedAt).toISOString() }
        : { kind: state.kind, updated_at: state.updatedAt },
    }
    const overrides = this.#d.overrides?.() ?? {}
    const shown = (r: ModelInfo) => withOverrides(r, overrides[r.id])
    if (plan.model !== null)
      return { body: { ...body, items: [shown(this.#one(plan, state, plan.model))] }, last: null }
    const rows = this.#all(plan, state)
    const start = after === null ? 0 : rows.findIndex((r) => r.id > after)
    const items = start < 0 ? [] : rows.slice(start, start + limit).map(shown)
    const more = start >= 0 && start + limit < rows.length
    return { body: { ...body, items }, last: more ? items[items.length - 1].id : null }
  }

  /**
   * The context window of `model` as a session on profile `profileName` runs it: the
   * catalogue's figure for the profile's provider, a settings override winning; null when
   * neither knows it or the profile is gone.
   */
  async contextWindow(profileName: string, model: string): Promise<number | null> {
    if (!this.#d.profiles.resolve(profileName)) return null
    await this.#d.catalogue.current()
    return this.contextWindowNow(profileName, model)
  }

  /** contextWindow without waiting: null too while the catalogue is not loaded yet. */
  contextWindowNow(profileName: string, model: string): number | null {
    const p = this.#d.profiles.resolve(profileName)
    const state = p && this.#d.catalogue.peek()
    if (!p || !state) return null
    const provider = catalogueProviderOf(p.extension, p.transport.endpoint || null)
    const discovered = cachedList(this.#d.discovery, p.extension)
    const row = rowOf(state, p.extension, provider, model, discovered)
    const shown = withOverrides(row, this.#d.overrides?.()[model])
    return typeof shown.context_window === 'number' ? shown.context_window : null
  }

  #one(plan: CataloguePlan, state: CatalogueState, model: string): ModelInfo {
    return rowOf(state, plan.extension, plan.provider, model, plan.discovered)
  }

  /**
   * The provider's models (those its extension lists, e.g. for claude only its six
   * families), with the profile's model added when unlisted (its row, else a manual one).
   */
  #all(plan: CataloguePlan, state: CatalogueState): readonly ModelInfo[] {
    const listed = plan.discovered
      ? plan.discovered.models.map((m) =>
          discoveredRow(plan.provider, m, catalogued(state, plan.provider, m.id)),
        )
      : this.#catalogueRows(plan, state)
    const extra = plan.profileModel
    if (extra === null || listed.some((r) => r.id === extra))
      return plan.discovered ? [...listed].sort(byId) : listed
    return [...listed, rowOf(state, plan.extension, plan.provider, extra, plan.discovered)].sort(byId)
  }

  #catalogueRows(plan: CataloguePlan, state: CatalogueState): readonly ModelInfo[] {
    const rows = plan.provider === null ? [] : state.rows(plan.provider)
    const lists = plan.extension === null ? undefined : providerOf(plan.extension)?.catalogue.lists
    return lists ? rows.filter((r) => lists(r.id)) : rows
  }
}

/** The provider's own list as cached now (no fetch), for callers that cannot wait. */
function cachedList(discovery: DiscoveryDeps | undefined, extension: string): DiscoveredList | null {
  const discover = providerOf(extension)?.catalogue.discover
  return discovery && discover ? discover.cached(discovery.home) : null
}

function catalogued(state: CatalogueState, provider: string | null, model: string): ModelInfo | undefined {
  return provider === null ? undefined : state.row(provider, model)
}

/**
 * A model's row: the provider's own list's (catalogue facts added), else the catalogue's,
 * else that of the model it stands for (a bedrock inference profile's: the facts of the
 * model it routes to, under its own id), else manual.
 */
function rowOf(
  state: CatalogueState,
  extension: string | null,
  provider: string | null,
  model: string,
  discovered: DiscoveredList | null = null,
): ModelInfo {
  const own = discovered?.models.find((m) => m.id === model)
  if (own) return discoveredRow(provider, own, catalogued(state, provider, model))
  if (provider === null) return manualRow(provider, model)
  const listed = state.row(provider, model)
  if (listed) return listed
  const base = extension === null ? null : (providerOf(extension)?.catalogue.baseModel?.(model) ?? null)
  const row = base === null ? undefined : state.row(provider, base)
  return row ? { ...row, id: model } : manualRow(provider, model)
}
