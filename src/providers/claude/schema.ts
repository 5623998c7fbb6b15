// Tool schemas as the Messages API takes them (the Messages family's, claude and bedrock
// alike: messagesBody prepares every tool's schema here): `input_schema` must be an object
// schema (`type: "object"`), and the API refuses `oneOf`, `allOf` or `anyOf` at its top
// level, failing the whole request. Such a schema is flattened into one object schema:
//
// - `properties`: the schema's own, then each alternative's; a property that alternatives
//   define differently becomes `anyOf` of its distinct definitions (the alternatives).
// - `required`: the schema's own, plus what every alternative requires (`oneOf`, `anyOf`:
//   the names common to all alternatives) or what any requires (`allOf`: all of them hold).
// - Everything else (`$defs`, `definitions`, `description`, custom `x-…` metadata) stays,
//   and nested schemas are not touched: only the top level is rewritten.

type Schema = Record<string, unknown>

const COMBINERS = ['oneOf', 'anyOf', 'allOf'] as const

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v)

const namesOf = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((n): n is string => typeof n === 'string') : []

/** The schema with its top-level combiners flattened; a schema without them is returned as it is. */
export function flattenToolSchema(schema: Schema): Schema {
  if (!COMBINERS.some((c) => Array.isArray(schema[c]))) return schema
  const out: Schema = {}
  for (const [key, value] of Object.entries(schema))
    if (!(COMBINERS as readonly string[]).includes(key)) out[key] = value
  const variants = new Map<string, unknown[]>()
  const add = (props: unknown) => {
    if (!isObject(props)) return
    for (const [name, def] of Object.entries(props)) {
      const seen = variants.get(name) ?? []
      if (!seen.some((s) => JSON.stringify(s) === JSON.stringify(def))) seen.push(def)
      variants.set(name, seen)
    }
  }
  add(schema.properties)
  const required = new Set(namesOf(schema.required))
  for (const combiner of COMBINERS) {
    const alternatives = Array.isArray(schema[combiner])
      ? (schema[combiner] as unknown[]).filter(isObject)
      : []
    if (alternatives.length === 0) continue
    for (const alt of alternatives) add(alt.properties)
    const lists = alternatives.map((alt) => namesOf(alt.required))
    const names =
      combiner === 'allOf' ? lists.flat() : lists[0].filter((n) => lists.every((l) => l.includes(n)))
    for (const n of names) required.add(n)
  }
  out.type = 'object'
  out.properties = Object.fromEntries(
    [...variants].map(([name, defs]) => [name, defs.length === 1 ? defs[0] : { anyOf: defs }]),
  )
  if (required.size > 0) out.required = [...required]
  else delete out.required
  return out
}

/** A tool's `input_schema` as the Messages API accepts it: flattened, and always an object schema. */
export function messagesToolSchema(schema: Schema): Schema {
  const flat = flattenToolSchema(schema)
  return flat.type === undefined ? { type: 'object', ...flat } : flat
}
