// Tool schemas for the Cloud Code Assist backend, which validates declarations strictly
// (it serves Claude and Gemini models alike and refuses much of JSON Schema). A tool's
// JSON Schema is flattened into the plain subset every model there takes:
//
// - references (`$ref` to `#/$defs/…`, `#/definitions/…` or any pointer into the schema)
//   are resolved in place; a reference back into itself becomes an object described by name;
// - a union (`anyOf`, `oneOf`, a `type` array) keeps its first member that is not null;
//   `allOf` members are merged;
// - `const` and `enum` become string enums (`type: "string"`, values as strings);
// - validation keywords the subset has no room for (lengths, patterns, bounds, formats,
//   defaults, examples…) are dropped and written into the description, so the model still
//   reads them; annotations with no meaning for the model (`$schema`, `title`,
//   `additionalProperties`…) are dropped;
// - `required` names only properties that exist; an array always has `items`.

type Schema = Record<string, unknown>

/** Keywords moved into the description when dropped. */
const HINTS = [
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'default',
  'examples',
] as const

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The flattened form of a tool's parameter schema. */
export function flattenSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const out = flatten(schema, schema, [])
  if (out.type === undefined) out.type = 'object'
  if (out.type === 'object' && out.properties === undefined) out.properties = {}
  return out
}

function flatten(node: unknown, root: Schema, refs: string[]): Schema {
  if (!isObject(node)) return {}
  const resolved = resolveRef(node, root, refs)
  if (resolved) return resolved
  const union = firstMember(node)
  if (union !== null) return flatten(withDescription(union, node), root, refs)
  if (Array.isArray(node.allOf)) return flatten(mergeAll(node), root, refs)

  const out: Schema = {}
  const type = typeOf(node)
  if (node.const !== undefined || Array.isArray(node.enum)) {
    const values = node.const !== undefined ? [node.const] : (node.enum as unknown[])
    out.type = 'string'
    out.enum = values.filter((v) => v !== null).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))
  } else if (type) out.type = type
  const description = describe(node)
  if (description) out.description = description
  if (isObject(node.properties)) {
    const properties: Schema = {}
    for (const [name, value] of Object.entries(node.properties)) properties[name] = flatten(value, root, refs)
    out.properties = properties
    if (Array.isArray(node.required)) {
      const required = node.required.filter((r) => typeof r === 'string' && r in properties)
      if (required.length > 0) out.required = required
    }
  }
  if (out.type === 'array') {
    const items = Array.isArray(node.items) ? node.items[0] : node.items
    out.items = isObject(items) ? flatten(items, root, refs) : { type: 'string' }
  }
  return out
}

/** A `$ref` resolved against the root, its siblings laid over it; null when there is none. */
function resolveRef(node: Schema, root: Schema, refs: string[]): Schema | null {
  if (typeof node.$ref !== 'string') return null
  const ref = node.$ref
  const { $ref: _, ...siblings } = node
  const name = ref.split('/').at(-1) ?? ref
  if (refs.includes(ref)) {
    return { type: 'object', description: joinText(describe(siblings), `(recursive: ${name})`) }
  }
  const target = pointer(root, ref)
  if (!isObject(target))
    return flatten(
      { type: 'object', ...siblings, description: joinText(str(siblings.description), `(see ${name})`) },
      root,
      refs,
    )
  return flatten(
    { ...target, ...siblings, description: str(siblings.description) ?? target.description },
    root,
    [...refs, ref],
  )
}

/** The value at a local JSON pointer (`#/a/b`), or undefined. */
function pointer(root: Schema, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined
  let at: unknown = root
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~')
    at = isObject(at) ? at[key] : undefined
  }
  return at
}

/** The first non-null member of `anyOf`/`oneOf`, or null when the node is no union. */
function firstMember(node: Schema): Schema | null {
  const members = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : null
  if (!members) return null
  const chosen = members.find((m) => isObject(m) && m.type !== 'null') ?? {}
  const { anyOf: _a, oneOf: _o, ...rest } = node
  return { ...rest, ...(isObject(chosen) ? chosen : {}) }
}

/** `allOf` merged into one schema: properties and required lists joined. */
function mergeAll(node: Schema): Schema {
  const { allOf, ...rest } = node
  const out: Schema = { ...rest }
  for (const member of (allOf as unknown[]).filter(isObject)) {
    for (const [key, value] of Object.entries(member)) {
      if (key === 'properties' && isObject(value))
        out.properties = { ...(isObject(out.properties) ? out.properties : {}), ...value }
      else if (key === 'required' && Array.isArray(value))
        out.required = [...new Set([...(Array.isArray(out.required) ? out.required : []), ...value])]
      else if (out[key] === undefined) out[key] = value
    }
  }
  return out
}

function withDescription(member: Schema, node: Schema): Schema {
  return str(node.description) && !str(member.description)
    ? { ...member, description: node.description }
    : member
}

function typeOf(node: Schema): string | undefined {
  if (typeof node.type === 'string') return node.type === 'null' ? undefined : node.type
  if (Array.isArray(node.type)) return node.type.find((t) => typeof t === 'string' && t !== 'null')
  if (isObject(node.properties)) return 'object'
  if (node.items !== undefined) return 'array'
  return undefined
}

/** The description with the dropped validation keywords written after it. */
function describe(node: Schema): string | undefined {
  const hints = HINTS.filter((k) => node[k] !== undefined).map((k) => `${k}: ${JSON.stringify(node[k])}`)
  return joinText(str(node.description), hints.length > 0 ? `(${hints.join(', ')})` : undefined)
}

function joinText(a: string | undefined, b: string | undefined): string | undefined {
  return a && b ? `${a} ${b}` : (a ?? b)
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined
}
