// stream() against the fake upstream over a real socket, for every failure mode.
import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict'
import { afterEach, beforeEach, describe, test } from 'node:test'
import { openaiCompatible } from '../../../src/providers/openai-compatible/transport.ts'
import { defaultRetryDelayMs, retryAfter } from '../../../src/providers/shared/http.ts'
import type { NeutralEvent, StreamOptions, TransportProfile } from '../../../src/providers/types.ts'
import { FakeOpenAIUpstream } from '../../fakes/openai-upstream.ts'
import { collect, request, text, usage } from './helpers.ts'

const KEY = 'sk-test-secret-0123456789'
let fake: FakeOpenAIUpstream

beforeEach(async () => {
  fake = await FakeOpenAIUpstream.start()
})
afterEach(async () => {
  await fake.close()
})

const profile = (protocol: TransportProfile['protocol'] = 'responses'): TransportProfile => ({
  endpoint: fake.url,
  protocol,
  model: 'gpt-test',
  api_key: KEY,
})

/** Runs one turn; records the retry delays asked for. */
async function turn(opts: Partial<StreamOptions> = {}, p: TransportProfile = profile()) {
  const delays: [number, number | null][] = []
  const options: StreamOptions = {
    signal: new AbortController().signal,
    idleTimeoutMs: 2000,
    retryDelayMs: (attempt, after) => {
      delays.push([attempt, after])
      return 1
    },
    ...opts,
  }
  const started = Date.now()
  const events = await collect(openaiCompatible.stream(p, request(), options))
  return { events, delays, ms: Date.now() - started }
}

function error(code: string, message: string, status: number | null = null): NeutralEvent {
  return { type: 'error', code, message, status } as NeutralEvent
}

const HELLO: NeutralEvent[] = [
  { type: 'start' },
  text(0, 'Hello'),
  text(0, ', '),
  text(0, 'world'),
  text(0, '!'),
  {
    type: 'usage',
    usage: {
      prompt_tokens: 12,
      cached_prompt_tokens: 2,
      cache_write_tokens: null,
      completion_tokens: 4,
      total_tokens: 16,
    },
  },
  { type: 'done', stop_reason: 'stop' },
]

