// Extension id → provider, with its transport. A stored profile with no `extension` is
// `openai-compatible`. Later providers add their sign-in and quota codecs to the same entry.
// The ids alone live in ids.ts, which settings and runs use to accept or refuse a profile;
// this map must list exactly those ids (checked when it loads).
import { antigravity } from './antigravity/transport.ts'
import { bedrock } from './bedrock/transport.ts'
import { chatgpt } from './chatgpt/transport.ts'
import { claude } from './claude/transport.ts'
import { DEFAULT_EXTENSION, PROVIDER_IDS } from './ids.ts'
import { openaiCompatible } from './openai-compatible/transport.ts'
import type { Transport } from './types.ts'
import { vertex } from './vertex/transport.ts'

export { DEFAULT_EXTENSION, hasTransport, providerIds } from './ids.ts'

export interface Provider {
  /** The extension id, as stored in a profile's `extension` field and in creds.json. */
  id: string
  transport: Transport
}

const PROVIDERS: ReadonlyMap<string, Provider> = new Map([
  [DEFAULT_EXTENSION, { id: DEFAULT_EXTENSION, transport: openaiCompatible }],
  ['chatgpt', { id: 'chatgpt', transport: chatgpt }],
  ['claude', { id: 'claude', transport: claude }],
  ['bedrock', { id: 'bedrock', transport: bedrock }],
  ['vertex', { id: 'vertex', transport: vertex }],
  ['antigravity', { id: 'antigravity', transport: antigravity }],
])

/** The provider for a profile's extension id (absent → `openai-compatible`), or null if unknown. */
export function providerFor(extension: string | null | undefined): Provider | null {
  return PROVIDERS.get(extension ?? DEFAULT_EXTENSION) ?? null
}

export function transportFor(extension: string | null | undefined): Transport | null {
  return providerFor(extension)?.transport ?? null
}

if ([...PROVIDERS.keys()].join() !== PROVIDER_IDS.join())
  throw new Error(
    `providers/ids.ts lists ${PROVIDER_IDS.join(', ')}; registry.ts has ${[...PROVIDERS.keys()].join(', ')}`,
  )
