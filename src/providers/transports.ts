// The kernel's side of the providers: each one's transport and warm-up steps, loaded once
// when a kernel process starts (top-level await). A provider folder holds them under fixed
// names, transport.ts (`transport`) and warm.ts (`warmSteps`), found here by the provider's
// id, so the bundler takes every folder's into the kernel's bundle and the daemon, which
// never imports this module, holds none of them. The ids are the contract's list, which
// the registry checks its descriptors against.
import { DEFAULT_EXTENSION, PROVIDER_EXTENSIONS } from '../schemas/extensions.ts'
import type { Transport, WarmStep } from './types.ts'

interface KernelSide {
  transport: Transport
  warmSteps: readonly WarmStep[]
}

const loaded: [string, KernelSide][] = await Promise.all(
  PROVIDER_EXTENSIONS.map(async (id): Promise<[string, KernelSide]> => {
    const [{ transport }, { warmSteps }] = await Promise.all([
      import(`./${id}/transport.ts`),
      import(`./${id}/warm.ts`),
    ])
    return [id, { transport, warmSteps }]
  }),
)
const BY_ID: ReadonlyMap<string, KernelSide> = new Map(loaded)

/** Warm-up steps of every wire, in the contract's order of providers. */
export const WARM_STEPS: readonly WarmStep[] = loaded.flatMap(([, side]) => side.warmSteps)

/** The transport of a profile's extension (absent → `openai-compatible`), or null if unknown. */
export function transportFor(extension: string | null | undefined): Transport | null {
  return BY_ID.get(extension ?? DEFAULT_EXTENSION)?.transport ?? null
}
