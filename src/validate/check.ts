// Checking a value against a TypeBox schema, compiled on first use (compiling at start would
// cost start-up time for schemas nobody uses), with errors mapped to stable problem codes.
// Below the HTTP layer so that the settings service checks a PATCH with the same code as the
// op runner checks a body; both load it with import() (the compiler is about a tenth of the
// daemon's start-up work).
import type { TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import { HearthError, type ProblemCode } from '../schemas/problems.ts'
import { pointerOf } from './pointer.ts'

export type Validator = ReturnType<typeof Compile>
const compiled = new WeakMap<TSchema, Validator>()

/** The schema's compiled validator, compiled now if it is not yet. */
export function validatorOf(schema: TSchema): Validator {
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

export interface SchemaError {
  keyword: string
  instancePath: string
  schemaPath: string
  params: Record<string, unknown>
  message: string
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
