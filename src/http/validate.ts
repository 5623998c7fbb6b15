// Validation against the op's TypeBox schemas, compiled on first use (compiling at start
// would cost start-up time for routes nobody calls), with errors mapped to stable codes.
import type { TObject, TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import { HearthError, type ProblemCode } from '../schemas/problems.ts'
import { pointerOf } from './strict-json.ts'

type Validator = ReturnType<typeof Compile>
const compiled = new WeakMap<TSchema, Validator>()

function validatorOf(schema: TSchema): Validator {
  let v = compiled.get(schema)
  if (!v) {
    v = Compile(schema)
    compiled.set(schema, v)
  }
  return v
}

/** Compiles these schemas now, so the first request that needs one does not wait for it. */
export function precompile(schemas: readonly (TSchema | undefined)[]): void {
  for (const schema of schemas) if (schema) validatorOf(schema)
}

/** Whether this schema's validator is compiled already. */
export function isCompiled(schema: TSchema): boolean {
  return compiled.has(schema)
}

interface SchemaError {
  keyword: string
  instancePath: string
  schemaPath: string
  params: Record<string, unknown>
  message: string
}

type SchemaNode = Record<string, unknown> & { 'x-problem'?: ProblemCode }

function unescapePointer(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~')
}

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
 * A union with a declared discriminator is validated against the member the value names, so
 * errors speak of that member and not of every alternative ({kind: 'forked', extra: 1} is an
 * unknown field /extra, not a misplaced /source_id reported by the `new` member).
 */
function memberFor(schema: TSchema, value: unknown): TSchema {
  const union = schema as { anyOf?: TSchema[]; discriminator?: { propertyName?: string } }
  const prop = union.discriminator?.propertyName
  if (!union.anyOf || !prop || value === null || typeof value !== 'object' || Array.isArray(value))
    return schema
  const tags = union.anyOf.map(
    (m) => (m as { properties?: Record<string, { const?: unknown }> }).properties?.[prop]?.const,
  )
  const tag = (value as Record<string, unknown>)[prop]
  const i = tags.indexOf(tag)
  if (i >= 0 && tag !== undefined) return union.anyOf[i]
  throw new HearthError(
    'invalid_request',
    `${pointerOf([prop])}: must be one of ${tags.map((t) => JSON.stringify(t)).join(', ')}`,
  )
}

function describe(errors: SchemaError[]): { code: ProblemCode; detail: string } {
  const extra = errors.find((e) => e.keyword === 'additionalProperties')
  if (extra) {
    const names = extra.params.additionalProperties as string[]
    return { code: 'unknown_field', detail: `Unknown field ${extra.instancePath}${pointerOf([names[0]])}` }
  }
  // Prefer the deepest, most specific error; union branches report one error per member.
  const first = [...errors].sort((a, b) => b.instancePath.length - a.instancePath.length)[0]
  const where = first.instancePath === '' ? '(root)' : first.instancePath
  return { code: 'invalid_request', detail: `${where}: ${first.message}` }
}

export function checkBody<T>(schema: TSchema, value: unknown): T {
  if (validatorOf(schema).Check(value)) return value as T
  const member = memberFor(schema, value)
  const { code, detail } = describe([...validatorOf(member).Errors(value)] as SchemaError[])
  throw new HearthError(code, detail)
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
