import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { HearthError } from '../../src/schemas/problems.ts'
import { etag, notModified, requireCreateOnly, requireIfMatch } from '../../src/util/preconditions.ts'

function code(fn: () => unknown): string | undefined {
  try {
    fn()
  } catch (err) {
    assert.ok(err instanceof HearthError, String(err))
    return `${err.status} ${err.code}`
  }
  return undefined
}

describe('preconditions', () => {
  it('makes strong ETags from revisions', () => {
    assert.equal(etag(7), '"7"')
    assert.equal(etag('r-12'), '"r-12"')
  })

  it('requires If-Match: 428 without, 412 when stale', () => {
    const current = etag(3)
    assert.equal(
      code(() => requireIfMatch(undefined, current)),
      '428 precondition_required',
    )
    assert.equal(
      code(() => requireIfMatch(undefined, undefined)),
      '428 precondition_required',
    )
    assert.equal(
      code(() => requireIfMatch('"2"', current)),
      '412 precondition_failed',
    )
    assert.equal(
      code(() => requireIfMatch('', current)),
      '412 precondition_failed',
    )
    assert.equal(
      code(() => requireIfMatch('3', current)),
      '412 precondition_failed',
    )
    assert.equal(
      code(() => requireIfMatch('"3"', current)),
      undefined,
    )
    assert.equal(
      code(() => requireIfMatch('"1", "3"', current)),
      undefined,
    )
    assert.equal(
      code(() => requireIfMatch(' "3" ', current)),
      undefined,
    )
  })

  it('compares If-Match strongly: a weak tag never matches', () => {
    assert.equal(
      code(() => requireIfMatch('W/"3"', etag(3))),
      '412 precondition_failed',
    )
  })

  it('refuses If-Match: *, alone or in a list, as no validator', () => {
    assert.equal(
      code(() => requireIfMatch('*', etag(3))),
      '428 precondition_required',
    )
    assert.equal(
      code(() => requireIfMatch('"3", *', etag(3))),
      '428 precondition_required',
    )
    assert.equal(
      code(() => requireIfMatch('*', undefined)),
      '428 precondition_required',
    )
    assert.equal(
      code(() => requireIfMatch('"3"', undefined)),
      '412 precondition_failed',
    )
  })

  it('requires If-None-Match: * on create-only PUTs', () => {
    assert.equal(
      code(() => requireCreateOnly(undefined, false)),
      '428 precondition_required',
    )
    assert.equal(
      code(() => requireCreateOnly('*', false)),
      undefined,
    )
    assert.equal(
      code(() => requireCreateOnly(' * ', false)),
      undefined,
    )
    assert.equal(
      code(() => requireCreateOnly('*', true)),
      '412 precondition_failed',
    )
    assert.equal(
      code(() => requireCreateOnly('"3"', false)),
      '400 invalid_header',
    )
  })

  it('answers If-None-Match on reads with weak comparison', () => {
    const current = etag(3)
    assert.equal(notModified(undefined, current), false)
    assert.equal(notModified('"3"', current), true)
    assert.equal(notModified('W/"3"', current), true)
    assert.equal(notModified('"1", W/"3"', current), true)
    assert.equal(notModified('*', current), true)
    assert.equal(notModified('"2"', current), false)
    assert.equal(notModified('"30"', current), false)
  })
})
