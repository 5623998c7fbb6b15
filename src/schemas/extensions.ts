// The extensions of protocol 3 by id: contract facts the settings schema, the catalog and
// the clients read, so this module imports nothing. What each provider extension is (its
// transport, sign-in, cache policy, catalogue …) is said once, in its descriptor under
// src/providers/<id>/; the provider registry (src/providers/registry.ts) checks when it
// loads that its descriptors list exactly PROVIDER_EXTENSIONS, SIGN_IN_EXTENSIONS and
// QUOTA_FEEDS below.

/** The provider extensions: a profile's `extension` is one of them. */
export const PROVIDER_EXTENSIONS = [
  'openai-compatible',
  'chatgpt',
  'claude',
  'antigravity',
  'bedrock',
  'vertex',
  'copilot',
] as const

/** Extensions hearth knows: the model catalogue, the providers, and work and paperclips. */
export const EXTENSIONS = ['models', ...PROVIDER_EXTENSIONS, 'work', 'paperclips'] as const
export type Extension = (typeof EXTENSIONS)[number]

/** The extension of a stored profile that names none. */
export const DEFAULT_EXTENSION = 'openai-compatible' satisfies Extension

/** Provider extensions whose accounts sign in (GET /auth offers them, in this order). */
export const SIGN_IN_EXTENSIONS = [
  'chatgpt',
  'claude',
  'antigravity',
  'copilot',
] as const satisfies readonly Extension[]

/** What `hearth login` signs in to when no provider is named. */
export const DEFAULT_SIGN_IN = 'chatgpt' satisfies (typeof SIGN_IN_EXTENSIONS)[number]

/**
 * The usage feed's provider id for each store key that has a quota feed: readings carry the
 * feed's id (`provider`), while accounts and profiles name the store key (extension).
 */
export const QUOTA_FEEDS: Readonly<Record<string, string>> = {
  chatgpt: 'codex',
  claude: 'claude',
  antigravity: 'antigravity',
  copilot: 'copilot',
}

/** What the settings schema says of a profile's `extension`. */
export const PROFILE_EXTENSION_NOTE = `Provider extension; a stored profile without it is ${DEFAULT_EXTENSION}. Usable now: ${PROVIDER_EXTENSIONS.join(', ')}; a profile of another one is refused with provider_unsupported until hearth has a transport for it`
