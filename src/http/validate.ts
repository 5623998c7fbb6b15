// What the op runner checks in a request: the body against the op's schema (src/validate/),
// query and path parameters with HTTP's own rules (each once, converted from text, the
// problem a path parameter's schema names).
import type { TObject, TSchema } from 'typebox'
import { HearthError, type ProblemCode } from '../schemas/problems.ts'
import { type SchemaError, validatorOf } from '../validate/check.ts'
import { unescapePointer } from '../validate/pointer.ts'

export { checkBody, isCompiled, precompile } from '../validate/check.ts'

type SchemaNode = Record<string, unknown> & { 'x-problem'?: ProblemCode }

/** The schema node an error's schema path names ('#/properties/a' → the schema of a). */
function ownerOf(root: TSchema, schemaPath: string): SchemaNode | undefined {
  const segments = schemaPath.replace(/^#/, '').split('/').slice(1).map(unescapePointer)
  let node: unknown = root
  for (const s of segments) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, s)) return undefined
    node = (node as Record<string, unknown>)[s]
  }
  return node !== null && typeof node === 'object' ? (node as SchemaNode) : undefined
}

/**
 * The problem for a failed query or path parameter: invalid_parameter, or for a path
 * parameter the code its schema names (x-problem), as OpenAPI documents it.
 */
function parameterError(schema: TObject, err: SchemaError, kind: 'Query' | 'Path'): HearthError {
  const name = unescapePointer(err.instancePath.slice(1)) || String(err.params.requiredProperties ?? '')
  const named = kind === 'Path' ? ownerOf(schema, err.schemaPath)?.['x-problem'] : undefined
  return new HearthError(named ?? 'invalid_parameter', `${kind} parameter ${name}: ${err.message}`)
}

const INTEGER = /^-?(0|[1-9][0-9]*)$/
const NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/

/** JSON Schema types a schema admits, looking through unions. */
function typesOf(schema: unknown): Set<string> {
  const s = schema as {
    type?: string | string[]
    anyOf?: unknown[]
    oneOf?: unknown[]
    const?: unknown
    enum?: unknown[]
  }
  const out = new Set<string>()
  for (const t of [s.type ?? []].flat()) out.add(t)
  for (const m of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) for (const t of typesOf(m)) out.add(t)
  for (const v of [...(s.const !== undefined ? [s.const] : []), ...(s.enum ?? [])]) out.add(typeof v)
  return out
}

/**
 * A query value in its canonical text form converted to what the schema takes: integers as
 * decimal digits, numbers as JSON numbers, booleans as true or false. Anything else stays a
 * string and fails validation, so 1.5, 0x10 or 1 are never read as 1, 16 or true.
 */
function convertParam(schema: unknown, raw: string): unknown {
  const types = typesOf(schema)
  if (types.has('integer') && INTEGER.test(raw)) return Number(raw)
  if (types.has('number') && NUMBER.test(raw)) return Number(raw)
  if (types.has('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true'
  return raw
}

/**
 * Query strings: each parameter at most once (checked first, for known and unknown names
 * alike, as duplicate JSON keys are found before unknown fields), no unknown names,
 * converted to the schema's types.
 */
export function checkQuery<T>(schema: TObject | undefined, params: URLSearchParams): T {
  const seen = new Set<string>()
  for (const name of params.keys()) {
    if (seen.has(name)) throw new HearthError('duplicate_parameter', `Query parameter ${name} is repeated`)
    seen.add(name)
  }
  const converted: Record<string, unknown> = {}
  for (const [name, value] of params) {
    if (!schema || !Object.hasOwn(schema.properties, name)) {
      throw new HearthError('unknown_parameter', `Unknown query parameter ${name}`)
    }
    converted[name] = convertParam(schema.properties[name], value)
  }
  if (!schema) return {} as T
  const v = validatorOf(schema)
  if (v.Check(converted)) return converted as T
  throw parameterError(schema, [...v.Errors(converted)][0] as SchemaError, 'Query')
}

export function checkParams<T>(schema: TObject | undefined, params: Record<string, string>): T {
  if (!schema) return {} as T
  const v = validatorOf(schema)
  if (v.Check(params)) return params as T
  throw parameterError(schema, [...v.Errors(params)][0] as SchemaError, 'Path')
}
