// JSON merge patch (RFC 7396) and small helpers the settings groups share.
import type { JsonObject } from './files.ts'

export const isObject = (v: unknown): v is JsonObject =>
  v !== null && typeof v === 'object' && !Array.isArray(v)

/** RFC 7396: objects merge member by member, null removes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch)
  const out: JsonObject = isObject(target) ? { ...target } : {}
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key]
    else out[key] = mergePatch(out[key], value)
  }
  return out
}

/** A member that is an object, or a fresh empty one (hand-edited files may hold anything). */
export function objectAt(parent: JsonObject, key: string): JsonObject {
  const v = parent[key]
  return isObject(v) ? v : {}
}

/** Sets `parent[key]`, or removes it when the object is empty (files keep no empty shells). */
export function setOrDrop(parent: JsonObject, key: string, value: JsonObject): void {
  if (Object.keys(value).length === 0) delete parent[key]
  else parent[key] = value
}

export const SAVED = { saved: true } as const
