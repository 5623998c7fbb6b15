// hearth's node:http adapter (src/http/node-adapter.ts) against @hono/node-server, the
// adapter it stands in for: the same app (test/http/adapter-app.ts: buildApp with its guards,
// op runner, problem+json, zstd and SSE) is served through each, in a process of its own, and
// every case is sent to both. What a client receives must be the same: the status, the
// headers that carry meaning, and the body's bytes (a zstd body decoded, since the coded bytes
// may be cut into frames differently). A client that goes away must end the app's work
// under both.
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { request } from 'node:http'
import { connect } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { zstdDecompressSync } from 'node:zlib'

const APP = join(import.meta.dirname, 'adapter-app.ts')
const TOKEN = 'adapter-parity-token'

/** Headers a client acts on; the rest (date, keep-alive) differ by the moment or the connection. */
const MEANINGFUL = [
  'content-type',
  'content-encoding',
  'content-length',
  'cache-control',
  'vary',
  'etag',
  'location',
  'allow',
  'www-authenticate',
  'x-accel-buffering',
]

interface Served {
  child: ChildProcess
  port: number
}

async function start(adapter: 'hearth' | 'node-server'): Promise<Served> {
  const child = spawn(process.execPath, [APP, adapter, TOKEN], { stdio: ['ignore', 'pipe', 'inherit'] })
  const port = await new Promise<number>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (b: Buffer) => {
      out += b
      if (out.includes('\n')) resolve(Number(out.trim()))
    })
    child.once('exit', (code) => reject(new Error(`the ${adapter} server exited (${code})`)))
  })
  return { child, port }
}

interface Case {
  method?: string
  path: string
  headers?: Record<string, string>
  body?: string | Buffer
}

interface Received {
  status: number
  headers: Record<string, string | undefined>
  /** Chunked or not: whether the length was known up front is part of what a client sees. */
  chunked: boolean
  body: string
}

function send(port: number, c: Case): Promise<Received> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: c.method ?? 'GET',
        path: c.path,
        agent: false,
        headers: { host: `127.0.0.1:${port}`, authorization: `Bearer ${TOKEN}`, ...c.headers },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (b: Buffer) => chunks.push(b))
        res.on('end', () => {
          const raw = Buffer.concat(chunks)
          const coded = res.headers['content-encoding'] === 'zstd' && raw.length > 0
          const headers: Record<string, string | undefined> = {}
          for (const name of MEANINGFUL) {
            const v = res.headers[name]
            headers[name] = Array.isArray(v) ? v.join(', ') : v
          }
          // A coded body's length is the length of its coding, which the case does not fix.
          if (coded) headers['content-length'] = headers['content-length'] === undefined ? undefined : 'coded'
          resolve({
            status: res.statusCode!,
            headers,
            chunked: res.headers['transfer-encoding'] === 'chunked',
            body: (coded ? zstdDecompressSync(raw) : raw).toString('utf8'),
          })
        })
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(c.body)
  })
}

const json = (v: unknown) => JSON.stringify(v)

