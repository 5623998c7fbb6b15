// OpenAPI 3.1 from the route table. TypeBox schemas are JSON Schema, so they go in as they
// are; any schema carrying a $id becomes a named component and is referenced by $ref.
import type { TSchema } from 'typebox'
import { VERSION } from '../build-info.ts'
import { DEFAULT_BODY_LIMIT, EmptyRequest } from '../schemas/common.ts'
import type { OpSpec, ResponseHeader, ResponseSpec } from '../schemas/op.ts'
import { PROBLEMS, Problem, type ProblemCode } from '../schemas/problems.ts'
import { problemsOf } from './shared-problems.ts'

type Json = Record<string, unknown>

const COMPONENT_NAME = /^[a-zA-Z0-9._-]+$/
const SCHEMAS = '#/components/schemas/'

// JSON Schema 2020-12 keywords whose values are schemas, arrays of schemas or maps of
// schemas. Every other keyword (const, default, enum, examples, discriminator, x-…) holds
// data and is copied verbatim, so a data value is never mistaken for a schema.
const SCHEMA_KEYWORDS = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'contentSchema',
])
const SCHEMA_ARRAY_KEYWORDS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems'])
const SCHEMA_MAP_KEYWORDS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
])

/** TypeBox writes Record(String, V) as patternProperties {'^.*$': V}; say it plainly. */
const ANY_KEY = '^.*$'

function clone<T>(value: T): T {
  return value === undefined ? value : JSON.parse(JSON.stringify(value))
}

class Components {
  readonly schemas: Record<string, Json> = {}
  /** The content each component was made from, to refuse two different schemas with one $id. */
  private readonly sources = new Map<string, string>()
  /** Component names referenced by $ref, checked once the document is complete. */
  readonly referenced = new Set<string>()

  /** Copies a schema, hoisting every $id'd subschema into components. */
  ref(schema: TSchema | Json): Json {
    const s = schema as Json
    if (typeof s.$id !== 'string') return this.copy(s)
    const { $id: id, ...rest } = s as Json & { $id: string }
    if (!COMPONENT_NAME.test(id)) throw new Error(`Schema $id ${id} is not a valid component name`)
    // TypeBox modifiers (Optional, Readonly) clone a schema, $id and all: compare content.
    const source = JSON.stringify(rest)
    const known = this.sources.get(id)
    if (known === undefined) {
      this.sources.set(id, source)
      this.schemas[id] = {} // reserve first: schemas may refer to themselves
      this.schemas[id] = this.copy(rest)
    } else if (known !== source) {
      throw new Error(`Two different schemas carry $id ${id}`)
    }
    return this.refTo(id)
  }

  private refTo(id: string): Json {
    this.referenced.add(id)
    return { $ref: SCHEMAS + id }
  }

  private copy(s: Json): Json {
    const out: Json = {}
    for (const [k, v] of Object.entries(s)) {
      if (k === '$ref' && typeof v === 'string') {
        // TypeBox Ref and Cyclic refer to a bare $id, which becomes a component.
        out.$ref = v.startsWith('#') ? v : SCHEMAS + v
        if (!v.startsWith('#')) this.referenced.add(v)
      } else if (SCHEMA_KEYWORDS.has(k) && v && typeof v === 'object') {
        out[k] = Array.isArray(v) ? v.map((m) => this.ref(m)) : this.ref(v as Json)
      } else if (SCHEMA_ARRAY_KEYWORDS.has(k) && Array.isArray(v)) {
        out[k] = v.map((m) => this.ref(m))
      } else if (SCHEMA_MAP_KEYWORDS.has(k) && v && typeof v === 'object') {
        out[k] = Object.fromEntries(Object.entries(v as Json).map(([n, m]) => [n, this.ref(m as Json)]))
      } else {
        out[k] = clone(v)
      }
    }
    const pattern = out.patternProperties as Json | undefined
    if (
      pattern &&
      Object.keys(pattern).length === 1 &&
      ANY_KEY in pattern &&
      out.properties === undefined &&
      out.additionalProperties === undefined
    ) {
      out.additionalProperties = pattern[ANY_KEY]
      delete out.patternProperties
    }
    if (out.discriminator) this.mapDiscriminator(out)
    return out
  }

