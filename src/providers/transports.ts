// The kernel's side of the registry: every provider's transport and warm-up turns, loaded
// once when a kernel process starts (top-level await). Only kernel code imports this
// module; the daemon reads the descriptors alone (registry.ts).
import type { WarmTurn } from './descriptor.ts'
import { PROVIDERS, providerOf } from './registry.ts'
import type { Transport } from './types.ts'

const TRANSPORTS: ReadonlyMap<string, Transport> = new Map(
  await Promise.all(PROVIDERS.map(async (p) => [p.id, await p.transport()] as const)),
)

/** Warm-up turns of every wire, in registry order. */
export const WARM_TURNS: readonly WarmTurn[] = (
  await Promise.all(PROVIDERS.map((p) => (p.warmUp ? p.warmUp() : [])))
).flat()

/** The transport of a profile's extension (absent → `openai-compatible`), or null if unknown. */
export function transportFor(extension: string | null | undefined): Transport | null {
  const provider = providerOf(extension)
  return provider ? (TRANSPORTS.get(provider.id) ?? null) : null
}