/** Each case with the status both must answer (so a case cannot pass by failing alike). */
const CASES: Record<string, Case & { status: number }> = {
  JSON: { status: 200, path: '/things/small' },
  'JSON, zstd admitted but under 1 KiB': {
    status: 200,
    path: '/things/small',
    headers: { 'accept-encoding': 'zstd' },
  },
  'JSON past 1 KiB, zstd': { status: 200, path: '/things/big', headers: { 'accept-encoding': 'zstd, gzip' } },
  'JSON past 1 KiB, gzip only (hearth codes zstd only)': {
    status: 200,
    path: '/things/big',
    headers: { 'accept-encoding': 'gzip' },
  },
  'HEAD of a JSON resource': { status: 200, method: 'HEAD', path: '/things/small' },
  'HEAD of a zstd-coded resource': {
    status: 200,
    method: 'HEAD',
    path: '/things/big',
    headers: { 'accept-encoding': 'zstd' },
  },
  'a created resource (201, Location)': {
    status: 201,
    method: 'PUT',
    path: '/things/new',
    headers: { 'content-type': 'application/json' },
    body: json({ words: ['a', 'b'] }),
  },
  'no content (204)': { status: 204, method: 'DELETE', path: '/things/old' },
  'problem: no token (401)': {
    status: 401,
    path: '/things/small',
    headers: { authorization: 'Bearer wrong' },
  },
  'problem: no route (404)': { status: 404, path: '/nothing/here' },
  'problem: method not allowed (405, Allow)': { status: 405, method: 'POST', path: '/things/small' },
  'problem: not acceptable (406)': { status: 406, path: '/things/small', headers: { accept: 'image/png' } },
  'problem: invalid path parameter (400)': { status: 400, path: '/things/NOT_LOWER' },
  'problem: malformed JSON (400)': {
    status: 400,
    method: 'PUT',
    path: '/things/x',
    headers: { 'content-type': 'application/json' },
    body: '{"words": [',
  },
  'problem: wrong media type (415)': {
    status: 415,
    method: 'PUT',
    path: '/things/x',
    headers: { 'content-type': 'text/plain' },
    body: json({ words: [] }),
  },
  'problem: body over the limit, declared (413)': {
    status: 413,
    method: 'PUT',
    path: '/things/x',
    headers: { 'content-type': 'application/json' },
    body: json({ words: Array.from({ length: 1000 }, () => 'word') }),
  },
  'problem: body over the limit, chunked (413)': {
    status: 413,
    method: 'PUT',
    path: '/things/x',
    headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    body: json({ words: Array.from({ length: 1000 }, () => 'word') }),
  },
  'SSE stream to its end': { status: 200, path: '/things/s', headers: { accept: 'text/event-stream' } },
  'SSE stream, zstd': {
    status: 200,
    path: '/things/s',
    headers: { accept: 'text/event-stream', 'accept-encoding': 'zstd' },
  },
}

/** Opens the held stream, reads its first frame, goes away; resolves with what the app logged. */
async function abortStream(port: number): Promise<string[]> {
  const socket = connect(port, '127.0.0.1')
  socket.write(
    `GET /things/held HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: Bearer ${TOKEN}\r\n` +
      'accept: text/event-stream\r\n\r\n',
  )
  let seen = ''
  await new Promise<void>((resolve) => {
    socket.on('data', (b: Buffer) => {
      seen += b
      if (seen.includes('event: item')) resolve()
    })
  })
  socket.destroy()
  const deadline = Date.now() + 5_000
  for (;;) {
    const { log } = JSON.parse((await send(port, { path: '/log' })).body) as { log: string[] }
    if (log.includes('held stream closed') || Date.now() > deadline) return log
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** Sends headers and part of a body, then goes away; resolves with the server's next answer. */
async function abortUpload(port: number): Promise<Received> {
  const socket = connect(port, '127.0.0.1')
  socket.write(
    `PUT /things/cut HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: Bearer ${TOKEN}\r\n` +
      'content-type: application/json\r\ncontent-length: 100\r\n\r\n{"words": [',
  )
  await new Promise((r) => setTimeout(r, 50))
  socket.destroy()
  await new Promise((r) => setTimeout(r, 50))
  // The server is still there and answers the next client.
  return send(port, { path: '/things/after' })
}

describe("hearth's node:http adapter answers as @hono/node-server does", () => {
  let hearth: Served
  let nodeServer: Served
  before(async () => {
    ;[hearth, nodeServer] = await Promise.all([start('hearth'), start('node-server')])
  })
  after(() => {
    hearth?.child.kill()
    nodeServer?.child.kill()
  })

  for (const [name, c] of Object.entries(CASES)) {
    it(name, async () => {
      const [ours, theirs] = await Promise.all([send(hearth.port, c), send(nodeServer.port, c)])
      assert.deepEqual(ours, theirs)
      assert.equal(ours.status, c.status, ours.body)
    })
  }

  it('a client that leaves a stream ends it in the app', async () => {
    const [ours, theirs] = await Promise.all([abortStream(hearth.port), abortStream(nodeServer.port)])
    assert.deepEqual(ours, theirs)
    assert.ok(ours.includes('held stream closed'), ours.join(', '))
  })

  it('a client that leaves during its upload leaves the server answering', async () => {
    const [ours, theirs] = await Promise.all([abortUpload(hearth.port), abortUpload(nodeServer.port)])
    assert.deepEqual(ours, theirs)
    assert.equal(ours.status, 200)
  })
})
