// The Cloud Code Assist hosts a turn tries: daily, autopush, production, moving on at once
// when a host cannot be reached or answers 404 or 5xx, never on a refused token, a
// permission or a limit (the account's, the same on every host). Over real sockets: a
// closed port refuses, a small server answers what a failing host answers, and the fake
// backend answers the turn.
import { deepStrictEqual, strictEqual } from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, beforeEach, describe, test } from 'node:test'
import { CLOUD_CODE_HOSTS } from '../../../src/providers/antigravity/constants.ts'
import { antigravityBases } from '../../../src/providers/antigravity/hosts.ts'
import { antigravity } from '../../../src/providers/antigravity/transport.ts'
import type { NeutralEvent, NeutralRequest, TransportProfile } from '../../../src/providers/types.ts'
import { FakeAntigravityBackend } from '../../fakes/antigravity-backend.ts'
import { collect } from '../openai-compatible/helpers.ts'
import { closedPort } from './helpers.ts'

let fake: FakeAntigravityBackend
let failing: Server
let failingUrl: string
/** What the failing host answers next: a status and Google's error status. */
let answer = { status: 503, error: 'UNAVAILABLE' }
let failingHits = 0
let access: string

before(async () => {
  fake = await FakeAntigravityBackend.start()
  failing = createServer((req, res) => {
    failingHits++
    req.resume()
    req.on('end', () => {
      res.writeHead(answer.status, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          error: { code: answer.status, message: 'from the failing host', status: answer.error },
        }),
      )
    })
  })
  await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve))
  failingUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`
})
after(async () => {
  await fake.close()
  failing.close()
})
beforeEach(() => {
  fake.requests.length = 0
  failingHits = 0
  access = fake.issue({ email: 'ada@example.com', project: 'proj-ada' }).access_token
})

const request: NeutralRequest = {
  model: 'gemini-2.5-flash',
  effort: null,
  system: null,
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  tools: [],
  session_id: 'ses_hosts',
}

const profile = (): TransportProfile => ({
  endpoint: '',
  protocol: 'chat_completions',
  model: 'gemini-2.5-flash',
  api_key: access,
  project: 'proj-ada',
  headers: { 'user-agent': 'antigravity/hub/1.2.3' },
})

/** One turn with HEARTH_ANTIGRAVITY_BASE_URLS naming these bases. */
async function turnOver(bases: string[]): Promise<NeutralEvent[]> {
  const saved = process.env.HEARTH_ANTIGRAVITY_BASE_URLS
  process.env.HEARTH_ANTIGRAVITY_BASE_URLS = bases.join(',')
  try {
    const opts = { signal: AbortSignal.timeout(10_000), retryDelayMs: () => 1, idleTimeoutMs: 5000 }
    return await collect(antigravity.stream(profile(), request, opts))
  } finally {
    if (saved === undefined) delete process.env.HEARTH_ANTIGRAVITY_BASE_URLS
    else process.env.HEARTH_ANTIGRAVITY_BASE_URLS = saved
  }
}

const generations = () => fake.requests.filter((r) => r.path.startsWith('/v1internal:streamGenerateContent'))
const last = (events: NeutralEvent[]) => events.at(-1) as Extract<NeutralEvent, { type: 'error' }>

describe('antigravity hosts', () => {
  test('the order: daily, autopush, production; a named endpoint or the list hook', () => {
    deepStrictEqual(antigravityBases('', {}), [
      'https://daily-cloudcode-pa.sandbox.googleapis.com',
      'https://autopush-cloudcode-pa.sandbox.googleapis.com',
      'https://cloudcode-pa.googleapis.com',
    ])
    deepStrictEqual(antigravityBases('', {}), [...CLOUD_CODE_HOSTS])
    deepStrictEqual(
      antigravityBases('http://127.0.0.1:9', { HEARTH_ANTIGRAVITY_BASE_URLS: 'http://a, http://b' }),
      ['http://127.0.0.1:9'],
    )
    deepStrictEqual(antigravityBases('', { HEARTH_ANTIGRAVITY_BASE_URLS: 'http://a, http://b,' }), [
      'http://a',
      'http://b',
    ])
  })

  test('a host that refuses the connection: the next one answers the turn', async () => {
    const events = await turnOver([await closedPort(), fake.url])
    deepStrictEqual(last(events), { type: 'done', stop_reason: 'stop' })
    strictEqual(generations().length, 1)
  })

  test('a 503 and a 404 move on at once, without retrying that host', async () => {
    answer = { status: 503, error: 'UNAVAILABLE' }
    const unavailable = await turnOver([failingUrl, fake.url])
    deepStrictEqual(last(unavailable), { type: 'done', stop_reason: 'stop' })
    strictEqual(failingHits, 1)
    answer = { status: 404, error: 'NOT_FOUND' }
    const missing = await turnOver([failingUrl, await closedPort(), fake.url])
    deepStrictEqual(last(missing), { type: 'done', stop_reason: 'stop' })
    strictEqual(failingHits, 2)
  })

  test('a refused token, a permission or a limit ends the turn on that host', async () => {
    for (const [status, error, code] of [
      [401, 'UNAUTHENTICATED', 'upstream_unauthorized'],
      [403, 'PERMISSION_DENIED', 'upstream_unauthorized'],
      [429, 'RESOURCE_EXHAUSTED', 'upstream_rate_limited'],
    ] as const) {
      answer = { status, error }
      failingHits = 0
      const events = await turnOver([failingUrl, fake.url])
      strictEqual(last(events).code, code, `${status}`)
      strictEqual(generations().length, 0, `${status}: the next host was not asked`)
    }
  })

  test('every host failing: the last one gets the usual retries, its error ends the turn', async () => {
    answer = { status: 500, error: 'INTERNAL' }
    const events = await turnOver([await closedPort(), failingUrl])
    strictEqual(last(events).code, 'upstream_unavailable')
    strictEqual(failingHits, 4)
  })
})
