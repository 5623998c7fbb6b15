// The node:http adapter on its own: request URLs, the light Headers and Response classes, and
// a live server for streaming, client aborts and early answers to uploads. The daemon tests
// (api, streams, lifecycle) cover it end to end.
import assert from 'node:assert/strict'
import { type IncomingMessage, request, type Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { LightHeaders, LightResponse, requestListener, requestUrl } from '../../src/http/node-adapter.ts'

describe('requestUrl', () => {
  it('takes plain origin-form targets as they are', () => {
    assert.equal(requestUrl('/sessions?limit=5', '127.0.0.1:4000'), 'http://127.0.0.1:4000/sessions?limit=5')
    assert.equal(requestUrl('/server', '[::1]:4000'), 'http://[::1]:4000/server')
  })

  it('resolves dot segments and escapes what URL escapes', () => {
    assert.equal(requestUrl('/a/../server', 'h:1'), 'http://h:1/server')
    assert.equal(requestUrl('/a b', 'h:1'), 'http://h:1/a%20b')
  })

  it('refuses targets that are not URLs', () => {
    assert.equal(requestUrl('*', 'h:1'), undefined)
    assert.equal(requestUrl('/a\\b', 'h:1'), undefined)
    assert.equal(requestUrl('server', 'h:1'), undefined)
  })

  it('takes absolute-form targets, and leaves an odd Host out of the URL', () => {
    assert.equal(requestUrl('http://x:1/y?z', 'h:1'), 'http://x:1/y?z')
    assert.equal(requestUrl('/server', 'evil host'), 'http://invalid.host/server')
  })
})

describe('LightHeaders', () => {
  it('combines, lowercases and iterates sorted, keeping Set-Cookie values apart', () => {
    const h = new LightHeaders({ 'X-B': '1', 'x-a': ' 2 ' })
    h.append('x-b', '3')
    h.append('Set-Cookie', 'a=1')
    h.append('set-cookie', 'b=2')
    assert.equal(h.get('X-B'), '1, 3')
    assert.equal(h.get('x-a'), '2')
    assert.deepEqual(h.getSetCookie(), ['a=1', 'b=2'])
    assert.deepEqual(
      [...h],
      [
        ['set-cookie', 'a=1'],
        ['set-cookie', 'b=2'],
        ['x-a', '2'],
        ['x-b', '1, 3'],
      ],
    )
    assert.deepEqual(h.toNode(), { 'x-a': '2', 'x-b': '1, 3', 'set-cookie': ['a=1', 'b=2'] })
  })

  it('refuses invalid names and values like Headers does', () => {
    assert.throws(() => new LightHeaders({ 'bad name': 'x' }), TypeError)
    assert.throws(() => new LightHeaders([['x', 'a\r\nb']]), TypeError)
  })
})

describe('LightResponse', () => {
  it('keeps status, headers and body, and reads them back', async () => {
    const res = new LightResponse('hi', { status: 201, headers: { 'x-a': '1' } })
    assert.equal(res.status, 201)
    assert.equal(res.ok, true)
    assert.equal(res.headers.get('content-type'), 'text/plain;charset=UTF-8')
    assert.equal(await res.text(), 'hi')
    assert.equal(res.bodyUsed, true)
    const json = LightResponse.json({ a: 1 }, { status: 400 })
    assert.equal(json.headers.get('content-type'), 'application/json')
    assert.deepEqual(await json.json(), { a: 1 })
  })

  it('checks the status like Response does', () => {
    assert.throws(() => new LightResponse(null, { status: 99 }), RangeError)
    assert.throws(() => new LightResponse('x', { status: 204 }), TypeError)
    assert.equal(new LightResponse(null, { status: 204 }).body, null)
  })

  it('takes another response as init (Hono answers HEAD that way)', () => {
    const get = new LightResponse('body', { status: 202, headers: { etag: '"1"' } })
    const head = new LightResponse(null, get)
    assert.equal(head.status, 202)
    assert.equal(head.headers.get('etag'), '"1"')
    assert.equal(head.body, null)
  })

  it('clones a streamed body', async () => {
    const res = new LightResponse(
      new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode('abc'))
          c.close()
        },
      }),
    )
    const copy = res.clone()
    assert.equal(await copy.text(), 'abc')
    assert.equal(await res.text(), 'abc')
  })

  it('counts Node’s own responses as responses', () => {
    assert.ok(new LightResponse() instanceof LightResponse)
    assert.ok(new Response('x') instanceof LightResponse)
    assert.ok(!({ status: 200 } instanceof LightResponse))
  })
})

