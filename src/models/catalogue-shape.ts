// The public model catalogue in the models.dev `api.json` shape: a top-level object keyed by
// provider id, each provider with a `models` map keyed by model id. The daemon and
// `hearth models refresh` check it the same way. No field of a model is trusted: every fact
// is optional and one of the wrong type reads as unknown (null), never as a failure.
import { join } from 'node:path'

export interface RawModel {
  id?: unknown
  name?: unknown
  attachment?: unknown
  reasoning?: unknown
  tool_call?: unknown
  temperature?: unknown
  open_weights?: unknown
  knowledge?: unknown
  release_date?: unknown
  last_updated?: unknown
  modalities?: { input?: unknown; output?: unknown }
  cost?: Record<string, unknown>
  limit?: Record<string, unknown>
}

export interface RawProvider {
  id?: unknown
  name?: unknown
  models: Record<string, RawModel>
}

export type RawCatalogue = Record<string, RawProvider>

/** Where `hearth models refresh` writes the catalogue and the daemon looks for it. */
export function modelsCachePath(home: string): string {
  return join(home, 'cache', 'models.json')
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

export type ShapeCheck = { ok: true; catalogue: RawCatalogue; models: number } | { ok: false; reason: string }

/**
 * Whether a parsed JSON value is a catalogue: a non-empty object of providers, each an object
 * with a `models` object whose entries are objects, and at least one model in all. The reason
 * names the first place that breaks the shape.
 */
export function checkCatalogue(value: unknown): ShapeCheck {
  if (!isPlainObject(value)) return { ok: false, reason: 'the top level is not an object of providers' }
  const ids = Object.keys(value)
  if (ids.length === 0) return { ok: false, reason: 'it lists no providers' }
  let models = 0
  for (const id of ids) {
    const provider = value[id]
    if (!isPlainObject(provider)) return { ok: false, reason: `provider ${id} is not an object` }
    if (!isPlainObject(provider.models)) return { ok: false, reason: `provider ${id} has no models map` }
    for (const [modelId, model] of Object.entries(provider.models)) {
      if (!isPlainObject(model)) return { ok: false, reason: `model ${id}/${modelId} is not an object` }
      models++
    }
  }
  if (models === 0) return { ok: false, reason: 'it lists no models' }
  return { ok: true, catalogue: value as RawCatalogue, models }
}
