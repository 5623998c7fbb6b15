// The kernel's side of a signed-in server (src/kernel/mcp/auth.ts) against a real HTTP
// endpoint that takes only the tokens the test says, with the daemon's answers played by
// the test (each ask recorded) and the clock injected: a token is asked once and kept; one
// that expires within 60 s is asked again before the next request; a 401 asks again naming
// the refused token and sends the request once more; refused still, or with no token, the
// server needs a sign-in; requests waiting meanwhile share one ask.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, beforeEach, describe, it } from 'node:test'
import { ServerAuth } from '../../src/kernel/mcp/auth.ts'
import type { McpAccessToken } from '../../src/mcp/types.ts'

describe('the kernel asks for a signed-in server’s token', () => {
  let http: Server
  let url: string
  const accepted = new Set<string>()
  const received: string[] = []
  before(async () => {
    http = createServer((req, res) => {
      const auth = req.headers.authorization ?? ''
      received.push(auth)
      const ok = auth.startsWith('Bearer ') && accepted.has(auth.slice(7))
      res.writeHead(ok ? 200 : 401).end(ok ? 'ok' : 'no')
    })
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`
  })
  after(() => new Promise<void>((resolve) => http.close(() => resolve())))
  beforeEach(() => {
    accepted.clear()
    received.length = 0
  })

  /** The daemon as the test plays it: hands out `tokens` in order, recording each ask. */
  function daemon(tokens: (McpAccessToken | null)[]) {
    const asks: (string | undefined)[] = []
    return {
      asks,
      ask: async (rejected?: string) => {
        asks.push(rejected)
        return tokens.shift() ?? null
      },
    }
  }

  it('a token far from expiry is asked once and sent with every request', async () => {
    let now = 1_000_000
    const d = daemon([{ access_token: 'tok-a', expires_at: now + 3_600_000 }])
    accepted.add('tok-a')
    const auth = new ServerAuth(d.ask, () => now)
    for (let i = 0; i < 3; i++) assert.equal((await auth.fetch(url, { method: 'POST' })).status, 200)
    now += 60_000
    assert.equal((await auth.fetch(url)).status, 200)
    assert.deepEqual(d.asks, [undefined])
    assert.deepEqual(received, Array(4).fill('Bearer tok-a'))
    assert.equal(auth.signInRequired, false)
  })

  it('a token that expires within 60 s is asked for again before the request', async () => {
    let now = 1_000_000
    const d = daemon([
      { access_token: 'tok-a', expires_at: now + 90_000 },
      { access_token: 'tok-b', expires_at: now + 3_600_000 },
    ])
    accepted.add('tok-a').add('tok-b')
    const auth = new ServerAuth(d.ask, () => now)
    await auth.fetch(url)
    now += 31_000
    await auth.fetch(url)
    assert.deepEqual(d.asks, [undefined, undefined])
    assert.deepEqual(received, ['Bearer tok-a', 'Bearer tok-b'])
    assert.deepEqual(auth.seen, ['tok-a', 'tok-b'], 'both are scrubbed from messages')
  })

  it('a refused token is asked again naming it and the request sent once more', async () => {
    const d = daemon([
      { access_token: 'tok-old', expires_at: null },
      { access_token: 'tok-new', expires_at: null },
    ])
    accepted.add('tok-new')
    const auth = new ServerAuth(d.ask)
    const res = await auth.fetch(url, { method: 'POST', body: '{"jsonrpc":"2.0"}' })
    assert.equal(res.status, 200)
    assert.equal(await res.text(), 'ok')
    assert.deepEqual(d.asks, [undefined, 'tok-old'])
    assert.deepEqual(received, ['Bearer tok-old', 'Bearer tok-new'])
    assert.equal(auth.signInRequired, false)
  })

  it('refused again with the new token, or no token to be had: it needs a sign-in', async () => {
    const twice = daemon([
      { access_token: 'tok-1', expires_at: null },
      { access_token: 'tok-2', expires_at: null },
    ])
    const auth = new ServerAuth(twice.ask)
    assert.equal((await auth.fetch(url)).status, 401)
    assert.deepEqual(twice.asks, [undefined, 'tok-1'], 'asked again once, not a third time')
    assert.deepEqual(received, ['Bearer tok-1', 'Bearer tok-2'])
    assert.equal(auth.signInRequired, true)

    received.length = 0
    const none = daemon([{ access_token: 'tok-3', expires_at: null }, null])
    const dropped = new ServerAuth(none.ask)
    assert.equal((await dropped.fetch(url)).status, 401)
    assert.deepEqual(none.asks, [undefined, 'tok-3'])
    assert.deepEqual(received, ['Bearer tok-3'], 'not sent again without a new token')
    assert.equal(dropped.signInRequired, true)
  })

  it('a server without a sign-in is asked nothing; its 401 says it needs one', async () => {
    const auth = new ServerAuth(null)
    assert.equal((await auth.fetch(url)).status, 401)
    assert.deepEqual(received, [''])
    assert.equal(auth.signInRequired, true)
  })

  it('requests that need a token at once share one ask', async () => {
    const d = daemon([{ access_token: 'tok-a', expires_at: null }])
    accepted.add('tok-a')
    const auth = new ServerAuth(d.ask)
    const all = await Promise.all([auth.fetch(url), auth.fetch(url), auth.fetch(url)])
    assert.deepEqual(
      all.map((r) => r.status),
      [200, 200, 200],
    )
    assert.deepEqual(d.asks, [undefined])
  })
})