describe('requestListener', () => {
  let server: Server
  let port = 0
  let cancelled: () => void = () => {}
  const sourceCancelled = () =>
    new Promise<void>((resolve) => {
      cancelled = resolve
    })

  before(async () => {
    server = (await import('node:http')).createServer(
      requestListener(async (req) => {
        const path = new URL(req.url).pathname
        if (path === '/stream') {
          let n = 0
          const body = new ReadableStream<Uint8Array>({
            pull(c) {
              c.enqueue(new TextEncoder().encode(`${n++}\n`))
            },
            cancel() {
              cancelled()
            },
          })
          return new LightResponse(body, { headers: { 'content-type': 'text/plain' } }) as unknown as Response
        }
        if (path === '/refuse') return new LightResponse('too large', { status: 413 }) as unknown as Response
        if (path === '/refuse-close')
          return new LightResponse('too large', {
            status: 413,
            headers: { connection: 'close' },
          }) as unknown as Response
        return new LightResponse(`${req.method} ${path}`) as unknown as Response
      }),
    )
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })
  after(() => {
    server.closeAllConnections()
    server.close()
  })

  const send = (method: string, path: string) =>
    new Promise<{ res: IncomingMessage; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method, path, agent: false }, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (d) => {
          body += d
        })
        res.on('end', () => resolve({ res, body }))
      })
      req.on('error', reject)
      req.end()
    })

  it('answers with a Content-Length, and HEAD without a body', async () => {
    const get = await send('GET', '/x')
    assert.equal(get.body, 'GET /x')
    assert.equal(get.res.headers['content-length'], '6')
    const head = await send('HEAD', '/x')
    assert.equal(head.body, '')
  })

  it('streams as the client reads and cancels the source when the client goes away', async () => {
    const gone = sourceCancelled()
    await new Promise<void>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/stream', agent: false }, (res) => {
        res.once('data', () => {
          req.destroy()
          resolve()
        })
      })
      req.on('error', () => {})
      req.on('close', () => resolve())
      setTimeout(() => reject(new Error('no data')), 2000).unref()
      req.end()
    })
    await gone
  })

  /** Sends a large upload to `path` and resolves with the answer's status and Connection. */
  const refusedUpload = (path: string) =>
    new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const total = 80 * 1024 * 1024
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'PUT',
          path,
          agent: false,
          headers: { 'content-length': String(total) },
        },
        (res) => {
          res.resume()
          resolve({ status: res.statusCode ?? 0, connection: res.headers.connection })
          req.destroy()
        },
      )
      req.on('error', reject)
      const chunk = Buffer.alloc(64 * 1024)
      let sent = 0
      const pump = () => {
        while (!req.destroyed && sent < total) {
          sent += chunk.length
          if (!req.write(chunk)) return void req.once('drain', pump)
        }
      }
      pump()
    })

  it('answers "close" to an upload it refuses early, and every client reads the answer', async () => {
    // Each connection is closed in stages, never reset with the upload unread.
    for (let i = 0; i < 5; i++)
      assert.deepEqual(await refusedUpload('/refuse-close'), { status: 413, connection: 'close' })
  })

  it('relies on Node marking a response that says Connection: close as last (its _last)', () => {
    // closeInStages clears that mark; if Node renames or drops it, the refusal above may be reset.
    const res = new ServerResponse({
      method: 'PUT',
      httpVersionMajor: 1,
      httpVersionMinor: 1,
    } as IncomingMessage)
    res.writeHead(413, { connection: 'close' })
    assert.equal((res as ServerResponse & { _last?: boolean })._last, true)
  })

  it('answers an upload it refuses early, and the client reads the answer', async () => {
    assert.equal((await refusedUpload('/refuse')).status, 413)
  })
})
