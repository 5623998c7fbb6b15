// The HTTP core against a real daemon: routing problems, negotiation, request and response
// coding, and continuations over the wire. Per-op bad input lives in hostile.test.ts.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import zlib from 'node:zlib'
import { startDaemon, type TestDaemon } from '../helpers/daemon.ts'
import { assertProblem, send } from './hostile.ts'

describe('HTTP core', () => {
  let d: TestDaemon
  let instanceId: string
  before(async () => {
    d = await startDaemon()
    instanceId = (await d.request({ path: '/server' })).json().instance_id
  })
  after(async () => {
    await d.stop()
  })

  describe('routing', () => {
    it('answers an unknown route 404 not_found', async () => {
      assertProblem(await d.request({ path: '/no/such/route' }), 404, 'not_found')
      assertProblem(await d.request({ path: '/server/' }), 404, 'not_found')
    })

    it('asks for the token before saying whether a route exists', async () => {
      assertProblem(await d.request({ path: '/no/such/route', noAuth: true }), 401, 'unauthorized')
    })

    it('answers a wrong method 405 with Allow', async () => {
      const res = await d.request({ method: 'DELETE', path: '/server' })
      assertProblem(res, 405, 'method_not_allowed')
      assert.deepEqual(String(res.headers.allow).split(/,\s*/).sort(), ['GET', 'HEAD'])
      const post = await d.request({ method: 'GET', path: '/server/shutdown' })
      assertProblem(post, 405, 'method_not_allowed')
      assert.equal(post.headers.allow, 'POST')
      assertProblem(await d.request({ method: 'OPTIONS', path: '/server' }), 405, 'method_not_allowed')
    })

    it('answers HEAD like GET without a body', async () => {
      const res = await d.request({ method: 'HEAD', path: '/server' })
      assert.equal(res.status, 200)
      assert.equal(res.body.length, 0)
      assert.equal(res.headers['content-type'], 'application/json')
    })

    it('marks problems uncacheable', async () => {
      const res = await d.request({ path: '/no/such/route' })
      assert.equal(res.headers['cache-control'], 'no-store')
    })
  })

  describe('Host and Origin', () => {
    it('admits every loopback name with the daemon port', async () => {
      for (const host of [
        `127.0.0.1:${d.port}`,
        `localhost:${d.port}`,
        `[::1]:${d.port}`,
        `LOCALHOST:${d.port}`,
      ]) {
        assert.equal((await d.request({ path: '/server', headers: { host } })).status, 200, host)
      }
    })

    it('admits loopback origins on any port and refuses others', async () => {
      for (const origin of [
        'http://localhost:5173',
        'http://127.0.0.1:1',
        'http://[::1]:8080',
        'https://localhost',
      ]) {
        assert.equal((await d.request({ path: '/server', headers: { origin } })).status, 200, origin)
      }
      for (const origin of [
        'http://evil.example',
        'http://localhost.evil.example',
        'null',
        'file://',
        'chrome-extension://x',
      ]) {
        assertProblem(
          await d.request({ path: '/server', headers: { origin } }),
          403,
          'origin_not_allowed',
          origin,
        )
      }
    })

    it('takes the bearer scheme in any case', async () => {
      const res = await d.request({ path: '/server', headers: { authorization: `bearer ${d.token}` } })
      assert.equal(res.status, 200)
    })
  })

  describe('Accept', () => {
    it('answers 406 when Accept excludes JSON', async () => {
      for (const accept of ['text/html', 'application/json;q=0', 'application/json;q=0, */*', 'image/*']) {
        assertProblem(
          await d.request({ path: '/server', headers: { accept } }),
          406,
          'not_acceptable',
          accept,
        )
      }
    })

    it('admits wildcards and lists that include JSON', async () => {
      for (const accept of [
        '*/*',
        'application/*',
        'application/json',
        'text/html, application/json;q=0.1',
        'text/html, */*;q=0.5',
      ]) {
        assert.equal((await d.request({ path: '/server', headers: { accept } })).status, 200, accept)
      }
    })
  })

  describe('request coding', () => {
    it('refuses a gzip body 415 unsupported_content_encoding', async () => {
      const res = await d.request({
        method: 'POST',
        path: '/server/shutdown',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: zlib.gzipSync(JSON.stringify({ instance_id: 'other' })),
      })
      assertProblem(res, 415, 'unsupported_content_encoding')
    })

    it('decodes a zstd body that declares its size', async () => {
      const frame = zlib.zstdCompressSync(Buffer.from(JSON.stringify({ instance_id: 'another-instance' })))
      // Node 24 writes Frame_Content_Size by default: single segment, or a non-zero FCS flag.
      const descriptor = frame[4]
      assert.ok((descriptor & 0x20) !== 0 || descriptor >> 6 !== 0, 'the frame declares its content size')
      const res = await d.request({
        method: 'POST',
        path: '/server/shutdown',
        headers: { 'content-type': 'application/json', 'content-encoding': 'zstd' },
        body: frame,
      })
      const p = assertProblem(res, 409, 'instance_mismatch')
      assert.match(String(p.detail), new RegExp(instanceId))
    })

    it('decodes a zstd body larger than one block, and applies the limit to decoded bytes', async () => {
      // 60 KiB of JSON compresses to a few hundred bytes and decodes within the 64 KiB limit.
      const body = JSON.stringify({ instance_id: 'x'.repeat(100), pad: ' '.repeat(60 * 1024) })
      const under = await d.request({
        method: 'POST',
        path: '/server/shutdown',
        headers: { 'content-type': 'application/json', 'content-encoding': 'zstd' },
        body: zlib.zstdCompressSync(Buffer.from(body)),
      })
      assertProblem(under, 400, 'unknown_field') // decoded and validated: pad is not a field
      const over = await d.request({
        method: 'POST',
        path: '/server/shutdown',
        headers: { 'content-type': 'application/json', 'content-encoding': 'zstd' },
        body: zlib.zstdCompressSync(Buffer.from(body.replace('"pad":"', `"pad":"${' '.repeat(8 * 1024)}`))),
      })
      assertProblem(over, 413, 'body_too_large')
    })

    it('reads and bounds a GET body like any other', async () => {
      assertProblem(
        await send(d, {
          method: 'GET',
          path: '/server',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        }),
        400,
        'unexpected_body',
      )
      const chunked = await send(d, {
        method: 'GET',
        path: '/server',
        flood: { bytes: 70 * 1024, declareLength: false },
      })
      assertProblem(chunked, 413, 'body_too_large')
      assert.equal((await send(d, { method: 'GET', path: '/server' })).status, 200)
    })

    it('a client gone mid-body leaves nothing behind and is not logged as an error', async () => {
      const own = await startDaemon()
      try {
        const id = '0190b6a0-0000-7000-8000-0000000000ab'
        const socket = connect(own.port, own.hostname)
        socket.on('error', () => {})
        await once(socket, 'connect')
        socket.write(
          [
            `PUT /sessions/${id} HTTP/1.1`,
            `Host: ${new URL(own.url).host}`,
            `Authorization: Bearer ${own.token}`,
            'Content-Type: application/json',
            'If-None-Match: *',
            'Content-Length: 200',
            '',
            '{"kind":"new",',
          ].join('\r\n'),
        )
        await sleep(50)
        socket.destroy()
        assert.equal((await own.request({ path: `/sessions/${id}` })).status, 404)
        assert.equal((await own.request({ path: '/server' })).status, 200)
      } finally {
        await own.stop() // a drain writes out the log
      }
      const log = readFileSync(join(own.home, 'logs', 'hearth.log'), 'utf8')
      assert.doesNotMatch(log, /unhandled error/)
    })
  })

  describe('response coding', () => {
    it('zstd-codes a large response when asked, with the same JSON and Vary: Accept-Encoding', async () => {
      const plain = await d.request({ path: '/openapi.json' })
      assert.equal(plain.status, 200)
      assert.equal(plain.headers['content-encoding'], undefined)
      assert.ok(plain.body.length >= 1024)
      for (const acceptEncoding of ['zstd', 'gzip, zstd;q=0.5', '*']) {
        const coded = await d.request({
          path: '/openapi.json',
          headers: { 'accept-encoding': acceptEncoding },
        })
        assert.equal(coded.status, 200)
        assert.equal(coded.headers['content-encoding'], 'zstd', acceptEncoding)
        assert.ok(coded.body.length < plain.body.length)
        assert.deepEqual(JSON.parse(zlib.zstdDecompressSync(coded.body).toString('utf8')), plain.json())
        assert.ok(
          /(^|,\s*)accept-encoding(\s*,|$)/i.test(String(coded.headers.vary)),
          `Vary: ${coded.headers.vary}`,
        )
      }
      assert.ok(/accept-encoding/i.test(String(plain.headers.vary)))
    })

    it('never codes a response under 1 KiB', async () => {
      const res = await d.request({ path: '/server', headers: { 'accept-encoding': 'zstd' } })
      assert.equal(res.status, 200)
      assert.ok(res.body.length < 1024)
      assert.equal(res.headers['content-encoding'], undefined)
      assert.equal(res.json().instance_id, instanceId)
      assert.ok(/accept-encoding/i.test(String(res.headers.vary)))
    })

    it('does not code when zstd is refused', async () => {
      for (const acceptEncoding of ['zstd;q=0', 'gzip, deflate, br', '*;q=0', 'identity', '*, zstd;q=0']) {
        const res = await d.request({ path: '/openapi.json', headers: { 'accept-encoding': acceptEncoding } })
        assert.equal(res.headers['content-encoding'], undefined, acceptEncoding)
        assert.equal(res.json().openapi, '3.1.0')
      }
    })
  })

  describe('continuations', () => {
    const storage = async (query: string) => {
      const res = await d.request({ path: `/storage${query}` })
      return res
    }

    it('pages the files section with files.next', async () => {
      const first = await storage('?limit=1')
      assert.equal(first.status, 200)
      const page1 = first.json().files
      assert.equal(page1.items.length, 1)
      assert.equal(typeof page1.next, 'string')
      const second = await storage(`?limit=1&files_next=${encodeURIComponent(page1.next)}`)
      assert.equal(second.status, 200)
      const page2 = second.json().files
      assert.equal(page2.items.length, 1)
      assert.ok(page2.items[0].path > page1.items[0].path, 'the next page starts after the previous one')
      // The page size may change between pages.
      const wider = await storage(`?limit=2&files_next=${encodeURIComponent(page1.next)}`)
      assert.equal(wider.status, 200)
      assert.equal(wider.json().files.items[0].path, page2.items[0].path)
      // Walking to the end visits every file once.
      const all = (await storage('?limit=200')).json().files.items.map((f: { path: string }) => f.path)
      const walked: string[] = []
      let next: string | null = null
      do {
        const q: string = next ? `?limit=1&files_next=${encodeURIComponent(next)}` : '?limit=1'
        const files: { items: { path: string }[]; next: string | null } = (await storage(q)).json().files
        walked.push(...files.items.map((f) => f.path))
        next = files.next
      } while (next && walked.length <= all.length)
      assert.deepEqual(walked, all)
    })

    it('refuses tampered and misplaced tokens 400 invalid_continuation', async () => {
      const token: string = (await storage('?limit=1')).json().files.next
      const [payload, mac] = token.split('.')
      const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1)
      const forged = Buffer.from(
        JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), k: 'zzzz' }),
      ).toString('base64url')
      const bad = [
        `${flip(payload, 3)}.${mac}`,
        `${payload}.${flip(mac, 5)}`,
        `${forged}.${mac}`,
        `${payload}.${mac}.extra`,
        payload,
        `${payload}.${'é'.repeat(mac.length)}`, // same length in characters, not in bytes
        'not-a-token',
      ]
      for (const t of bad) {
        const res = await storage(`?files_next=${encodeURIComponent(t)}`)
        assertProblem(res, 400, 'invalid_continuation', t)
      }
      // A token minted for the files section is not a sessions token.
      assertProblem(await storage(`?sessions_next=${encodeURIComponent(token)}`), 400, 'invalid_continuation')
    })
  })
})
