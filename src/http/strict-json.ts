// Strict JSON: the native parser decides syntax, then one iterative scan finds duplicate keys
// at any depth (JSON.parse silently keeps the last one, which would let a client smuggle a
// value past a reviewer of the raw body) and bounds the nesting depth (RFC 8259 §9 lets a
// parser limit it; deeper values would overflow the stack of JSON.stringify and of any
// recursive walk further on).
import { HearthError } from '../schemas/problems.ts'
import { pointerOf } from '../validate/pointer.ts'

/** Deepest nesting of objects and arrays a request body may have. */
export const MAX_JSON_DEPTH = 256

export function parseStrictJson(text: string): unknown {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    throw new HearthError('malformed_json', (err as Error).message)
  }
  const duplicate = findDuplicateKey(text)
  if (duplicate !== undefined) {
    throw new HearthError('duplicate_key', `Duplicate key at ${duplicate}`)
  }
  return value
}

interface Level {
  /** Keys seen so far in an object; null for an array. */
  keys: Set<string> | null
  /** The member being read: its key in an object, its index in an array. */
  at: string | number
  /** In an object: the next string is a key. */
  expectKey: boolean
}

const QUOTE = 0x22
const BACKSLASH = 0x5c

/** Index of the quote that closes the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  let from = start + 1
  for (;;) {
    const q = text.indexOf('"', from)
    if (q < 0) throw new HearthError('malformed_json', 'Unterminated string')
    let backslashes = 0
    for (let i = q - 1; text.charCodeAt(i) === BACKSLASH; i--) backslashes++
    if (backslashes % 2 === 0) return q
    from = q + 1
  }
}

/**
 * The JSON pointer of the first repeated key, or undefined. Keys compare after unescaping,
 * exactly as JSON.parse reads them ("a\u0062" and "ab" are the same key). Assumes `text`
 * is valid JSON; throws malformed_json when it nests deeper than MAX_JSON_DEPTH.
 */
export function findDuplicateKey(text: string): string | undefined {
  const stack: Level[] = []
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      const end = stringEnd(text, i)
      const top = stack[stack.length - 1]
      if (top?.keys && top.expectKey) {
        const raw = text.slice(i, end + 1)
        const key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1)
        if (top.keys.has(key)) return pointerOf([...stack.slice(0, -1).map((l) => l.at), key])
        top.keys.add(key)
        top.at = key
        top.expectKey = false
      }
      i = end
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (stack.length >= MAX_JSON_DEPTH) {
        throw new HearthError('malformed_json', `The body nests deeper than ${MAX_JSON_DEPTH} levels`)
      }
      stack.push(
        c === 0x7b ? { keys: new Set(), at: '', expectKey: true } : { keys: null, at: 0, expectKey: false },
      )
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop()
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1]
      if (top.keys) top.expectKey = true
      else top.at = (top.at as number) + 1
    }
  }
  return undefined
}
