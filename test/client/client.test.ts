// The typed client: finds a daemon through its home and turns every failure into a typed
// error (ProblemError with code and status, NoDaemonError, ProtocolError).
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import {
  endpointOfHome,
  HearthClient,
  NoDaemonError,
  ProblemError,
  ProtocolError,
} from '../../src/client/client.ts'
import { startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'

const OTHER_INSTANCE = '01900000-0000-7000-8000-000000000000'

describe('HearthClient against a daemon', () => {
  let d: TestDaemon
  before(async () => {
    d = await startDaemon()
  })
  after(async () => {
    await d.stop()
  })

  it('reads the endpoint of a home', async () => {
    const client = HearthClient.fromHome(d.home)
    assert.deepEqual(client.endpoint, { url: d.url, token: d.token, home: d.home })
    const { status, body } = await client.call('server.get')
    assert.equal(status, 200)
    assert.equal(body.protocol, 3)
  })

  it('turns a 409 problem into a ProblemError with code and status', async () => {
    const err = await d.client.call('server.shutdown', { body: { instance_id: OTHER_INSTANCE } }).then(
      () => assert.fail('expected a problem'),
      (e: unknown) => e,
    )
    assert.ok(err instanceof ProblemError)
    assert.equal(err.status, 409)
    assert.equal(err.code, 'instance_mismatch')
    assert.equal(err.problem.type, 'https://hearth.dev/problems/instance_mismatch')
    assert.match(err.message, /^instance_mismatch: /)
    assert.equal((await d.client.call('server.get')).body.state, 'ready')
  })

  it('turns a wrong token into ProblemError unauthorized (401)', async () => {
    const client = new HearthClient({ url: d.url, token: 'A'.repeat(43) })
    await assert.rejects(client.call('server.get'), (e: unknown) => {
      assert.ok(e instanceof ProblemError)
      assert.equal(e.status, 401)
      assert.equal(e.code, 'unauthorized')
      return true
    })
  })
})

describe('HearthClient without a daemon', () => {
  it('throws NoDaemonError for a home with no daemon.json, saying how to start one', () => {
    const home = tempHome()
    assert.throws(
      () => endpointOfHome(home),
      (e: unknown) => e instanceof NoDaemonError && e.message.includes(`hearth daemon --home ${home}`),
    )
  })

  it('throws NoDaemonError for a daemon.json without a URL', () => {
    const home = tempHome()
    writeFileSync(join(home, 'daemon.json'), '{}')
    writeFileSync(join(home, 'token'), 'x')
    assert.throws(() => endpointOfHome(home), NoDaemonError)
  })

  it('throws NoDaemonError when nothing listens at the URL', async () => {
    const home = tempHome()
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as { port: number }).port
    await new Promise((resolve) => closed.close(resolve))
    writeFileSync(join(home, 'daemon.json'), JSON.stringify({ url: `http://127.0.0.1:${port}` }))
    writeFileSync(join(home, 'token'), 'x')
    await assert.rejects(HearthClient.fromHome(home).call('server.get'), (e: unknown) => {
      assert.ok(e instanceof NoDaemonError)
      assert.match(e.message, /does not answer \(ECONNREFUSED\)/)
      assert.ok(e.message.includes(`hearth daemon --home ${home}`))
      return true
    })
  })

  it('throws ProtocolError for an answer that is not a problem', async () => {
    const bodies = ['<html>bad gateway</html>', '{"error":"nope"}']
    let i = 0
    const peer = createServer((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' }).end(bodies[i++])
    })
    await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve))
    const client = new HearthClient({
      url: `http://127.0.0.1:${(peer.address() as { port: number }).port}`,
      token: 't',
    })
    try {
      for (const _ of bodies) {
        await assert.rejects(client.call('server.get'), (e: unknown) => {
          assert.ok(e instanceof ProtocolError)
          assert.equal(e.status, 502)
          return true
        })
      }
    } finally {
      peer.close()
    }
  })
})
