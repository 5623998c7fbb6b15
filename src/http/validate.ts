// Validation against the op's TypeBox schemas, compiled on first use (compiling at start
// would cost start-up time for routes nobody calls), with errors mapped to stable codes.
import type { TObject, TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import Value from 'typebox/value'
import { HearthError, type ProblemCode } from '../schemas/problems.ts'

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

interface SchemaError {
  keyword: string
  instancePath: string
  schemaPath: string
  params: Record<string, unknown>
  message: string
}

function describe(errors: SchemaError[]): { code: ProblemCode; detail: string } {
  const extra = errors.find((e) => e.keyword === 'additionalProperties')
  if (extra) {
    const names = extra.params.additionalProperties as string[]
    return { code: 'unknown_field', detail: `Unknown field ${extra.instancePath}/${names[0]}` }
  }
  // Prefer the deepest, most specific error; union branches report one error per member.
  const first = [...errors].sort((a, b) => b.instancePath.length - a.instancePath.length)[0]
  const where = first.instancePath === '' ? '(root)' : first.instancePath
  return { code: 'invalid_request', detail: `${where}: ${first.message}` }
}

export function checkBody<T>(schema: TSchema, value: unknown): T {
  const v = validatorOf(schema)
  if (v.Check(value)) return value as T
  const { code, detail } = describe([...v.Errors(value)] as SchemaError[])
  throw new HearthError(code, detail)
}

/** Query strings: each parameter at most once, no unknown names, converted to the schema's types. */
export function checkQuery<T>(schema: TObject | undefined, params: URLSearchParams): T {
  const raw: Record<string, string> = {}
  for (const [name, value] of params) {
    if (name in raw) throw new HearthError('duplicate_parameter', `Query parameter ${name} is repeated`)
    if (!schema || !(name in schema.properties)) {
      throw new HearthError('unknown_parameter', `Unknown query parameter ${name}`)
    }
    raw[name] = value
  }
  if (!schema) return {} as T
  const converted = Value.Convert(schema, raw) as Record<string, unknown>
  const v = validatorOf(schema)
  if (v.Check(converted)) return converted as T
  const err = [...v.Errors(converted)][0] as SchemaError
  const name = err.instancePath.slice(1) || String(err.params.requiredProperties ?? '')
  throw new HearthError('invalid_parameter', `Query parameter ${name}: ${err.message}`)
}

export function checkParams<T>(schema: TObject | undefined, params: Record<string, string>): T {
  if (!schema) return {} as T
  const v = validatorOf(schema)
  if (v.Check(params)) return params as T
  const err = [...v.Errors(params)][0] as SchemaError
  const name = err.instancePath.slice(1)
  const prop = schema.properties[name] as TSchema & { 'x-problem'?: ProblemCode }
  const code = prop?.['x-problem'] ?? 'invalid_parameter'
  throw new HearthError(code, `Path parameter ${name}: ${err.message}`)
}
