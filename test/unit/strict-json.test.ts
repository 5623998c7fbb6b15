import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { findDuplicateKey, MAX_JSON_DEPTH, parseStrictJson } from '../../src/http/strict-json.ts'
import { HearthError } from '../../src/schemas/problems.ts'
import { pointerOf } from '../../src/validate/pointer.ts'

function problem(fn: () => unknown): HearthError {
  try {
    fn()
  } catch (err) {
    assert.ok(err instanceof HearthError, `expected a HearthError, got ${err}`)
    return err
  }
  assert.fail('expected a problem')
}

describe('strict JSON', () => {
  it('parses what JSON.parse parses when no key repeats', () => {
    for (const text of [
      '{}',
      '[]',
      '1',
      '"s"',
      'null',
      ' {"a":[{"b":1},{"b":2}],"c":{"b":1}} ',
      '{"a":"}{[],\\"","b":1}',
    ]) {
      assert.deepEqual(parseStrictJson(text), JSON.parse(text), text)
    }
  })

  it('answers malformed_json for what JSON.parse refuses', () => {
    for (const text of [
      '',
      '{',
      '{"a":1,}',
      "{'a':1}",
      '{"a":1} x',
      '{"a":1}{"b":2}',
      '// c\n{}',
      '\u00a0{}',
      'NaN',
    ]) {
      assert.equal(problem(() => parseStrictJson(text)).code, 'malformed_json', JSON.stringify(text))
    }
  })

  it('finds duplicates at any depth, with their JSON pointer', () => {
    const cases: [string, string][] = [
      ['{"a":1,"a":2}', '/a'],
      ['{"a":{"b":1},"a":{"b":1}}', '/a'],
      ['{"x":{"a":1,"b":{"c":1,"c":2}}}', '/x/b/c'],
      ['{"x":{"a":{"q":1,"q":2},"a":1}}', '/x/a/q'],
      ['{"x":{"a":1,"a":2},"y":{"a":1,"a":2}}', '/x/a'],
    ]
    for (const [text, pointer] of cases) {
      assert.equal(findDuplicateKey(text), pointer, text)
      const err = problem(() => parseStrictJson(text))
      assert.equal(err.code, 'duplicate_key')
      assert.match(err.message, new RegExp(`${pointer}$`))
    }
  })

  it('finds duplicates inside arrays of objects, pointing at the element', () => {
    assert.equal(findDuplicateKey('[{"a":1},{"a":1,"a":2}]'), '/1/a')
    assert.equal(findDuplicateKey('{"l":[{"a":1},{"b":1,"b":2}]}'), '/l/1/b')
    assert.equal(findDuplicateKey('[[{"k":1,"k":1}]]'), '/0/0/k')
    assert.equal(findDuplicateKey('{"l":[1,[2,3],{"m":[{},{"z":0,"z":0}]}]}'), '/l/2/m/1/z')
  })

  it('does not confuse the same key in sibling or nested objects with a duplicate', () => {
    for (const text of [
      '{"x":{"a":1},"y":{"a":1}}',
      '[{"a":1},{"a":1}]',
      '{"a":{"a":{"a":1}}}',
      '{"a":"a","b":"a"}',
    ]) {
      assert.equal(findDuplicateKey(text), undefined, text)
    }
  })

  it('compares keys after unescaping, as JSON.parse does', () => {
    const same: [string, string][] = [
      ['{"a\\u0062":1,"ab":2}', '/ab'],
      ['{"ab":1,"\\u0061\\u0062":2}', '/ab'],
      ['{"a\\/b":1,"a/b":2}', '/a~1b'],
      ['{"\\"":1,"\\u0022":2}', '/"'],
      ['{"\\ud83d\\ude00":1,"😀":2}', '/😀'],
      ['{"\\uDBFF\\uDFFF":1,"\\udbff\\udfff":2}', '/\u{10ffff}'],
      ['{"\\\\":1,"\\u005c":2}', '/\\'],
    ]
    for (const [text, pointer] of same) {
      assert.equal(Object.keys(JSON.parse(text)).length, 1, `JSON.parse merges ${text}`)
      assert.equal(findDuplicateKey(text), pointer, text)
    }
    const different = [
      '{"\\ud800":1,"\\ud801":2}',
      '{"\\u0000":1,"":2}',
      '{"é":1,"e\\u0301":2}',
      '{"a\\\\":1,"a":2}',
    ]
    for (const text of different) {
      assert.equal(Object.keys(JSON.parse(text)).length, 2, `JSON.parse keeps both in ${text}`)
      assert.equal(findDuplicateKey(text), undefined, text)
    }
  })

  it('is not fooled by braces, quotes and backslashes inside strings', () => {
    assert.equal(findDuplicateKey('{"a":"{\\"a\\":1,","b":"\\\\","a":2}'), '/a')
    assert.equal(findDuplicateKey('{"k\\\\":"v","k":1}'), undefined)
    assert.equal(findDuplicateKey('{"s":"]}],{","s2":"\\"a\\":1"}'), undefined)
  })

  it('handles __proto__ and other prototype names as plain keys', () => {
    assert.equal(findDuplicateKey('{"__proto__":1,"__proto__":2}'), '/__proto__')
    assert.equal(findDuplicateKey('{"constructor":1,"toString":2,"hasOwnProperty":3}'), undefined)
  })

  it('escapes ~ and / in pointers (RFC 6901)', () => {
    assert.equal(pointerOf(['a/b', 'm~n', 0]), '/a~1b/m~0n/0')
    assert.equal(findDuplicateKey('{"m~n":{"x/y":1,"x/y":2}}'), '/m~0n/x~1y')
    assert.equal(pointerOf([]), '')
  })

  it(`refuses nesting deeper than ${MAX_JSON_DEPTH} without overflowing the stack`, () => {
    const arrays = (n: number) => '['.repeat(n) + ']'.repeat(n)
    const objects = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)
    assert.deepEqual(parseStrictJson(arrays(MAX_JSON_DEPTH)), JSON.parse(arrays(MAX_JSON_DEPTH)))
    assert.deepEqual(parseStrictJson(objects(MAX_JSON_DEPTH)), JSON.parse(objects(MAX_JSON_DEPTH)))
    for (const text of [arrays(MAX_JSON_DEPTH + 1), objects(MAX_JSON_DEPTH + 1), arrays(100_000)]) {
      assert.equal(problem(() => parseStrictJson(text)).code, 'malformed_json')
    }
  })

  it('scans a large body with many objects', () => {
    const items = Array.from({ length: 20_000 }, (_, i) => ({ id: i, text: 'x\\"{'.repeat(20) }))
    const big = JSON.stringify({ items })
    assert.equal(findDuplicateKey(big), undefined)
    assert.equal(findDuplicateKey(big.replace('"id":19999', '"id":19999,"text":0')), '/items/19999/text')
  })
})
