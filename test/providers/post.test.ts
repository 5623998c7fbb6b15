// The step's POST over node:http (src/providers/shared/post.ts) answers as fetch would:
// against loopback servers, the status, headers and streamed body come back as a Response,
// connections are kept between requests, redirects are followed, and an unreachable host or
// an abort rejects.
import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { postRequest } from '../../src/providers/shared/post.ts'

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void

async function serve(handler: Handler): Promise<{ server: Server; url: string; connections: () => number }> {
  let connections = 0
  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (c) => {
      body += c
    })
    req.on('end', () => handler(req, body, res))
  })
  server.on('connection', () => connections++)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as AddressInfo
  return { server, url: `http://127.0.0.1:${port}`, connections: () => connections }
}

describe('the step POST over node:http', () => {
  let upstream: Awaited<ReturnType<typeof serve>>
  const seen: { url: string; body: string; type: string | undefined; length: string | undefined }[] = []

  before(async () => {
    upstream = await serve((req, body, res) => {
      seen.push({
        url: req.url ?? '',
        body,
        type: req.headers['content-type'],
        length: req.headers['content-length'],
      })
      if (req.url === '/moved') {
        res.writeHead(307, { location: '/v1/responses' })
        res.end()
        return
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'r1' })
      res.write('data: one\n\n')
      setTimeout(() => res.end('data: two\n\n'), 5)
    })
  })
  after(() => {
    upstream.server.close()
  })

  const post = (path: string, init: { signal?: AbortSignal } = {}) =>
    postRequest(`${upstream.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"input":"héllo"}',
      ...init,
    })

  it('sends the body and answers the status, headers and streamed body', async () => {
    const res = await post('/v1/responses')
    assert.equal(res.status, 200)
    assert.equal(res.headers.get('x-request-id'), 'r1')
    assert.equal(await res.text(), 'data: one\n\ndata: two\n\n')
    const last = seen.at(-1)
    assert.equal(last?.body, '{"input":"héllo"}')
    assert.equal(last?.type, 'application/json')
    assert.equal(last?.length, String(Buffer.byteLength('{"input":"héllo"}')))
  })

  it('keeps the connection for the next request', async () => {
    const before = upstream.connections()
    for (let i = 0; i < 3; i++) await (await post('/v1/responses')).text()
    assert.ok(upstream.connections() - before <= 1, `${upstream.connections() - before} connections`)
  })

  it('follows a redirect, as fetch does', async () => {
    const res = await post('/moved')
    assert.equal(res.status, 200)
    assert.equal(await res.text(), 'data: one\n\ndata: two\n\n')
    assert.deepEqual(
      seen.slice(-2).map((s) => [s.url, s.body]),
      [
        ['/moved', '{"input":"héllo"}'],
        ['/v1/responses', '{"input":"héllo"}'],
      ],
    )
  })

  it('rejects when the host cannot be reached, and on an abort', async () => {
    const closed = await serve(() => {})
    const { url } = closed
    await new Promise<void>((r) => closed.server.close(() => r()))
    await assert.rejects(postRequest(`${url}/v1`, { method: 'POST', body: '{}' }), /ECONNREFUSED/)
    const abort = new AbortController()
    const pending = post('/v1/responses', { signal: abort.signal })
    abort.abort()
    await assert.rejects(pending, { name: 'AbortError' })
  })
})
