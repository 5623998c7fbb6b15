// Strict JSON: the native parser decides syntax, then one scan finds duplicate keys at any
// depth (JSON.parse silently keeps the last one, which would let a client smuggle a value
// past a reviewer of the raw body).
import { visit } from 'jsonc-parser'
import { HearthError } from '../schemas/problems.ts'

export function pointerOf(path: readonly (string | number)[]): string {
  return path.map((s) => '/' + String(s).replaceAll('~', '~0').replaceAll('/', '~1')).join('')
}

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

/** The JSON pointer of the first repeated key, or undefined. Assumes `text` is valid JSON. */
export function findDuplicateKey(text: string): string | undefined {
  if (!text.includes('{')) return undefined
  const seen: Set<string>[] = []
  let found: string | undefined
  visit(
    text,
    {
      onObjectBegin: () => {
        seen.push(new Set())
        return found === undefined
      },
      onObjectEnd: () => {
        seen.pop()
      },
      onObjectProperty: (property, _offset, _length, _line, _char, pathSupplier) => {
        const keys = seen[seen.length - 1]
        if (found !== undefined) return
        if (keys.has(property)) found = pointerOf([...pathSupplier(), property])
        else keys.add(property)
      },
    },
    { disallowComments: true, allowTrailingComma: false },
  )
  return found
}