  /**
   * OpenAPI reads a discriminator value as a component name unless a mapping says
   * otherwise; TypeBox unions carry only propertyName, so map each member's const.
   */
  private mapDiscriminator(union: Json): void {
    const d = union.discriminator as { propertyName: string; mapping?: Record<string, string> }
    if (d.mapping) return
    const members = (union.oneOf ?? union.anyOf) as Json[] | undefined
    if (!members) throw new Error('A discriminator needs oneOf or anyOf')
    const mapping: Record<string, string> = {}
    for (const m of members) {
      const ref = typeof m.$ref === 'string' && m.$ref.startsWith(SCHEMAS) ? m.$ref : undefined
      const target = ref ? this.schemas[ref.slice(SCHEMAS.length)] : undefined
      const prop = (target?.properties as Record<string, Json> | undefined)?.[d.propertyName]
      if (!ref || !prop || !('const' in prop) || typeof prop.const !== 'string') {
        throw new Error(
          `Each member of a union discriminated by ${d.propertyName} needs a $id and a string const ${d.propertyName}`,
        )
      }
      mapping[prop.const] = ref
    }
    union.discriminator = { ...d, mapping }
  }
}

function parameters(op: OpSpec, c: Components): Json[] {
  const out: Json[] = []
  for (const [where, obj] of [
    ['path', op.params],
    ['query', op.query],
  ] as const) {
    if (!obj) continue
    const required = new Set((obj.required as string[] | undefined) ?? [])
    for (const [name, schema] of Object.entries(obj.properties)) {
      const s = c.ref(schema as TSchema)
      out.push({
        name,
        in: where,
        required: where === 'path' || required.has(name),
        schema: s,
        ...(typeof s.description === 'string' ? { description: s.description } : {}),
      })
    }
  }
  for (const [name, mode, description] of [
    ['If-Match', op.ifMatch, 'The strong ETag last read; without it, or with *, the operation answers 428'],
    ['If-None-Match', op.ifNoneMatch, '* for create-only requests; without it the operation answers 428'],
  ] as const) {
    if (mode)
      out.push({ name, in: 'header', required: mode === 'required', schema: { type: 'string' }, description })
  }
  return out
}

/** Headers every problem of a status carries. */
const PROBLEM_HEADERS: Readonly<Record<number, ResponseHeader>> = {
  401: 'WWW-Authenticate',
  405: 'Allow',
  429: 'Retry-After',
}

/** Problems that carry a header the other problems of their status do not. */
const CODE_HEADERS: Readonly<Partial<Record<ProblemCode, ResponseHeader>>> = {
  decode_busy: 'Retry-After',
}

function headerRefs(names: readonly ResponseHeader[]): Json {
  return Object.fromEntries(names.map((h) => [h, { $ref: `#/components/headers/${h}` }]))
}

function responses(id: string, op: OpSpec, c: Components): Json {
  const out: Json = {}
  for (const [status, r] of Object.entries(op.responses as Record<string, ResponseSpec>)) {
    const content: Json = {}
    if (r.schema) {
      const schemas = [r.schema, ...(r.alternatives ?? [])].map((s) => c.ref(s))
      content[r.mediaType ?? 'application/json'] = {
        schema: schemas.length > 1 ? { anyOf: schemas } : schemas[0],
      }
    }
    if (r.stream) {
      // OpenAPI 3.1 cannot type the events of a stream (3.2 adds itemSchema): the body is
      // text, and its contentSchema (JSON Schema's annotation for what a string holds) is the
      // list of its frames {event, id?, data}, the frame a named component.
      content['text/event-stream'] = {
        schema: {
          type: 'string',
          description: 'Server-sent events: each frame is one item of contentSchema (data is JSON)',
          contentMediaType: 'text/event-stream',
          contentSchema: { type: 'array', items: c.ref(r.stream) },
        },
      }
    }
    out[status] = {
      description: r.description,
      ...(r.headers?.length ? { headers: headerRefs(r.headers) } : {}),
      ...(Object.keys(content).length ? { content } : {}),
    }
  }
  const byStatus = new Map<number, ProblemCode[]>()
  for (const code of problemsOf(op)) {
    const status = PROBLEMS[code].status
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    if (String(status) in out) throw new Error(`Op ${id} declares ${status} as a success and a problem`)
    const header = PROBLEM_HEADERS[status] ?? codes.map((k) => CODE_HEADERS[k]).find((h) => h !== undefined)
    out[String(status)] = {
      description: codes.map((k) => `\`${k}\`: ${PROBLEMS[k].title}`).join('; '),
      'x-problem-codes': codes,
      ...(header ? { headers: headerRefs([header]) } : {}),
      content: { 'application/problem+json': { schema: { $ref: `${SCHEMAS}Problem` } } },
    }
  }
  return out
}

