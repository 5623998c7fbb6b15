import assert from 'node:assert/strict'
import { PassThrough } from 'node:stream'
import { describe, it } from 'node:test'
import zlib from 'node:zlib'
import { hasBody, nodeBodyStream, readBody } from '../../src/http/body.ts'
import { HearthError } from '../../src/schemas/problems.ts'

function streamOf(...chunks: (string | Buffer)[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(Buffer.from(c))
      controller.close()
    },
  })
}

/** A stream that fails the test if anyone reads it. */
function untouchable(): ReadableStream<Uint8Array> {
  return new ReadableStream({
    pull() {
      assert.fail('the body was read')
    },
  })
}

async function rejectsWith(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (err: unknown) => err instanceof HearthError && err.code === code)
}

describe('request body reading', () => {
  it('reads up to the limit, across chunks', async () => {
    const got = await readBody(
      { stream: streamOf('ab', 'cd', 'ef'), contentLength: undefined, contentEncoding: undefined },
      6,
    )
    assert.equal(got.toString(), 'abcdef')
    const none = await readBody({ stream: null, contentLength: undefined, contentEncoding: undefined }, 6)
    assert.equal(none.length, 0)
  })

  it('cuts a stream off at the first byte past the limit', async () => {
    let pulls = 0
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++
        controller.enqueue(Buffer.alloc(1000))
      },
    })
    await rejectsWith(
      readBody({ stream: endless, contentLength: undefined, contentEncoding: undefined }, 4500),
      'body_too_large',
    )
    assert.ok(pulls <= 7, `read ${pulls} chunks`)
    await rejectsWith(
      readBody({ stream: streamOf('abcdefg'), contentLength: undefined, contentEncoding: 'identity' }, 6),
      'body_too_large',
    )
  })

  it('refuses a declared length over the limit without reading', async () => {
    await rejectsWith(
      readBody({ stream: untouchable(), contentLength: '7', contentEncoding: undefined }, 6),
      'body_too_large',
    )
    await rejectsWith(
      readBody({ stream: untouchable(), contentLength: '1000000', contentEncoding: 'zstd' }, 6),
      'body_too_large',
    )
  })

  it('refuses other codings and malformed lengths', async () => {
    for (const enc of ['gzip', 'br', 'deflate', 'zstd, gzip', 'x-unknown']) {
      await rejectsWith(
        readBody({ stream: untouchable(), contentLength: undefined, contentEncoding: enc }, 6),
        'unsupported_content_encoding',
      )
    }
    await rejectsWith(
      readBody({ stream: untouchable(), contentLength: '-1', contentEncoding: undefined }, 6),
      'invalid_header',
    )
    await rejectsWith(
      readBody({ stream: untouchable(), contentLength: 'abc', contentEncoding: undefined }, 6),
      'invalid_header',
    )
  })

  it('decodes zstd and applies the limit to decoded bytes', async () => {
    const text = JSON.stringify({ a: 'x'.repeat(5000) })
    const frame = zlib.zstdCompressSync(Buffer.from(text))
    const got = await readBody(
      { stream: streamOf(frame), contentLength: String(frame.length), contentEncoding: 'ZSTD' },
      8000,
    )
    assert.equal(got.toString(), text)
    await rejectsWith(
      readBody({ stream: streamOf(frame), contentLength: undefined, contentEncoding: 'zstd' }, 4000),
      'body_too_large',
    )
  })

  it('tells from the framing headers whether a request has a body', () => {
    assert.equal(hasBody(new Headers()), false)
    assert.equal(hasBody(new Headers({ 'content-length': '0' })), false)
    assert.equal(hasBody(new Headers({ 'content-length': '12' })), true)
    assert.equal(hasBody(new Headers({ 'transfer-encoding': 'chunked' })), true)
  })

  it('reads a Node stream, and on cancel discards the rest without destroying it', async () => {
    const incoming = new PassThrough()
    const stream = nodeBodyStream(incoming)
    incoming.write('hello ')
    incoming.write('world')
    await rejectsWith(
      readBody({ stream, contentLength: undefined, contentEncoding: undefined }, 8),
      'body_too_large',
    )
    assert.equal(incoming.destroyed, false)
    const ended = new Promise((resolve) => incoming.on('end', resolve))
    incoming.end('more that nobody reads')
    await ended // flowing again: the rest is pulled off and dropped

    const whole = new PassThrough()
    whole.end('{"a":1}')
    const got = await readBody(
      { stream: nodeBodyStream(whole), contentLength: undefined, contentEncoding: undefined },
      100,
    )
    assert.equal(got.toString(), '{"a":1}')
  })

  it('times out a body that pauses (request_timeout), on a web stream and a Node stream', async () => {
    const stalled = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(Buffer.from('{"a"'))
      },
    })
    await rejectsWith(
      readBody({ stream: stalled, contentLength: undefined, contentEncoding: undefined }, 100, 50),
      'request_timeout',
    )
    const incoming = new PassThrough()
    incoming.write('{"a"')
    await rejectsWith(
      readBody({ stream: incoming, contentLength: undefined, contentEncoding: undefined }, 100, 50),
      'request_timeout',
    )
  })
})
