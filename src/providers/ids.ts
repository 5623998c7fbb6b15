// The provider extensions hearth can talk to, by id: the light half of the registry. The
// daemon, the settings and the schemas need only the names (which profiles are usable);
// the transports themselves run in kernel processes (registry.ts), so loading them here
// would cost the daemon's and every CLI command's start for nothing.

export const DEFAULT_EXTENSION = 'openai-compatible'

/** Extensions with a transport in registry.ts (which checks that the two lists agree). */
export const PROVIDER_IDS: readonly string[] = [
  DEFAULT_EXTENSION,
  'chatgpt',
  'claude',
  'bedrock',
  'vertex',
  'antigravity',
]

/** Whether a profile of this extension can be used (absent → `openai-compatible`). */
export function hasTransport(extension: string | null | undefined): boolean {
  return PROVIDER_IDS.includes(extension ?? DEFAULT_EXTENSION)
}

export function providerIds(): string[] {
  return [...PROVIDER_IDS]
}

/**
 * Extensions whose wire takes earlier reasoning text back: Gemini's thought parts, and Chat
 * Completions' `reasoning_content` beside an assistant message's `tool_calls` (DeepSeek and
 * Kimi refuse a tool loop without it; openai-chat/encode.ts decides where it goes, and the
 * Responses encoder leaves plain reasoning text out).
 */
const REASONING_TEXT_REPLAYED: readonly string[] = ['vertex', DEFAULT_EXTENSION]

/** Whether a request to this extension carries the reasoning text of earlier answers. */
export function replaysReasoningText(extension: string | null | undefined): boolean {
  return REASONING_TEXT_REPLAYED.includes(extension ?? DEFAULT_EXTENSION)
}

/**
 * The usage feed's provider id for each store key that has a quota feed: readings carry the
 * feed's id (`provider`), while accounts and profiles name the store key (extension).
 */
export const QUOTA_FEED_PROVIDERS: Readonly<Record<string, string>> = {
  chatgpt: 'codex',
  claude: 'claude',
  antigravity: 'antigravity',
}
