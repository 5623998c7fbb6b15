// A group's edits before they are sent: values by path, turned into the group's merge patch
// (RFC 7396: a nested object of the changed fields; null removes). A secret reads as
// {"saved": true}; it is only ever replaced (a string) or removed (null), never shown.

export type Path = readonly string[]
export type Draft = ReadonlyMap<string, unknown>

export const keyOf = (path: Path) => JSON.stringify(path)

export function isSavedSecret(v: unknown): boolean {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    (v as { saved?: unknown }).saved === true &&
    Object.keys(v).length === 1
  )
}

export function withEdit(draft: Draft, path: Path, value: unknown): Draft {
  const next = new Map(draft)
  next.set(keyOf(path), value)
  return next
}

export function withoutEdit(draft: Draft, path: Path): Draft {
  const next = new Map(draft)
  next.delete(keyOf(path))
  return next
}

/** Removes an entry: its own edits go, and null stands for it in the merge patch. */
export function withRemoval(draft: Draft, path: Path): Draft {
  const next = new Map(draft)
  for (const key of draft.keys()) {
    const p = JSON.parse(key) as string[]
    if (p.length > path.length && path.every((s, i) => p[i] === s)) next.delete(key)
  }
  next.set(keyOf(path), null)
  return next
}

/** The merge patch of the edits. */
export function patchOf(draft: Draft): Record<string, unknown> {
  const patch: Record<string, unknown> = {}
  for (const [key, value] of draft) {
    const path = JSON.parse(key) as string[]
    let at = patch
    for (const step of path.slice(0, -1)) {
      if (typeof at[step] !== 'object' || at[step] === null) at[step] = {}
      at = at[step] as Record<string, unknown>
    }
    at[path[path.length - 1]] = value
  }
  return patch
}

/** The text an input shows for a value; the value an input's text stands for, like the read's. */
export function textOf(v: unknown): string {
  if (v === null || v === undefined) return ''
  return typeof v === 'string' ? v : JSON.stringify(v)
}

export function valueFromText(text: string, like: unknown): unknown {
  if (typeof like === 'number') return text.trim() === '' ? null : Number(text)
  if (Array.isArray(like) || (typeof like === 'object' && like !== null)) {
    try {
      return JSON.parse(text)
    } catch {
      return text // the daemon says what is wrong with it
    }
  }
  if (like === null && text.trim() === '') return null
  return text
}
