// Extension id → provider. A stored profile with no `extension` is `openai-compatible`.
// Later providers add their sign-in and quota codecs to the same entry. This map is the one
// source of truth for which provider extensions can be used: settings accept a profile
// only for an extension listed here, and runs refuse any other before reaching the kernel.
import { chatgpt } from './chatgpt/transport.ts'
import { openaiCompatible } from './openai-compatible/transport.ts'
import type { Transport } from './types.ts'

export const DEFAULT_EXTENSION = 'openai-compatible'

export interface Provider {
  /** The extension id, as stored in a profile's `extension` field and in creds.json. */
  id: string
  transport: Transport
}

const PROVIDERS: ReadonlyMap<string, Provider> = new Map([
  [DEFAULT_EXTENSION, { id: DEFAULT_EXTENSION, transport: openaiCompatible }],
  ['chatgpt', { id: 'chatgpt', transport: chatgpt }],
])

/** The provider for a profile's extension id (absent → `openai-compatible`), or null if unknown. */
export function providerFor(extension: string | null | undefined): Provider | null {
  return PROVIDERS.get(extension ?? DEFAULT_EXTENSION) ?? null
}

export function transportFor(extension: string | null | undefined): Transport | null {
  return providerFor(extension)?.transport ?? null
}

/** Whether a profile of this extension can be used (absent → `openai-compatible`). */
export function hasTransport(extension: string | null | undefined): boolean {
  return providerFor(extension) !== null
}

export function providerIds(): string[] {
  return [...PROVIDERS.keys()]
}
