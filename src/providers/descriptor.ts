// What a provider is: one descriptor per provider extension, in src/providers/<id>/descriptor.ts,
// listed by registry.ts. Everything the daemon knows of a vendor is read from here: its
// extension facts, catalogue, prompt-cache rules, what a profile needs, and how its
// accounts sign in and lend a run their credential.
//
// The daemon loads the descriptors (settings, catalog, models, accounts, runs); a kernel
// never does. What a kernel runs sits beside the descriptor under fixed names, found by
// the provider's id (transports.ts): transport.ts exports `transport`, warm.ts its
// `warmSteps`. So the daemon's bundle holds no transport and a kernel's no sign-in.
import type { CachePolicy } from '../schemas/models.ts'
import type { QuotaFacts } from './shared/quota.ts'
import type { SignInPlugin, StoredCredential } from './shared/sign-in-plugin.ts'
import type { TransportProfile } from './types.ts'

export interface ProviderDescriptor {
  /** The extension id: a profile's `extension`, the creds.json store key of its accounts. */
  id: string
  /** The extension as GET /server and the catalog show it. */
  extension: {
    version: number
    /** The catalog's one-line description. */
    description: string
    /** Extensions it needs enabled to work. */
    requires: readonly string[]
  }
  /** Which catalogue provider describes its models (GET /models). */
  catalogue: CatalogueFacts
  /** Its built-in prompt-cache rules, by host ("" matches any host); settings rules come first. */
  cache: readonly { host: string; policy: CachePolicy }[]
  /** What a saved profile of it must say. */
  profile: ProfileRules
  /**
   * Whether a request carries the reasoning text of earlier answers: the wire takes it
   * back (Gemini's thought parts; Chat Completions' `reasoning_content` beside tool calls,
   * which DeepSeek and Kimi need in a tool loop).
   */
  replaysReasoningText: boolean
  /** How its usage is polled (its quota.ts), or null when it has no usage feed. */
  quota: QuotaFacts | null
  /** How its accounts sign in (its signin.ts), or null when a profile carries its own key. */
  signIn: SignInFacts | null
}

export type { CoreHandoff, LimitReset, QuotaFacts } from './shared/quota.ts'

export interface CatalogueFacts {
  /** The catalogue provider id wherever the endpoint points, or null: known by host only. */
  provider: string | null
  /** Endpoint hosts that name a catalogue provider (when `provider` is null). */
  byHost?: Readonly<Record<string, string>>
  /** Which of the catalogue provider's rows a listing shows (all when absent). */
  lists?: (model: string) => boolean
  /** The listed model an unlisted id stands for (a routing prefix removed), or null. */
  baseModel?: (model: string) => string | null
  /**
   * The provider's own model list, when it serves one per account (Copilot's models
   * endpoint): its models are the listing of a profile of this extension, and catalogue
   * rows of the same id add the facts it does not state.
   */
  discover?: ModelDiscovery
}

/** A provider's model list, cached under the daemon's home; see CatalogueFacts.discover. */
export interface ModelDiscovery {
  /** The models listed last and when (epoch ms), or null when none are cached. Never fetches. */
  cached(home: string): { fetchedAt: number; models: readonly DiscoveredModel[] } | null
  /** Whether there is no list or it is older than the provider's time to live. */
  stale(home: string): boolean
  /** Lists the models again with `credential`; a failure keeps the cache and resolves false. */
  refresh(home: string, credential: StoredCredential, signal?: AbortSignal): Promise<boolean>
  /** Marks the cached list stale (kept for use until listed again): a catalogue refresh did. */
  expire(home: string): Promise<void>
}

/** What a provider's model list says of one model (null: it does not say). */
export interface DiscoveredModel {
  id: string
  name: string | null
  context_window: number | null
  max_output_tokens: number | null
  reasoning: boolean | null
  image_input: boolean | null
  tool_call: boolean | null
}

export interface ProfileRules {
  /** It talks to an endpoint the user names. */
  needsEndpoint: boolean
  /** It must name a model (no account or backend picks one). */
  needsModel: boolean
  /** What is wrong with a stored profile beyond that (a detail for invalid_settings), or null. */
  check?: (profile: Readonly<Record<string, unknown>>) => string | null
}

export interface SignInFacts extends SignIn {
  /**
   * Settings `providers.sign_in.<id>` defaults (its public OAuth client), when the settings
   * may name another client.
   */
  settings?: Readonly<Record<string, string | number>>
  /**
   * What a 401 does to the account: `remove` it (its credential is dead), or `expire` the
   * access token it was handed, so the next run refreshes it.
   */
  unauthorized: 'remove' | 'expire'
  /** The meter a model draws on, when a 429 limits one meter of the account and not all of it. */
  meterOf?: (model: string) => string | null
}

/** A provider's sign-in as the daemon runs it (src/providers/<id>/signin.ts). */
export interface SignIn {
  /** The plugin for the sign-in settings (`providers.sign_in.<id>` with its defaults). */
  plugin(settings: Readonly<Record<string, unknown>>): SignInPlugin
  /**
   * The transport profile a run's steps use on the account holding `credential`; `profile`
   * carries the run's model.
   */
  runProfile(
    profile: TransportProfile,
    credential: StoredCredential,
    sessionId: string,
    context: RunContext,
  ): TransportProfile | Promise<TransportProfile>
  /**
   * A credential lent for a run when no account of the provider can be used (the signed-in
   * GitHub CLI's token), given the sign-in settings; read for each run, never stored. Throws
   * a SignInError whose message says plainly why it cannot be had.
   */
  borrow?(settings: Readonly<Record<string, unknown>>, signal: AbortSignal): Promise<StoredCredential>
}

/** What the daemon tells a sign-in's runProfile beside the credential. */
export interface RunContext {
  /** The daemon's home (its caches live under HOME/cache). */
  home: string
}

/** Prompt-cache policies (what each vendor supports is said in its descriptor). */
export const NO_CACHE_HINTS: CachePolicy = {
  mode: 'implicit',
  key: null,
  retention: null,
  ttl_seconds: null,
  breakpoints: null,
}
/** Anthropic Messages: `cache_control` breakpoints, at most 4, living 5 minutes. */
export const CACHE_BREAKPOINTS: CachePolicy = {
  ...NO_CACHE_HINTS,
  mode: 'explicit',
  ttl_seconds: 300,
  breakpoints: 4,
}
/** OpenAI Responses: `prompt_cache_key` set to the session. */
export const CACHE_SESSION_KEY: CachePolicy = { ...NO_CACHE_HINTS, key: 'session' }
