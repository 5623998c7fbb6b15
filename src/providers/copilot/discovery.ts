// Copilot's models as GET /models lists them for a copilot profile: the account's own list
// (model-cache.ts), each model's facts from its `capabilities`.
import type { DiscoveredModel, ModelDiscovery } from '../descriptor.ts'
import type { CopilotModelList } from './model-cache.ts'
import { copilotModelCache } from './model-cache.ts'
import type { CopilotModel } from './models.ts'

function discovered(m: CopilotModel): DiscoveredModel {
  return {
    id: m.id,
    name: m.name,
    context_window: m.contextWindow,
    max_output_tokens: m.maxOutputTokens,
    reasoning: m.efforts.length > 0 ? true : null,
    image_input: m.imageInput,
    tool_call: m.toolCalls,
  }
}

/** Each list read once mapped (a session's context window reads it per stream). */
const mapped = new WeakMap<CopilotModelList, { fetchedAt: number; models: DiscoveredModel[] }>()

export const copilotDiscovery: ModelDiscovery = {
  cached(home) {
    const list = copilotModelCache(home).current()
    if (!list) return null
    let rows = mapped.get(list)
    if (!rows) {
      rows = { fetchedAt: list.fetchedAt, models: list.models.map(discovered) }
      mapped.set(list, rows)
    }
    return rows
  },
  stale: (home) => copilotModelCache(home).stale(),
  refresh: (home, credential, signal) => copilotModelCache(home).refresh(credential, signal),
  expire: (home) => copilotModelCache(home).expire(),
}
