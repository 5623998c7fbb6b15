// Requests Node's HTTP parser refuses, and requests that stop arriving, over raw sockets:
// each gets a problem+json answer (never Node's bare text), and the connection closes.
// Slow uploads that keep progressing and long-lived event streams are not cut.
import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { v7 as uuidv7 } from 'uuid'
import { startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { PROBLEM_BASE } from './hostile.ts'

/** Low, so a stalled request times out within the test; a real daemon waits 30 s. */
const TIMEOUT_MS = 400

interface Exchange {
  /** Everything the daemon sent before it closed the connection. */
  received: string
  /** Whether the daemon closed the connection (else the wait ran out). */
  closed: boolean
}

function open(d: TestDaemon): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(d.port, d.hostname, () => resolve(s))
    s.once('error', reject)
  })
}

/** Collects what the daemon sends on `s` until it closes the connection or `waitMs` pass. */
function collect(s: Socket, waitMs: number): Promise<Exchange> {
  return new Promise((resolve) => {
    let received = ''
    s.setEncoding('latin1')
    s.on('data', (c: string) => {
      received += c
    })
    s.on('error', () => {}) // a reset after the answer still leaves the answer to check
    const timer = setTimeout(() => resolve({ received, closed: false }), waitMs)
    s.on('close', () => {
      clearTimeout(timer)
      resolve({ received, closed: true })
    })
  })
}

/** Sends raw bytes on a fresh connection; what came back before the close. */
async function exchange(d: TestDaemon, bytes: string | Buffer, waitMs = 5_000): Promise<Exchange> {
  const s = await open(d)
  const done = collect(s, waitMs)
  s.write(bytes)
  const got = await done
  s.destroy()
  return got
}

/** Asserts one problem+json answer of `status` and `code` followed by a close. */
function assertProblemAnswer(got: Exchange, status: number, code: string): void {
  assert.ok(got.closed, `the connection is closed after the answer; got ${JSON.stringify(got.received)}`)
  const [head, body] = got.received.split('\r\n\r\n', 2)
  const [statusLine, ...headerLines] = head.split('\r\n')
  assert.match(statusLine, new RegExp(`^HTTP/1\\.1 ${status} `), got.received)
  const headers = Object.fromEntries(
    headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  )
  assert.equal(headers['content-type'], 'application/problem+json', got.received)
  assert.equal(headers.connection, 'close', got.received)
  assert.equal(Number(headers['content-length']), Buffer.byteLength(body, 'latin1'), got.received)
  const p = JSON.parse(body)
  assert.equal(p.code, code)
  assert.equal(p.status, status)
  assert.equal(p.type, PROBLEM_BASE + code)
  assert.ok(p.title && p.detail, body)
}

describe('requests the HTTP parser refuses or that stop arriving', { concurrency: true }, () => {
  let d: TestDaemon
  const ws = tempHome('hearth-ws-')
  before(async () => {
    d = await startDaemon({ env: { HEARTH_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) } })
  })
  after(async () => {
    assert.equal(await d.stop(), 0)
  })

  const head = (method: string, path: string, extra = '') =>
    `${method} ${path} HTTP/1.1\r\nHost: ${new URL(d.url).host}\r\nAuthorization: Bearer ${d.token}\r\n${extra}`

  it('broken framing (Content-Length with chunked) is 400 malformed_request', async () => {
    const got = await exchange(
      d,
      `${head('POST', '/server/shutdown', 'Content-Length: 5\r\nTransfer-Encoding: chunked\r\n')}\r\n0\r\n\r\n`,
    )
    assertProblemAnswer(got, 400, 'malformed_request')
  })

  it('a control byte in a header value is 400 malformed_request', async () => {
    const got = await exchange(d, `${head('GET', '/server', 'X-Odd: a\x01b\r\n')}\r\n`)
    assertProblemAnswer(got, 400, 'malformed_request')
  })

  it('a bad chunk size is 400 malformed_request', async () => {
    const got = await exchange(
      d,
      `${head('PUT', `/sessions/${uuidv7()}`, 'Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n')}\r\nzz\r\n{}\r\n0\r\n\r\n`,
    )
    assertProblemAnswer(got, 400, 'malformed_request')
  })

  it('headers past the limit are 431 headers_too_large', async () => {
    const got = await exchange(d, `${head('GET', '/server', `X-Big: ${'a'.repeat(64 * 1024)}\r\n`)}\r\n`)
    assertProblemAnswer(got, 431, 'headers_too_large')
  })

  it('headers that never finish are 408 request_timeout', async () => {
    const got = await exchange(d, `GET /server HTTP/1.1\r\nHost: ${new URL(d.url).host}\r\n`)
    assertProblemAnswer(got, 408, 'request_timeout')
  })

  it('a body that stops arriving is 408 request_timeout, and the connection closes', async () => {
    const body = JSON.stringify({ kind: 'new', workspace: ws })
    const got = await exchange(
      d,
      `${head('PUT', `/sessions/${uuidv7()}`, `Content-Type: application/json\r\nIf-None-Match: *\r\nContent-Length: ${body.length + 50}\r\n`)}\r\n${body}`,
    )
    assertProblemAnswer(got, 408, 'request_timeout')
  })

  it('a declared length over the limit is 413 body_too_large before the body, and the connection closes', async () => {
    // The body is refused unread: the bytes that follow would otherwise be taken for the
    // next request, so the connection cannot carry another one.
    const got = await exchange(
      d,
      `${head('PUT', `/sessions/${uuidv7()}`, `Content-Type: application/json\r\nIf-None-Match: *\r\nContent-Length: ${100 * 1024 * 1024}\r\n`)}\r\n{"kind":`,
    )
    assertProblemAnswer(got, 413, 'body_too_large')
  })

  it('a slow upload that keeps progressing is served, however long it takes in all', async () => {
    const id = uuidv7()
    const body = JSON.stringify({ kind: 'new', workspace: ws, name: 'slow' })
    const s = await open(d)
    const done = collect(s, 15_000)
    s.write(
      `${head('PUT', `/sessions/${id}`, `Content-Type: application/json\r\nIf-None-Match: *\r\nContent-Length: ${body.length}\r\nConnection: close\r\n`)}\r\n`,
    )
    // Four timeouts in all, never a pause as long as one.
    const steps = 8
    const size = Math.ceil(body.length / steps)
    for (let i = 0; i < steps; i++) {
      await sleep(TIMEOUT_MS / 2)
      s.write(body.slice(i * size, (i + 1) * size))
    }
    const got = await done
    s.destroy()
    assert.match(got.received, /^HTTP\/1\.1 201 /, got.received)
    const read = await d.request({ path: `/sessions/${id}` })
    assert.equal(read.status, 200)
    assert.equal(read.json().name, 'slow')
  })

  it('an event stream stays open past the request timeout', async () => {
    const s = await open(d)
    const got = collect(s, TIMEOUT_MS * 5)
    s.write(`${head('GET', '/sessions', 'Accept: text/event-stream\r\n')}\r\n`)
    const { received, closed } = await got
    s.destroy()
    assert.match(received, /^HTTP\/1\.1 200 /, received)
    assert.equal(closed, false, 'the stream is still open')
  })
})