function requestBody(op: OpSpec, body: TSchema, c: Components): Json {
  const schema = c.ref(body)
  // One media type per operation, as app.ts takes: a merge patch only as merge-patch+json.
  const mediaType = op.bodyMediaType ?? 'application/json'
  return {
    // An empty body stands for {} where the body is the EmptyRequest (app.ts).
    required: body !== EmptyRequest,
    content: { [mediaType]: { schema } },
    'x-max-encoded-bytes': op.bodyLimit ?? DEFAULT_BODY_LIMIT,
    // JSON pointers the body may not carry: 400 read_only_field, checked before the schema.
    ...(op.readOnly?.length ? { 'x-read-only-fields': op.readOnly } : {}),
  }
}

function header(description: string): Json {
  return { description, schema: { type: 'string' } }
}

/** The tags operations are grouped under, in the order documentation lists them. */
const TAGS: Readonly<Record<string, string>> = {
  server: 'The daemon itself: its identity, capabilities and quotas, this document, and shutdown',
  settings: 'Settings groups, read whole and changed one group at a time as merge patches',
  storage: 'What the daemon stores, measured',
  sessions: 'Sessions: create, read, configure, delete, visit, reload, kernel upgrade, event streams',
  inputs:
    'Messages, approvals and answers to MCP servers sent to a session; cancelling inputs and interrupting runs',
  history: "A session's history: entries in pages, whole texts, images, the output of the run in progress",
  context: "What a session's next model request holds, the requests sent, and compaction",
  snapshots: "What a session's runs changed in the workspace's files, and restoring them (undo, redo)",
  catalog: "The candidates of a session's composition and its command templates",
  models: 'Model metadata and the prompt-cache policy',
  auth: 'Sign-in to providers, and the accounts it saved',
  work: 'The work extension: the work items of a workspace',
  workspaces: 'Recent workspaces, and the directories of a location',
  paperclips: 'The paperclips extension: clipped texts',
  hosts: 'SSH hosts: the known ones, and probes',
}

/** The tags the operations use, described; a tag missing from TAGS fails the lint test. */
function tagsOf(ops: Record<string, OpSpec>): Json[] {
  const used = new Set(Object.values(ops).flatMap((op) => op.tags))
  const ordered = [...Object.keys(TAGS).filter((t) => used.has(t)), ...[...used].filter((t) => !(t in TAGS))]
  return ordered.map((name) => (name in TAGS ? { name, description: TAGS[name] } : { name }))
}

export function buildOpenApi(ops: Record<string, OpSpec>): Json {
  const c = new Components()
  c.ref(Problem)
  const paths: Record<string, Json> = {}
  for (const [id, op] of Object.entries(ops)) {
    const method = op.method.toLowerCase()
    if (paths[op.path]?.[method]) throw new Error(`Op ${id}: ${op.method} ${op.path} is declared twice`)
    const operation: Json = {
      operationId: id,
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: op.tags,
      ...(op.capability ? { 'x-capability': op.capability } : {}),
      parameters: parameters(op, c),
      ...(op.body ? { requestBody: requestBody(op, op.body, c) } : {}),
      responses: responses(id, op, c),
    }
    paths[op.path] = { ...(paths[op.path] ?? {}), [method]: operation }
  }
  for (const name of c.referenced) {
    if (!(name in c.schemas)) throw new Error(`$ref to ${name}, which no schema carries as $id`)
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'hearth protocol 3',
      version: '3.0.0',
      description: `The HTTP + JSON + SSE API of the hearth daemon (package ${VERSION}). Errors are problem+json bodies whose \`code\` is stable; each problem response lists its codes in x-problem-codes.`,
      contact: { name: 'hearth' },
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      {
        url: 'http://127.0.0.1:{port}',
        // The port has no description: the OpenAPI 3.1 meta-schema that swagger-parser uses
        // misspells that field of a server variable ("descriptions") and refuses it.
        description:
          'The loopback daemon: the port is the one it bound (--port; 0 picks a free one), also in HEARTH_HOME/daemon.json',
        variables: { port: { default: '4097' } },
      },
    ],
    security: [{ DaemonBearer: [] }],
    tags: tagsOf(ops),
    paths,
    components: {
      schemas: c.schemas,
      securitySchemes: {
        DaemonBearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'The token in HEARTH_HOME/token: 32 random bytes, base64url',
        },
      },
      headers: {
        ETag: header('Strong validator of the representation'),
        Location: header('URL of the created resource'),
        Vary: header('Request headers the representation depends on'),
        'Retry-After': header('Seconds to wait before retrying'),
        Allow: header('Methods the resource supports'),
        'WWW-Authenticate': header('Bearer challenge'),
      },
    },
  }
}
