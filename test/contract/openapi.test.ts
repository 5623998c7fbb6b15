// The OpenAPI document: what the daemon serves is what docs/ holds, it is valid OpenAPI 3.1,
// and it documents every op of the route table with its auth, bodies and problem codes.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import SwaggerParser from '@apidevtools/swagger-parser'
import { buildOpenApi } from '../../src/openapi/build.ts'
import { problemsMarkdown } from '../../src/openapi/problems-doc.ts'
import { ALL_OPS } from '../../src/schemas/index.ts'
import type { OpSpec } from '../../src/schemas/op.ts'
import {
  PROBLEMS,
  type ProblemCode,
  RELOAD_FAILURE_CODES,
  RUN_FAILURE_CODES,
  UPGRADE_FAILURE_CODES,
} from '../../src/schemas/problems.ts'
import { ROOT, startDaemon, type TestDaemon } from '../helpers/daemon.ts'

const REGENERATE = 'run `npm run openapi:write` and commit docs/openapi.json and docs/problems.md'
const OPS = Object.entries(ALL_OPS as Record<string, OpSpec>)

/**
 * Registered codes that no operation answers yet. Each entry is a known gap, not a
 * convenience: the test fails once a listed code is referenced, so the list only shrinks.
 */
const NOT_YET_ANSWERED: ReadonlySet<ProblemCode> = new Set<ProblemCode>([])

type Json = Record<string, any>

function operationOf(doc: Json, op: OpSpec): Json | undefined {
  return doc.paths?.[op.path]?.[op.method.toLowerCase()]
}

// JSON Schema 2020-12 keywords (every vocabulary) plus the OpenAPI 3.1 schema additions.
// Anything else, bar x- extensions, is a key TypeBox or the builder leaked into the document.
const SCHEMA_KEYS = new Set([
  '$schema',
  '$id',
  '$ref',
  '$anchor',
  '$dynamicRef',
  '$dynamicAnchor',
  '$vocabulary',
  '$comment',
  '$defs',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'prefixItems',
  'items',
  'contains',
  'properties',
  'patternProperties',
  'additionalProperties',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'type',
  'const',
  'enum',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  'title',
  'description',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  'examples',
  'format',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
  'discriminator',
  'xml',
  'externalDocs',
  'example',
])
const SUBSCHEMA = new Set([
  'not',
  'if',
  'then',
  'else',
  'items',
  'contains',
  'additionalProperties',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
])
const SUBSCHEMA_LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems'])
const SUBSCHEMA_MAP = new Set(['$defs', 'properties', 'patternProperties', 'dependentSchemas'])

/** Every schema of the document, nested ones included, with a path for messages. */
function* schemasOf(doc: Json): Generator<[string, Json]> {
  function* walk(where: string, s: Json): Generator<[string, Json]> {
    yield [where, s]
    for (const [k, v] of Object.entries(s)) {
      if (SUBSCHEMA.has(k) && v && typeof v === 'object') yield* walk(`${where}/${k}`, v)
      else if (SUBSCHEMA_LIST.has(k)) for (const [i, m] of v.entries()) yield* walk(`${where}/${k}/${i}`, m)
      else if (SUBSCHEMA_MAP.has(k))
        for (const [n, m] of Object.entries(v)) yield* walk(`${where}/${k}/${n}`, m as Json)
    }
  }
  for (const [name, s] of Object.entries(doc.components.schemas))
    yield* walk(`#/components/schemas/${name}`, s as Json)
  for (const [name, h] of Object.entries(doc.components.headers))
    yield* walk(`headers/${name}`, (h as Json).schema)
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      const at = `${method.toUpperCase()} ${path}`
      for (const p of op.parameters ?? []) yield* walk(`${at} parameter ${p.name}`, p.schema)
      for (const [type, m] of Object.entries(op.requestBody?.content ?? {})) {
        yield* walk(`${at} body ${type}`, (m as Json).schema)
      }
      for (const [status, r] of Object.entries(op.responses as Json)) {
        for (const [type, m] of Object.entries((r as Json).content ?? {})) {
          yield* walk(`${at} ${status} ${type}`, (m as Json).schema)
        }
      }
    }
  }
}

/** A query string with a valid value for each required query parameter of an operation. */
function requiredQuery(o: Json): string {
  const pairs = (o.parameters ?? [])
    .filter((p: Json) => p.in === 'query' && p.required)
    .map((p: Json) => [p.name, p.schema.const ?? p.schema.enum?.[0] ?? '/'])
  return pairs.length ? `?${new URLSearchParams(pairs)}` : ''
}

