// OpenAPI 3.1 from the route table. TypeBox schemas are JSON Schema, so they go in as they
// are; any schema carrying a $id becomes a named component and is referenced by $ref.
import type { TSchema } from 'typebox'
import { VERSION } from '../build-info.ts'
import type { OpSpec } from '../schemas/op.ts'
import { PROBLEMS, Problem, type ProblemCode } from '../schemas/problems.ts'
import { problemsOf } from './shared-problems.ts'

type Json = Record<string, unknown>

class Components {
  readonly schemas: Record<string, unknown> = {}

  /** Deep-copies a schema, hoisting every $id'd subschema into components. */
  ref(schema: TSchema | Json): Json {
    const s = schema as Json
    if (typeof s.$id === 'string') {
      const id = s.$id
      if (!(id in this.schemas)) {
        this.schemas[id] = {} // reserve first: schemas may refer to themselves
        const { $id: _, ...rest } = s
        this.schemas[id] = this.copy(rest)
      }
      return { $ref: `#/components/schemas/${id}` }
    }
    return this.copy(s)
  }

  copy(value: unknown): Json {
    if (Array.isArray(value)) return value.map((v) => (v && typeof v === 'object' ? this.ref(v) : v)) as never
    const out: Json = {}
    for (const [k, v] of Object.entries(value as Json)) {
      out[k] = v && typeof v === 'object' ? (Array.isArray(v) ? this.copy(v) : this.ref(v as Json)) : v
    }
    return out
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
        description: s.description,
      })
    }
  }
  for (const [name, mode, description] of [
    ['If-Match', op.ifMatch, 'The strong ETag last read; without it the operation answers 428'],
    ['If-None-Match', op.ifNoneMatch, '* for create-only requests; without it the operation answers 428'],
  ] as const) {
    if (mode)
      out.push({ name, in: 'header', required: mode === 'required', schema: { type: 'string' }, description })
  }
  return out
}

function responses(op: OpSpec, c: Components): Json {
  const out: Json = {}
  for (const [status, r] of Object.entries(op.responses)) {
    const headers = Object.fromEntries(
      (r.headers ?? []).map((h) => [h, { $ref: `#/components/headers/${h}` }]),
    )
    out[status] = {
      description: r.description,
      ...(r.headers?.length ? { headers } : {}),
      ...(r.schema ? { content: { [r.mediaType ?? 'application/json']: { schema: c.ref(r.schema) } } } : {}),
    }
  }
  const byStatus = new Map<number, ProblemCode[]>()
  for (const code of problemsOf(op)) {
    const status = PROBLEMS[code].status
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    out[String(status)] = {
      description: codes.map((k) => `\`${k}\`: ${PROBLEMS[k].title}`).join('; '),
      'x-problem-codes': codes,
      ...(status === 401
        ? { headers: { 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' } } }
        : {}),
      ...(status === 405 ? { headers: { Allow: { $ref: '#/components/headers/Allow' } } } : {}),
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    }
  }
  return out
}

function header(description: string): Json {
  return { description, schema: { type: 'string' } }
}

export function buildOpenApi(ops: Record<string, OpSpec>): Json {
  const c = new Components()
  c.ref(Problem)
  const paths: Record<string, Json> = {}
  for (const [id, op] of Object.entries(ops)) {
    const operation: Json = {
      operationId: id,
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: op.tags,
      ...(op.capability ? { 'x-capability': op.capability } : {}),
      parameters: parameters(op, c),
      responses: responses(op, c),
    }
    if (op.body) {
      operation.requestBody = {
        required: true,
        content: { [op.bodyMediaType ?? 'application/json']: { schema: c.ref(op.body) } },
        ...(op.bodyLimit ? { 'x-max-encoded-bytes': op.bodyLimit } : {}),
      }
    }
    paths[op.path] = { ...(paths[op.path] ?? {}), [op.method.toLowerCase()]: operation }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'hearth protocol 3',
      version: '3.0.0',
      description: `The HTTP + JSON + SSE API of the hearth daemon (package ${VERSION}).`,
    },
    servers: [{ url: 'http://127.0.0.1:{port}', variables: { port: { default: '4097' } } }],
    security: [{ DaemonBearer: [] }],
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
