import assert from 'node:assert/strict'
import { createHmac, randomBytes } from 'node:crypto'
import { describe, it } from 'node:test'
import { Continuations } from '../../src/http/continuation.ts'
import { HearthError } from '../../src/schemas/problems.ts'

const key = Buffer.alloc(32, 7)

function invalid(fn: () => unknown): void {
  assert.throws(fn, (err: unknown) => err instanceof HearthError && err.code === 'invalid_continuation')
}

describe('continuation tokens', () => {
  const c = new Continuations(key)

  it('round-trips any JSON key', () => {
    for (const k of [
      '0190a1b2-path',
      42,
      { at: '2026-01-01T00:00:00.000Z', id: 'x' },
      ['a', 1],
      null,
      'é/😀',
    ]) {
      const token = c.mint('files', { q: 'x' }, k)
      assert.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'opaque base64url with a mac')
      assert.deepEqual(c.open('files', { q: 'x' }, token), k)
    }
  })

  it('survives a restart: the same key opens it', () => {
    const token = c.mint('files', {}, 'k')
    assert.equal(new Continuations(Buffer.from(key)).open('files', {}, token), 'k')
  })

  it('binds the token to its scope and query', () => {
    const token = c.mint('storage.files', { workspace: '/a', archived: true }, 'k')
    invalid(() => c.open('storage.sessions', { workspace: '/a', archived: true }, token))
    invalid(() => c.open('storage.files', { workspace: '/b', archived: true }, token))
    invalid(() => c.open('storage.files', { workspace: '/a', archived: 'true' }, token))
    invalid(() => c.open('storage.files', { workspace: '/a' }, token))
    invalid(() => c.open('storage.files', { workspace: '/a', archived: true, search: 'x' }, token))
  })

  it('ignores the order of query parameters and absent ones', () => {
    const token = c.mint('s', { a: 1, b: 2, c: undefined }, 'k')
    assert.equal(c.open('s', { b: 2, a: 1 }, token), 'k')
  })

  it('leaves the paging parameters out of the binding', () => {
    const token = c.mint('s', { scope: 'all', limit: 10, next: 'abc' }, 'k')
    assert.equal(c.open('s', { scope: 'all', limit: 50 }, token), 'k')
    assert.equal(c.open('s', { scope: 'all', next: token }, token), 'k')
    const sections = c.mint('storage', { files_next: 'f', sessions_next: 's' }, 'k')
    assert.equal(c.open('storage', { files_next: sections }, sections), 'k')
  })

  it('refuses forged, altered and foreign tokens', () => {
    const token = c.mint('s', {}, { at: 5 })
    const [payload, mac] = token.split('.')
    const forgedPayload = Buffer.from(
      JSON.stringify({ v: 1, q: JSON.parse(Buffer.from(payload, 'base64url').toString()).q, k: { at: 0 } }),
    ).toString('base64url')
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1)
    for (const bad of [
      `${forgedPayload}.${mac}`,
      `${flip(payload, 0)}.${mac}`,
      `${payload}.${flip(mac, mac.length - 1)}`,
      `${payload}.${mac.slice(1)}`,
      `${payload}.${mac}x`,
      `${payload}.${mac}.`,
      `${payload}.`,
      `.${mac}`,
      payload,
      '',
      '.',
      `${payload}.${'é'.repeat(mac.length)}`,
      `${payload}.${'\u0000'.repeat(mac.length)}`,
    ]) {
      invalid(() => c.open('s', {}, bad))
    }
    invalid(() => new Continuations(randomBytes(32)).open('s', {}, token))
  })

  it('refuses a correctly signed token of another version', () => {
    const payload = Buffer.from(JSON.stringify({ v: 2, q: 'x', k: 1 })).toString('base64url')
    const mac = createHmac('sha256', key).update(payload).digest('base64url').slice(0, 32)
    invalid(() => c.open('s', {}, `${payload}.${mac}`))
  })
})