describe('status mapping and retries', () => {
  test('401 and 403 are upstream_unauthorized, not retried, and never echo the key', async () => {
    for (const status of [401, 403]) {
      fake.failTimes(1, status, { message: `Incorrect API key provided: ${KEY}.` })
      const { events, delays } = await turn()
      deepStrictEqual(events, [
        error('upstream_unauthorized', `HTTP ${status}: Incorrect API key provided: [redacted].`, status),
      ])
      deepStrictEqual(delays, [])
    }
    strictEqual(fake.requests.length, 2)
  })

  test('429 with Retry-After is retried (honouring it) until it succeeds', async () => {
    fake.failTimes(2, 429, { retryAfter: '2' })
    const { events, delays } = await turn()
    deepStrictEqual(events, HELLO)
    deepStrictEqual(delays, [
      [1, 2000],
      [2, 2000],
    ])
    strictEqual(fake.requests.length, 3)
  })

  test('429 on every try is upstream_rate_limited with the upstream message', async () => {
    fake.failTimes(4, 429, { message: 'Rate limit reached for requests' })
    const { events, delays } = await turn()
    deepStrictEqual(events, [
      error('upstream_rate_limited', 'HTTP 429: Rate limit reached for requests', 429),
    ])
    deepStrictEqual(delays, [
      [1, null],
      [2, null],
      [3, null],
    ])
    strictEqual(fake.requests.length, 4)
  })

  test('a Retry-After over a minute is not waited for', async () => {
    fake.failTimes(1, 429, { retryAfter: '120', message: 'slow down' })
    const before = Date.now()
    const { events, delays } = await turn()
    // The reset travels with the error, so a signed-in account can be set aside until then.
    const until = (events[0] as { limited_until_ms?: number }).limited_until_ms ?? 0
    ok(until >= before + 120_000 && until <= Date.now() + 120_000, String(until))
    deepStrictEqual(events, [
      {
        ...error('upstream_rate_limited', 'HTTP 429: slow down (retry after 120 s)', 429),
        limited_until_ms: until,
      },
    ])
    deepStrictEqual(delays, [])
  })

  test('5xx is retried, then upstream_unavailable', async () => {
    fake.failTimes(2, 500)
    deepStrictEqual((await turn({}, profile('chat_completions'))).events, HELLO)
    fake.failTimes(3, 503, { message: 'overloaded' })
    const { events } = await turn({ maxRetries: 2 })
    deepStrictEqual(events, [error('upstream_unavailable', 'HTTP 503: overloaded', 503)])
    strictEqual(fake.requests.length, 6)
  })

  test('another 4xx is upstream_rejected with the upstream message, not retried', async () => {
    fake.failTimes(1, 400, { message: "Unsupported parameter: 'reasoning.effort'" })
    const { events, delays } = await turn()
    deepStrictEqual(events, [
      error('upstream_rejected', "HTTP 400: Unsupported parameter: 'reasoning.effort'", 400),
    ])
    deepStrictEqual(delays, [])
  })

  test('a refused connection is retried, then upstream_unavailable', async () => {
    const p = profile()
    await fake.close()
    const { events, delays } = await turn({}, p)
    strictEqual(events.length, 1)
    const [e] = events
    ok(e.type === 'error' && e.code === 'upstream_unavailable' && e.status === null)
    ok(e.message.startsWith(`could not reach ${p.endpoint}`) && e.message.includes('ECONNREFUSED'), e.message)
    strictEqual(delays.length, 3)
    fake = await FakeOpenAIUpstream.start()
  })

  test('a 200 with JSON instead of an event stream (injected fetch)', async () => {
    const answer = (body: unknown) => async () =>
      new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } })
    const completion = await turn({ fetch: answer({ id: 'chatcmpl-1', choices: [] }) })
    deepStrictEqual(completion.events, [
      error(
        'upstream_malformed',
        'the upstream answered a JSON object with keys "id", "choices" instead of an event stream',
        200,
      ),
    ])
    const quota = await turn({
      fetch: answer({ error: { message: 'Quota exceeded', code: 'insufficient_quota' } }),
    })
    deepStrictEqual(quota.events, [error('upstream_rate_limited', 'HTTP 200: Quota exceeded', 200)])
    // A whole chat completion (the server ignored `stream: true`) is read as one last chunk.
    const whole = await turn(
      {
        fetch: answer({
          id: 'chatcmpl-2',
          object: 'chat.completion',
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: [
                  { type: 'thinking', thinking: [{ type: 'text', text: 'hm' }] },
                  { type: 'text', text: 'whole' },
                ],
              },
              finish_reason: 'stop',
            },
          ],
          usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
        }),
      },
      profile('chat_completions'),
    )
    deepStrictEqual(whole.events, [
      { type: 'start' },
      { type: 'reasoning_delta', index: 0, delta: 'hm' },
      { type: 'text_delta', index: 1, delta: 'whole' },
      usage(3, null, null, 2, 5),
      { type: 'done', stop_reason: 'stop' },
    ])
    strictEqual(fake.requests.length, 0)
  })

  test('default backoff and Retry-After parsing', () => {
    deepStrictEqual(
      [1, 2, 3, 4, 5, 6].map((n) => defaultRetryDelayMs(n, null)),
      [500, 1000, 2000, 4000, 8000, 8000],
    )
    strictEqual(defaultRetryDelayMs(1, 3000), 3000)
    strictEqual(retryAfter(new Headers({ 'retry-after': '1.5' })), 1500)
    strictEqual(retryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' })), 250)
    strictEqual(
      retryAfter(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:10 GMT' }), Date.UTC(2026, 0, 1)),
      10000,
    )
    strictEqual(retryAfter(new Headers({ 'retry-after': 'soon' })), null)
    strictEqual(retryAfter(new Headers()), null)
  })
})