describe('OpenAPI document', () => {
  let d: TestDaemon
  let doc: Json
  const checkedIn = JSON.parse(readFileSync(join(ROOT, 'docs/openapi.json'), 'utf8'))

  before(async () => {
    d = await startDaemon()
    const res = await d.request({ path: '/openapi.json' })
    assert.equal(res.status, 200, res.text())
    assert.match(String(res.headers['content-type']), /^application\/json\b/)
    doc = res.json()
  })
  after(async () => {
    await d.stop()
  })

  it('docs/openapi.json is what the sources generate', () => {
    assert.deepEqual(buildOpenApi(ALL_OPS), checkedIn, `docs/openapi.json is stale: ${REGENERATE}`)
  })

  it('GET /openapi.json serves docs/openapi.json', () => {
    assert.deepEqual(
      doc,
      checkedIn,
      `GET /openapi.json differs from docs/openapi.json: ${REGENERATE} (and \`npm run build\` if the bundle is stale)`,
    )
  })

  it('docs/problems.md is what the registry generates', () => {
    const text = readFileSync(join(ROOT, 'docs/problems.md'), 'utf8')
    assert.equal(text, problemsMarkdown(), `docs/problems.md is stale: ${REGENERATE}`)
  })

  it('validates as OpenAPI 3.1', async () => {
    assert.equal(doc.openapi, '3.1.0')
    assert.equal(doc.info.version, '3.0.0')
    // validate() dereferences the document it is given in place.
    await SwaggerParser.validate(structuredClone(doc) as never)
  })

  it('holds only JSON Schema keywords and x- extensions in its schemas', () => {
    for (const [where, s] of schemasOf(doc)) {
      for (const k of Object.keys(s)) {
        if (k.startsWith('x-')) continue
        assert.ok(SCHEMA_KEYS.has(k), `${where}: ${k} is not a JSON Schema keyword`)
      }
      assert.equal(s.$id, undefined, `${where}: a $id is left in place instead of a component`)
      if (s.$ref !== undefined) {
        assert.match(s.$ref, /^#\/components\/schemas\/[A-Za-z0-9._-]+$/, `${where}: $ref ${s.$ref}`)
        assert.ok(
          s.$ref.slice('#/components/schemas/'.length) in doc.components.schemas,
          `${where}: $ref ${s.$ref}`,
        )
      }
    }
  })

  it('requires the daemon bearer token on every operation', () => {
    assert.deepEqual(doc.components.securitySchemes.DaemonBearer, {
      ...doc.components.securitySchemes.DaemonBearer,
      type: 'http',
      scheme: 'bearer',
    })
    assert.deepEqual(doc.security, [{ DaemonBearer: [] }])
    for (const [id, op] of OPS) {
      assert.equal(operationOf(doc, op)?.security, undefined, `${id} overrides the global security`)
    }
  })

  it('documents exactly the ops of the route table', () => {
    const documented = Object.values(doc.paths as Json).flatMap((item) =>
      Object.values(item as Json).map((o) => (o as Json).operationId),
    )
    assert.deepEqual(documented.sort(), OPS.map(([id]) => id).sort())
  })

  for (const [id, op] of OPS) {
    it(`documents ${id} (${op.method} ${op.path})`, () => {
      const o: Json | undefined = operationOf(doc, op)
      assert.ok(o, `${op.method} ${op.path} is missing`)
      assert.equal(o.operationId, id)

      const successes = Object.keys(op.responses)
      assert.ok(successes.length > 0, `${id} declares no success response`)
      for (const status of successes) {
        const r: Json = o.responses[status]
        assert.ok(r, `${id}: ${status} is missing`)
        if (status === '204') assert.equal(r.content, undefined, `${id}: a 204 has no body`)
        else {
          const media = Object.values(r.content ?? {}) as Json[]
          assert.ok(media.length > 0 && media.every((m) => m.schema), `${id}: ${status} has no schema`)
        }
        if (op.responses[Number(status)].stream) {
          // The frames are a named component, so tools that follow $ref find them.
          const frames = r.content['text/event-stream']?.schema?.contentSchema?.items?.$ref
          assert.match(String(frames), /^#\/components\/schemas\//, `${id}: ${status} has no stream frames`)
        }
      }

      if (op.body) {
        const media = Object.values(o.requestBody?.content ?? {}) as Json[]
        assert.ok(media.length > 0 && media.every((m) => m.schema), `${id}: the request body has no schema`)
      } else {
        assert.equal(o.requestBody, undefined, `${id} takes no body`)
      }

      assert.ok(o.responses['401'], `${id}: 401 is not documented`)
      assert.ok(o.responses['403'], `${id}: 403 is not documented`)
      assert.ok(o.responses['401'].headers?.['WWW-Authenticate'], `${id}: 401 without WWW-Authenticate`)

      for (const [status, r] of Object.entries(o.responses as Record<string, Json>)) {
        if (Number(status) < 400) continue
        assert.deepEqual(
          r.content,
          { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
          `${id}: ${status} is not a Problem`,
        )
        const codes = r['x-problem-codes'] as string[]
        assert.ok(codes?.length, `${id}: ${status} lists no x-problem-codes`)
        for (const code of codes) {
          assert.ok(code in PROBLEMS, `${id}: ${status} lists unregistered code ${code}`)
          assert.equal(PROBLEMS[code as ProblemCode].status, Number(status), `${id}: ${code} under ${status}`)
        }
      }
      for (const code of op.problems) {
        const r = o.responses[String(PROBLEMS[code].status)]
        assert.ok(r?.['x-problem-codes']?.includes(code), `${id}: its problem ${code} is not documented`)
      }
    })
  }

  it('references every registered problem code from some operation', () => {
    const referenced = new Set<string>()
    for (const item of Object.values(doc.paths as Json)) {
      for (const o of Object.values(item as Json)) {
        for (const r of Object.values((o as Json).responses as Json)) {
          for (const code of (r as Json)['x-problem-codes'] ?? []) referenced.add(code)
        }
      }
    }
    const unanswered = Object.keys(PROBLEMS).filter(
      (code) =>
        !referenced.has(code) &&
        !NOT_YET_ANSWERED.has(code as ProblemCode) &&
        !RUN_FAILURE_CODES.has(code as ProblemCode) &&
        !RELOAD_FAILURE_CODES.has(code as ProblemCode) &&
        !UPGRADE_FAILURE_CODES.has(code as ProblemCode),
    )
    assert.deepEqual(
      unanswered,
      [],
      'these codes are registered but no operation answers them: list them in the problems of the ops that answer them, or remove them from the registry',
    )
    const answered = [...NOT_YET_ANSWERED].filter((code) => referenced.has(code))
    assert.deepEqual(answered, [], 'these codes are answered now: remove them from NOT_YET_ANSWERED')
  })

  it('binds a handler to every op', async () => {
    // Each op's runner refuses an Accept it cannot produce before it reads anything, so a 406
    // proves the op is routed; an unrouted one answers 404 not_found or 405.
    for (const [id, op] of OPS) {
      const path = op.path.replace(/\{[a-z_]+\}/g, '0190a5d4-3b2c-7d4e-8f60-718293a4b5c6')
      const res = await d.request({
        method: op.method,
        path,
        headers: { accept: 'application/x-hearth-nothing' },
      })
      assert.equal(res.status, 406, `${id}: ${op.method} ${path} answered ${res.status} ${res.text()}`)
      assert.equal(res.json().code, 'not_acceptable')
    }
  })

  it('takes every documented request media type and refuses others', async () => {
    // The media type is checked as the body is read, before any lookup, so an op on made-up
    // ids answers 415 for a type it refuses and something else for one it takes.
    for (const [id, op] of OPS) {
      if (!op.body) continue
      const path =
        op.path.replace(/\{[a-z_]+\}/g, '0190a5d4-3b2c-7d4e-8f60-718293a4b5c6') +
        requiredQuery(operationOf(doc, op) ?? {})
      const send = (type: string) =>
        d.request({ method: op.method, path, headers: { 'content-type': type }, body: '{}' })
      const documented = Object.keys(operationOf(doc, op)?.requestBody?.content ?? {})
      for (const type of documented) {
        const res = await send(type)
        assert.notEqual(res.status, 415, `${id} documents ${type} but refuses it: ${res.text()}`)
      }
      for (const type of ['application/json', 'application/merge-patch+json', 'text/plain']) {
        if (documented.includes(type)) continue
        const res = await send(type)
        assert.equal(res.status, 415, `${id} takes ${type}, which it does not document: ${res.text()}`)
      }
    }
  })

  it('advertises the capability of every op that needs one', async () => {
    const { capabilities } = (await d.request({ path: '/server' })).json()
    for (const [id, op] of OPS) {
      if (!op.capability) continue
      assert.ok(capabilities[op.capability] >= 1, `${id} needs ${op.capability}, which GET /server omits`)
      assert.equal(operationOf(doc, op)?.['x-capability'], op.capability)
    }
  })
})
