// A form's requested schema as fields, the daemon's check of an answer's content against
// them (every primitive the spec allows), and the clients' reading of typed values.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { contentOf, readValue } from '../../src/client/elicitation-view.ts'
import { contentErrors, fieldsOf } from '../../src/sessions/elicitation-fields.ts'

const fields = fieldsOf({
  properties: {
    site: { type: 'string', format: 'uri' },
    day: { type: 'string', format: 'date' },
    at: { type: 'string', format: 'date-time' },
    code: { type: 'string', minLength: 3, maxLength: 4 },
    ratio: { type: 'number', minimum: 0, maximum: 1 },
    size: { type: 'string', enum: ['s', 'm'], enumNames: ['Small', 'Medium'] },
    picks: {
      type: 'array',
      items: {
        anyOf: [
          { const: 'x', title: 'Ex' },
          { const: 'y', title: 'Why' },
        ],
      },
      minItems: 1,
      maxItems: 1,
    },
    odd: { type: 'object' },
  },
  required: ['code'],
})
const byName = Object.fromEntries(fields.map((f) => [f.name, f]))
const errorsOf = (content: Record<string, unknown>) =>
  Object.fromEntries(contentErrors(fields, content).map((e) => [e.field, e.message]))

describe('elicitation fields', () => {
  it('reads every primitive of the spec, and a shape it does not know as a plain string', () => {
    assert.deepEqual(byName.size.options, [
      { value: 's', title: 'Small' },
      { value: 'm', title: 'Medium' },
    ])
    assert.deepEqual(byName.picks.options, [
      { value: 'x', title: 'Ex' },
      { value: 'y', title: 'Why' },
    ])
    assert.equal(byName.picks.type, 'array')
    assert.equal(byName.picks.max_items, 1)
    assert.equal(byName.site.format, 'uri')
    assert.equal(byName.odd.type, 'string')
    assert.equal(byName.code.required, true)
    assert.equal(byName.ratio.required, false)
  })

  it('checks content: formats, lengths, ranges, choices and counts', () => {
    assert.deepEqual(
      errorsOf({
        code: 'abc',
        site: 'https://x.test/',
        day: '2026-02-03',
        at: '2026-02-03T04:05:06Z',
        ratio: 0.5,
        size: 'm',
        picks: ['y'],
      }),
      {},
    )
    assert.deepEqual(
      errorsOf({
        code: 'ab',
        site: 'not a url',
        day: '2026-13-45',
        at: '2026-02-03',
        ratio: 2,
        size: 'l',
        picks: [],
      }),
      {
        code: 'must be at least 3 characters',
        site: 'is not a valid uri',
        day: 'is not a valid date',
        at: 'is not a valid date-time',
        ratio: 'must be at most 1',
        size: 'must be one of s, m',
        picks: 'needs at least 1 choice',
      },
    )
    assert.deepEqual(errorsOf({ code: 'abcde', picks: ['x', 'y'], ratio: 'half' }), {
      code: 'must be at most 4 characters',
      picks: 'takes at most 1 choice',
      ratio: 'must be a number',
    })
    assert.deepEqual(errorsOf({}), { code: 'is required' })
  })

  it('reads typed values: a choice by value, title or number, yes/no, numbers, lists', () => {
    assert.deepEqual(readValue(byName.size, 'Medium'), { value: 'm' })
    assert.deepEqual(readValue(byName.size, '1'), { value: 's' })
    assert.deepEqual(readValue(byName.size, 'xl'), { error: 'not one of the choices' })
    assert.deepEqual(readValue(byName.picks, 'Why'), { value: ['y'] })
    assert.deepEqual(readValue(byName.ratio, 'abc'), { error: 'type a number' })
    assert.deepEqual(readValue(byName.code, '  '), { value: undefined })
    assert.deepEqual(contentOf(fields, { ratio: '0.25' }), { errors: { code: 'required' } })
    assert.deepEqual(contentOf(fields, { code: 'abcd', ratio: '0.25' }), {
      content: { code: 'abcd', ratio: 0.25 },
    })
  })
})