describe('timeouts, drops and malformed frames', () => {
  test('headers then nothing: start, then upstream_timeout', async () => {
    fake.enqueue({ mode: 'stall-after-headers' })
    const { events, ms } = await turn({ idleTimeoutMs: 150 })
    deepStrictEqual(events, [{ type: 'start' }, error('upstream_timeout', 'no byte received for 150 ms')])
    ok(ms < 1500, `took ${ms} ms`)
  })

  test('nothing at all: upstream_timeout without start, not retried', async () => {
    fake.enqueue({ mode: 'stall-before-headers' })
    const { events, delays } = await turn({ idleTimeoutMs: 150 })
    deepStrictEqual(events, [error('upstream_timeout', `no response from ${fake.url} within 150 ms`)])
    deepStrictEqual(delays, [])
    strictEqual(fake.requests.length, 1)
  })

  test('a stall mid-stream: the deltas so far, then upstream_timeout', async () => {
    fake.enqueue({ text: ['a', 'b', 'c'], mode: 'stall', after: 2 })
    const { events } = await turn({ idleTimeoutMs: 150 })
    deepStrictEqual(events, [
      { type: 'start' },
      text(0, 'a'),
      text(0, 'b'),
      error('upstream_timeout', 'no byte received for 150 ms'),
    ])
  })

  test('a slow first byte or slow deltas within the idle timeout are fine', async () => {
    fake.enqueue({ firstByteDelayMs: 250, text: ['slow'], usage: null })
    const first = await turn({ idleTimeoutMs: 600 })
    deepStrictEqual(first.events, [{ type: 'start' }, text(0, 'slow'), { type: 'done', stop_reason: 'stop' }])
    fake.enqueue({ delayMs: 120, text: ['x', 'y', 'z', 'w'], usage: null })
    const slow = await turn({ idleTimeoutMs: 400 }, profile('chat_completions'))
    strictEqual(slow.events.at(-1)?.type, 'done')
    ok(slow.ms >= 400, `took ${slow.ms} ms`)
  })

  test('a connection dropped mid-stream is upstream_dropped', async () => {
    for (const protocol of ['responses', 'chat_completions'] as const) {
      fake.enqueue({ text: ['a', 'b', 'c'], mode: 'drop', after: 2 })
      const { events } = await turn({}, profile(protocol))
      deepStrictEqual(events.slice(0, 3), [{ type: 'start' }, text(0, 'a'), text(0, 'b')])
      strictEqual(events.length, 4)
      const last = events[3]
      ok(last.type === 'error' && last.code === 'upstream_dropped', JSON.stringify(last))
    }
  })

  test('a malformed frame is upstream_malformed and nothing after it is read', async () => {
    fake.enqueue({ text: ['a', 'b'], mode: 'malformed', after: 1 })
    const { events } = await turn()
    deepStrictEqual(events, [
      { type: 'start' },
      text(0, 'a'),
      error(
        'upstream_malformed',
        'a data line is not a JSON object: {"type": "response.output_text.delta", oops',
      ),
    ])
  })
})

describe('abort', () => {
  test('mid-stream: aborted promptly and the upstream request is closed', async () => {
    fake.enqueue({ text: Array.from({ length: 50 }, (_, i) => `w${i} `), delayMs: 40 })
    const ctrl = new AbortController()
    const events: NeutralEvent[] = []
    let abortedAt = 0
    for await (const event of openaiCompatible.stream(profile(), request(), { signal: ctrl.signal })) {
      events.push(event)
      if (event.type === 'text_delta' && abortedAt === 0) {
        abortedAt = Date.now()
        ctrl.abort()
      }
    }
    ok(Date.now() - abortedAt < 300, `took ${Date.now() - abortedAt} ms`)
    deepStrictEqual(events, [{ type: 'start' }, text(0, 'w0 '), error('aborted', 'the request was aborted')])
    await fake.requests[0].closed
    strictEqual(fake.requests[0].completed, false)
  })

  test('a consumer that stops reading (after start or mid-stream) closes the upstream request', async () => {
    for (const stopAt of ['start', 'text_delta']) {
      fake.enqueue({ text: Array.from({ length: 50 }, (_, i) => `w${i} `), delayMs: 20 })
      const stream = openaiCompatible.stream(profile(), request(), { signal: new AbortController().signal })
      for await (const event of stream) if (event.type === stopAt) break
      const req = fake.requests.at(-1)!
      await req.closed
      strictEqual(req.completed, false)
    }
  })

  test('before the request, while waiting for headers, and during a retry backoff', async () => {
    const ctrl = new AbortController()
    ctrl.abort()
    deepStrictEqual((await turn({ signal: ctrl.signal })).events, [
      error('aborted', 'the request was aborted'),
    ])
    strictEqual(fake.requests.length, 0)

    fake.enqueue({ mode: 'stall-before-headers' })
    const waiting = turn({ signal: AbortSignal.timeout(100), idleTimeoutMs: 10_000 })
    deepStrictEqual((await waiting).events, [error('aborted', 'the request was aborted')])

    fake.failTimes(1, 503)
    const backoff = await turn({ signal: AbortSignal.timeout(100), retryDelayMs: () => 10_000 })
    deepStrictEqual(backoff.events, [error('aborted', 'the request was aborted')])
    ok(backoff.ms < 1000, `took ${backoff.ms} ms`)
  })
})
