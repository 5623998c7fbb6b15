// The providers hearth can talk to: one descriptor per provider extension, listed once.
//
// Adding a provider is one folder and one entry here (its import and its place in
// PROVIDERS). The folder, src/providers/<id>/, holds its wire code and, under fixed names:
// descriptor.ts (what ProviderDescriptor in ../descriptor.ts asks: extension facts,
// catalogue, cache rules, profile rules, sign-in), transport.ts (exporting `transport`)
// and warm.ts (`warmSteps`), which the kernel finds by the id (transports.ts), and
// signin.ts when its accounts sign in. The id is also a word of the protocol, so it joins
// the contract's lists in src/schemas/extensions.ts (with its sign-in and quota feed, if
// any: a descriptor's `quota.feed`); this module checks when it loads that the two agree. Nothing outside
// src/providers/ names a vendor: settings, the catalog, models, accounts and the kernel's
// warm-up read the providers (test/contract/vendor-ids.test.ts keeps it so).
//
// The daemon imports this module; a kernel never does, so the descriptors and sign-ins
// stay out of the kernel's bundle and the transports out of the daemon's.
import {
  DEFAULT_EXTENSION,
  PROVIDER_EXTENSIONS,
  QUOTA_FEEDS,
  SIGN_IN_EXTENSIONS,
} from '../schemas/extensions.ts'
import { antigravity } from './antigravity/descriptor.ts'
import { bedrock } from './bedrock/descriptor.ts'
import { chatgpt } from './chatgpt/descriptor.ts'
import { claude } from './claude/descriptor.ts'
import { copilot } from './copilot/descriptor.ts'
import type { ProviderDescriptor } from './descriptor.ts'
import { openaiCompatible } from './openai-compatible/descriptor.ts'
import { vertex } from './vertex/descriptor.ts'

export type { ProviderDescriptor }

/** Every provider, in the order of the contract's list (PROVIDER_EXTENSIONS). */
export const PROVIDERS: readonly ProviderDescriptor[] = [
  openaiCompatible,
  chatgpt,
  claude,
  antigravity,
  bedrock,
  vertex,
  copilot,
]

const BY_ID: ReadonlyMap<string, ProviderDescriptor> = new Map(PROVIDERS.map((p) => [p.id, p]))

/** The provider of a profile's extension (absent → `openai-compatible`), or undefined if unknown. */
export function providerOf(extension: string | null | undefined): ProviderDescriptor | undefined {
  return BY_ID.get(extension ?? DEFAULT_EXTENSION)
}

/** Whether a profile of this extension can be used (absent → `openai-compatible`). */
export function hasTransport(extension: string | null | undefined): boolean {
  return providerOf(extension) !== undefined
}

export function providerIds(): string[] {
  return PROVIDERS.map((p) => p.id)
}

/** Whether a request to this extension carries the reasoning text of earlier answers. */
export function replaysReasoningText(extension: string | null | undefined): boolean {
  return providerOf(extension)?.replaysReasoningText ?? false
}

/** The descriptors must say what the contract lists, no more and no less. */
function checkAgainstContract(): void {
  const differ = (what: string, ours: readonly string[], contract: readonly string[]) => {
    if (ours.join() !== contract.join())
      throw new Error(
        `src/schemas/extensions.ts lists ${what} ${contract.join(', ')}; the descriptors ${ours.join(', ')}`,
      )
  }
  differ('providers', providerIds(), PROVIDER_EXTENSIONS)
  differ(
    'sign-ins',
    PROVIDERS.filter((p) => p.signIn).map((p) => p.id),
    SIGN_IN_EXTENSIONS,
  )
  const feeds = (pairs: [string, string | null][]) =>
    pairs.filter(([, feed]) => feed !== null).map(([id, feed]) => `${id}→${feed}`)
  differ(
    'quota feeds',
    feeds(PROVIDERS.map((p) => [p.id, p.quota?.feed ?? null])),
    feeds(PROVIDER_EXTENSIONS.map((id) => [id, QUOTA_FEEDS[id] ?? null])),
  )
}

checkAgainstContract()
