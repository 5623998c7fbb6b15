import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { accepts, acceptsZstd, hostAllowed, mediaTypeOf, originAllowed } from '../../src/http/negotiate.ts'

describe('negotiation', () => {
  it('accepts: absent Accept admits anything', () => {
    assert.equal(accepts(undefined, 'application/json'), true)
    assert.equal(accepts('', 'application/json'), true)
  })

  it('accepts: exact types and wildcards', () => {
    for (const accept of [
      'application/json',
      '*/*',
      'application/*',
      'APPLICATION/JSON',
      'text/html, application/json',
      'application/json; charset=utf-8',
    ]) {
      assert.equal(accepts(accept, 'application/json'), true, accept)
    }
    for (const accept of ['text/html', 'text/*', 'application/xml', 'image/*, text/plain']) {
      assert.equal(accepts(accept, 'application/json'), false, accept)
    }
    assert.equal(accepts('text/event-stream', 'text/event-stream'), true)
    assert.equal(accepts('application/json', 'text/event-stream'), false)
  })

  it('accepts: q=0 refuses, and the most specific range decides', () => {
    assert.equal(accepts('application/json;q=0', 'application/json'), false)
    assert.equal(accepts('*/*;q=0', 'application/json'), false)
    assert.equal(accepts('application/json;q=0, */*', 'application/json'), false)
    assert.equal(accepts('application/*;q=0, */*', 'application/json'), false)
    assert.equal(accepts('*/*;q=0, application/json', 'application/json'), true)
    assert.equal(accepts('application/*;q=0, application/json;q=0.2', 'application/json'), true)
    assert.equal(accepts('text/html, */*;q=0.1', 'application/json'), true)
    assert.equal(accepts('application/json;q=bogus', 'application/json'), false)
  })

  it('acceptsZstd: explicit zstd wins over *, q=0 refuses', () => {
    for (const [header, expected] of [
      [undefined, false],
      ['', false],
      ['zstd', true],
      ['ZSTD', true],
      ['gzip, zstd', true],
      ['gzip, deflate, br', false],
      ['zstd;q=0', false],
      ['zstd;q=0.001', true],
      ['*', true],
      ['*;q=0', false],
      ['*, zstd;q=0', false],
      ['zstd, *;q=0', true],
      ['identity', false],
    ] as const) {
      assert.equal(acceptsZstd(header), expected, String(header))
    }
  })

  it('hostAllowed: loopback names with exactly the daemon port', () => {
    for (const host of [
      '127.0.0.1:4567',
      'localhost:4567',
      '[::1]:4567',
      'LocalHost:4567',
      ' localhost:4567 ',
    ]) {
      assert.equal(hostAllowed(host, 4567), true, host)
    }
    for (const host of [
      undefined,
      '',
      'localhost',
      '127.0.0.1',
      '[::1]',
      'localhost:4568',
      '127.0.0.1:45670',
      'localhost:',
      'evil.example:4567',
      'localhost.evil.example:4567',
      '127.0.0.1.nip.io:4567',
      'user@localhost:4567',
      '::1:4567',
      '[::2]:4567',
      '0.0.0.0:4567',
      'localhost:4567:4567',
      'localhost:+4567',
    ]) {
      assert.equal(hostAllowed(host, 4567), false, String(host))
    }
  })

  it('originAllowed: absent or loopback on any port and scheme http(s)', () => {
    for (const origin of [
      undefined,
      'http://localhost:5173',
      'http://127.0.0.1',
      'https://localhost',
      'http://[::1]:8080',
    ]) {
      assert.equal(originAllowed(origin), true, String(origin))
    }
    for (const origin of [
      'http://evil.example',
      'http://localhost.evil.example',
      'http://127.0.0.1.evil.example',
      'null',
      '',
      'file://',
      'chrome-extension://abcdef',
      'ws://localhost:1',
      'not a url',
    ]) {
      assert.equal(originAllowed(origin), false, origin)
    }
  })

  it('mediaTypeOf strips parameters and case', () => {
    assert.equal(mediaTypeOf('Application/JSON; charset=utf-8'), 'application/json')
    assert.equal(mediaTypeOf(undefined), undefined)
    assert.equal(mediaTypeOf(''), undefined)
  })
})
