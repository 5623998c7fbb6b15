// buildOpenApi on small op tables: how TypeBox output becomes OpenAPI 3.1 components.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import SwaggerParser from '@apidevtools/swagger-parser'
import Type from 'typebox'
import { buildOpenApi } from '../../src/openapi/build.ts'
import { EmptyRequest, UuidV7 } from '../../src/schemas/common.ts'
import type { OpSpec } from '../../src/schemas/op.ts'

type Json = Record<string, any>

function opReturning(schema: OpSpec['responses'][number]['schema'], extra: Partial<OpSpec> = {}): OpSpec {
  return {
    method: 'GET',
    path: '/thing',
    summary: 'A thing',
    tags: ['test'],
    responses: { 200: { description: 'The thing', schema } },
    problems: [],
    ...extra,
  }
}

function build(ops: Record<string, OpSpec>): Json {
  return buildOpenApi(ops) as Json
}

describe('buildOpenApi', () => {
  it('maps discriminator values to the member components', async () => {
    const A = Type.Object({ kind: Type.Literal('a'), x: Type.String() }, { $id: 'A' })
    const B = Type.Object({ kind: Type.Literal('b'), y: Type.Integer() }, { $id: 'B' })
    const U = Type.Union([A, B], { $id: 'U', discriminator: { propertyName: 'kind' } })
    const doc = build({ 'thing.get': opReturning(U) })
    assert.deepEqual(doc.components.schemas.U.discriminator, {
      propertyName: 'kind',
      mapping: { a: '#/components/schemas/A', b: '#/components/schemas/B' },
    })
    await SwaggerParser.validate(structuredClone(doc) as never)
  })

  it('refuses a discriminated member it cannot name', () => {
    const A = Type.Object({ kind: Type.Literal('a') })
    const U = Type.Union([A], { discriminator: { propertyName: 'kind' } })
    assert.throws(() => build({ 'thing.get': opReturning(U) }), /needs a \$id/)
  })

  it('points TypeBox Ref and Cyclic at components', async () => {
    const Node = Type.Cyclic(
      { Node: Type.Object({ children: Type.Array(Type.Ref('Node')) }, { additionalProperties: false }) },
      'Node',
    )
    const doc = build({ 'thing.get': opReturning(Node) })
    const text = JSON.stringify(doc)
    assert.ok(!/"\$ref":"Node"/.test(text), text)
    assert.equal(doc.components.schemas.Node.properties.children.items.$ref, '#/components/schemas/Node')
    await SwaggerParser.validate(structuredClone(doc) as never)
  })

  it('refuses a $ref to a schema no $id names', () => {
    const doc = () => build({ 'thing.get': opReturning(Type.Object({ x: Type.Ref('Missing') })) })
    assert.throws(doc, /no schema carries as \$id/)
  })

  it('hoists one component per $id and refuses two different schemas under one', () => {
    const X = Type.Object({ a: Type.String() }, { $id: 'X' })
    const same = build({ 'thing.get': opReturning(Type.Object({ x: X, y: Type.Optional(X) })) })
    assert.deepEqual(Object.keys(same.components.schemas).sort(), ['Problem', 'X'])
    const Other = Type.Object({ b: Type.String() }, { $id: 'X' })
    assert.throws(() => build({ 'thing.get': opReturning(Type.Object({ x: X, y: Other })) }), /\$id X/)
  })

  it('writes a string-keyed Record as additionalProperties', () => {
    const doc = build({ 'thing.get': opReturning(Type.Record(Type.String(), Type.Integer())) })
    const s = doc.paths['/thing'].get.responses['200'].content['application/json'].schema
    assert.deepEqual(s, { type: 'object', additionalProperties: { type: 'integer' } })
  })

  it('copies data keywords verbatim', () => {
    const data = { $id: 'NotASchema', nested: { $ref: 'Nowhere' } }
    const doc = build({ 'thing.get': opReturning(Type.Unknown({ default: data, examples: [data] })) })
    const s = doc.paths['/thing'].get.responses['200'].content['application/json'].schema
    assert.deepEqual(s, { default: data, examples: [data] })
    assert.equal(doc.components.schemas.NotASchema, undefined)
  })

  it('leaves no TypeBox-internal keys in the document', () => {
    const doc = build({
      'thing.get': opReturning(
        Type.Object({ a: Type.Optional(Type.String()), b: Type.Readonly(Type.Integer()) }, { $id: 'T' }),
      ),
    })
    assert.ok(!JSON.stringify(doc).includes('"~'), 'a ~kind or ~optional key leaked')
  })

  it('refuses a status that is both a success and a problem', () => {
    const op = opReturning(Type.String(), {
      responses: { 400: { description: 'odd', schema: Type.String() } },
    })
    assert.throws(() => build({ 'thing.get': op }), /400 as a success and a problem/)
  })

  it('documents bodies: empty requests, merge patches, limits and read-only fields', async () => {
    const Patch = Type.Object({ name: Type.Optional(Type.String()) }, { additionalProperties: false })
    const doc = build({
      'thing.visit': {
        ...opReturning(Type.String()),
        method: 'PUT',
        path: '/things/{id}',
        params: Type.Object({ id: UuidV7 }),
        body: EmptyRequest,
      },
      'thing.patch': {
        ...opReturning(Type.String()),
        method: 'PATCH',
        path: '/things/{id}',
        params: Type.Object({ id: UuidV7 }),
        ifMatch: 'required',
        body: Patch,
        bodyMediaType: 'application/merge-patch+json',
        bodyLimit: 1000,
        readOnly: ['/id'],
      },
    })
    const visit = doc.paths['/things/{id}'].put
    assert.equal(visit.requestBody.required, false)
    assert.equal(visit.requestBody['x-max-encoded-bytes'], 64 * 1024)
    assert.ok(visit.responses['400']['x-problem-codes'].includes('invalid_id'))
    assert.ok(!visit.responses['400']['x-problem-codes'].includes('read_only_field'))
    const patch = doc.paths['/things/{id}'].patch
    assert.deepEqual(Object.keys(patch.requestBody.content), ['application/merge-patch+json'])
    assert.equal(patch.requestBody.required, true)
    assert.equal(patch.requestBody['x-max-encoded-bytes'], 1000)
    assert.deepEqual(patch.requestBody['x-read-only-fields'], ['/id'])
    assert.ok(patch.responses['400']['x-problem-codes'].includes('read_only_field'))
    assert.deepEqual(patch.responses['412']['x-problem-codes'], ['precondition_failed'])
    assert.deepEqual(patch.responses['428']['x-problem-codes'], ['precondition_required'])
    assert.ok(patch.parameters.some((p: Json) => p.name === 'If-Match' && p.in === 'header' && p.required))
    await SwaggerParser.validate(structuredClone(doc) as never)
  })

  it('documents a stream and JSON alternatives of one response', async () => {
    const Frame = Type.Object({ event: Type.Literal('ready'), data: Type.Object({}) }, { $id: 'Frame' })
    const A = Type.Object({ a: Type.String() }, { $id: 'ViewA' })
    const B = Type.Object({ b: Type.String() }, { $id: 'ViewB' })
    const doc = build({
      'thing.get': opReturning(A, {
        responses: {
          200: { description: 'A view or a stream', schema: A, alternatives: [B], stream: Frame },
        },
      }),
    })
    const content = doc.paths['/thing'].get.responses['200'].content
    assert.deepEqual(content['application/json'].schema, {
      anyOf: [{ $ref: '#/components/schemas/ViewA' }, { $ref: '#/components/schemas/ViewB' }],
    })
    assert.equal(content['text/event-stream'].schema.type, 'string')
    assert.equal(content['text/event-stream'].schema.contentMediaType, 'text/event-stream')
    assert.deepEqual(content['text/event-stream'].schema.contentSchema, {
      type: 'array',
      items: { $ref: '#/components/schemas/Frame' },
    })
    await SwaggerParser.validate(structuredClone(doc) as never)
  })
})
