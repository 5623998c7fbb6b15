import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import Type from 'typebox'
import { checkBody, checkParams, checkQuery } from '../../src/http/validate.ts'
import { Limit, UuidV7 } from '../../src/schemas/common.ts'
import { HearthError } from '../../src/schemas/problems.ts'

function problem(fn: () => unknown): { code: string; detail: string } {
  try {
    fn()
  } catch (err) {
    assert.ok(err instanceof HearthError, String(err))
    return { code: err.code, detail: err.message }
  }
  assert.fail('expected a problem')
}

const Query = Type.Object(
  {
    scope: Type.Optional(Type.Enum(['roots', 'all'])),
    limit: Type.Optional(Limit(200, 50)),
    archived: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)

describe('query validation', () => {
  it('converts values to the schema types', () => {
    assert.deepEqual(checkQuery(Query, new URLSearchParams('limit=5&archived=true&scope=all')), {
      limit: 5,
      archived: true,
      scope: 'all',
    })
    assert.deepEqual(checkQuery(Query, new URLSearchParams('')), {})
    assert.deepEqual(checkQuery(undefined, new URLSearchParams('')), {})
  })

  it('refuses unknown names, prototype names included', () => {
    for (const q of ['x=1', 'constructor=1', 'toString=a', '__proto__=1', 'hasOwnProperty=1', 'valueOf=1']) {
      const p = problem(() => checkQuery(Query, new URLSearchParams(q)))
      assert.equal(p.code, 'unknown_parameter', q)
      assert.match(p.detail, new RegExp(q.split('=')[0]))
      assert.equal(problem(() => checkQuery(undefined, new URLSearchParams(q))).code, 'unknown_parameter')
    }
  })

  it('refuses a repeated parameter, known or not, before anything else', () => {
    for (const q of [
      'limit=1&limit=1',
      'limit=1&scope=all&limit=2',
      'x=1&x=1',
      'constructor=1&constructor=1',
      'x=1&limit=1&limit=1',
    ]) {
      assert.equal(problem(() => checkQuery(Query, new URLSearchParams(q))).code, 'duplicate_parameter', q)
    }
    assert.equal(
      problem(() => checkQuery(undefined, new URLSearchParams('a=1&a=2'))).code,
      'duplicate_parameter',
    )
  })

  it('takes only canonical numbers and booleans: nothing is rounded or guessed', () => {
    for (const q of [
      'limit=1.5',
      'limit=0x10',
      'limit=1e1',
      'limit= 5',
      'limit=05',
      'limit=+5',
      'archived=1',
      'archived=TRUE',
      'archived=',
    ]) {
      assert.equal(problem(() => checkQuery(Query, new URLSearchParams(q))).code, 'invalid_parameter', q)
    }
    const N = Type.Object(
      { n: Type.Optional(Type.Number()), s: Type.Optional(Type.String()) },
      { additionalProperties: false },
    )
    assert.deepEqual(checkQuery(N, new URLSearchParams('n=-1.25e2&s=12')), { n: -125, s: '12' })
    const Nullable = Type.Object(
      { tail: Type.Optional(Type.Union([Type.Integer(), Type.Null()])) },
      { additionalProperties: false },
    )
    assert.deepEqual(checkQuery(Nullable, new URLSearchParams('tail=7')), { tail: 7 })
  })

  it('refuses bad values with invalid_parameter naming the parameter', () => {
    for (const q of ['limit=0', 'limit=201', 'limit=abc', 'limit=', 'scope=some', 'archived=maybe']) {
      const p = problem(() => checkQuery(Query, new URLSearchParams(q)))
      assert.equal(p.code, 'invalid_parameter', q)
      assert.match(p.detail, new RegExp(`parameter ${q.split('=')[0]}`))
    }
    const ids = Type.Object({ parent_id: Type.Optional(UuidV7) }, { additionalProperties: false })
    assert.equal(problem(() => checkQuery(ids, new URLSearchParams('parent_id=x'))).code, 'invalid_parameter')
  })
})

describe('path parameter validation', () => {
  const Params = Type.Object(
    { session_id: UuidV7, name: Type.String({ maxLength: 3 }) },
    { additionalProperties: false },
  )

  it('answers the code the schema names (x-problem), else invalid_parameter', () => {
    const ok = { session_id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', name: 'abc' }
    assert.deepEqual(checkParams(Params, ok), ok)
    for (const bad of ['x', '0190a1b2-c3d4-4e5f-8a9b-0c1d2e3f4a5b', `${ok.session_id}0`]) {
      const p = problem(() => checkParams(Params, { ...ok, session_id: bad }))
      assert.equal(p.code, 'invalid_id', bad)
      assert.match(p.detail, /session_id/)
    }
    assert.equal(problem(() => checkParams(Params, { ...ok, name: 'abcd' })).code, 'invalid_parameter')
  })
})

describe('body validation', () => {
  const Inner = Type.Object({ pinned: Type.Optional(Type.Boolean()) }, { additionalProperties: false })
  const Body = Type.Object(
    {
      name: Type.String(),
      preferences: Type.Optional(Inner),
      map: Type.Optional(Type.Record(Type.String(), Type.Boolean())),
    },
    { additionalProperties: false },
  )

  it('names unknown fields by JSON pointer, nested and escaped', () => {
    assert.deepEqual(
      problem(() => checkBody(Body, { name: 'a', extra: 1 })),
      {
        code: 'unknown_field',
        detail: 'Unknown field /extra',
      },
    )
    assert.equal(
      problem(() => checkBody(Body, { name: 'a', preferences: { zzz: 1 } })).detail,
      'Unknown field /preferences/zzz',
    )
    assert.equal(problem(() => checkBody(Body, { name: 'a', 'a/b~c': 1 })).detail, 'Unknown field /a~1b~0c')
  })

  it('reports other violations as invalid_request with the pointer', () => {
    const p = problem(() => checkBody(Body, { name: 5 }))
    assert.equal(p.code, 'invalid_request')
    assert.match(p.detail, /^\/name: /)
    assert.match(problem(() => checkBody(Body, { name: 'a', map: { k: 'yes' } })).detail, /^\/map\/k: /)
    assert.equal(problem(() => checkBody(Body, [])).code, 'invalid_request')
    assert.match(problem(() => checkBody(Body, {})).detail, /^\(root\): /)
  })

  it('validates a discriminated union against the member the value names', () => {
    const A = Type.Object({ kind: Type.Literal('a'), x: Type.String() }, { additionalProperties: false })
    const B = Type.Object(
      { kind: Type.Literal('b'), y: Type.Integer(), z: Type.Optional(UuidV7) },
      { additionalProperties: false },
    )
    const U = Type.Union([A, B], { discriminator: { propertyName: 'kind' } })
    assert.deepEqual(checkBody(U, { kind: 'b', y: 1 }), { kind: 'b', y: 1 })
    assert.deepEqual(
      problem(() => checkBody(U, { kind: 'b', y: 1, extra: 1 })),
      {
        code: 'unknown_field',
        detail: 'Unknown field /extra',
      },
    )
    const wrong = problem(() => checkBody(U, { kind: 'b', y: 'one' }))
    assert.equal(wrong.code, 'invalid_request')
    assert.match(wrong.detail, /^\/y: /)
    assert.match(problem(() => checkBody(U, { kind: 'b', y: 1, z: 'x' })).detail, /^\/z: /)
    for (const value of [{ kind: 'c' }, { y: 1 }, { kind: 1 }]) {
      const p = problem(() => checkBody(U, value))
      assert.equal(p.code, 'invalid_request')
      assert.match(p.detail, /^\/kind: must be one of "a", "b"/)
    }
  })
})
