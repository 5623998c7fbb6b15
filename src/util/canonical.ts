import { createHash } from 'node:crypto'

/** JSON with object keys sorted at every depth: equal requests hash equal. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort()
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/** The intent of a request body: a repeat with an equal intent is the same request. */
export function intentOf(raw: unknown): string {
  return createHash('sha256').update(canonical(raw)).digest('hex')
}
