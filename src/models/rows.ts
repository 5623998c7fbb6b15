// Catalogue entries as ModelInfo rows. Every fact the catalogue does not state (or states
// with the wrong type) is null: a client must be able to tell "unknown" from "no".
import type { DiscoveredModel } from '../providers/descriptor.ts'
import type { ModelInfo } from '../schemas/models.ts'
import type { RawModel } from './catalogue-shape.ts'

const flag = (v: unknown): boolean | null => (typeof v === 'boolean' ? v : null)
const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null)
const count = (v: unknown): number | null =>
  Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : null
const price = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null

function strings(v: unknown): string[] | null {
  return Array.isArray(v) && v.every((s) => typeof s === 'string') ? [...v] : null
}

/**
 * cap_key names the capability set of a model: `<catalogue provider id>/<model id>` for a
 * listed model (provider ids never hold "/", so the first "/" splits it back), and
 * `manual/<model id>` for an id the catalogue does not list, whose facts are all unknown.
 */
export function capKey(provider: string | null, modelId: string, listed: boolean): string {
  return listed && provider !== null ? `${provider}/${modelId}` : `manual/${modelId}`
}

export function listedRow(provider: string, id: string, m: RawModel): ModelInfo {
  const input = strings(m.modalities?.input)
  return {
    id,
    name: text(m.name),
    provider,
    cap_key: capKey(provider, id, true),
    listed: true,
    context_window: count(m.limit?.context),
    max_output_tokens: count(m.limit?.output),
    reasoning: flag(m.reasoning),
    tool_call: flag(m.tool_call),
    image_input: input === null ? null : input.includes('image'),
    attachment: flag(m.attachment),
    temperature: flag(m.temperature),
    open_weights: flag(m.open_weights),
    input_modalities: input,
    output_modalities: strings(m.modalities?.output),
    knowledge: text(m.knowledge),
    release_date: text(m.release_date),
    last_updated: text(m.last_updated),
    cost: {
      input: price(m.cost?.input),
      output: price(m.cost?.output),
      cache_read: price(m.cost?.cache_read),
      cache_write: price(m.cost?.cache_write),
    },
  }
}

/** A model id the catalogue does not list: usable, with every fact unknown. */
export function manualRow(provider: string | null, id: string): ModelInfo {
  return {
    id,
    name: null,
    provider,
    cap_key: capKey(provider, id, false),
    listed: false,
    context_window: null,
    max_output_tokens: null,
    reasoning: null,
    tool_call: null,
    image_input: null,
    attachment: null,
    temperature: null,
    open_weights: null,
    input_modalities: null,
    output_modalities: null,
    knowledge: null,
    release_date: null,
    last_updated: null,
    cost: { input: null, output: null, cache_read: null, cache_write: null },
  }
}

/**
 * A model of a provider's own list (Copilot's models endpoint): what the list states, the
 * catalogue's row of the same id (when one is known) filling the facts it leaves unknown.
 */
export function discoveredRow(
  provider: string | null,
  m: DiscoveredModel,
  catalogued?: ModelInfo,
): ModelInfo {
  const base = catalogued ?? manualRow(provider, m.id)
  const pick = <T>(own: T | null, known: T | null) => (own === null ? known : own)
  return {
    ...base,
    id: m.id,
    provider,
    cap_key: capKey(provider, m.id, true),
    listed: true,
    name: pick(m.name, base.name),
    context_window: pick(m.context_window, base.context_window),
    max_output_tokens: pick(m.max_output_tokens, base.max_output_tokens),
    reasoning: pick(m.reasoning, base.reasoning),
    tool_call: pick(m.tool_call, base.tool_call),
    image_input: pick(m.image_input, base.image_input),
  }
}

/** Code-unit order: the order of the keyset pages, the same in every locale. */
export function byId(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}
