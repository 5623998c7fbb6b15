import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { afterEach, beforeEach, describe, test } from 'node:test'
import { CHATGPT_DEFAULTS, chatgptSignIn } from '../../../src/providers/chatgpt/signin.ts'
import { chatgpt, chatgptUrl, userAgent } from '../../../src/providers/chatgpt/transport.ts'
import { transportFor } from '../../../src/providers/transports.ts'
import type {
  NeutralEvent,
  NeutralRequest,
  StreamOptions,
  TransportProfile,
} from '../../../src/providers/types.ts'
import { FakeChatgptBackend, type FakeSeat, s256 } from '../../fakes/chatgpt-backend.ts'
import { collect, request, text, usage } from '../openai-compatible/helpers.ts'

const SEAT: FakeSeat = {
  accountId: 'ws-acme',
  userId: 'user-alice',
  email: 'alice@example.com',
  plan: 'plus',
}
const SESSION = '0190f5a0-0000-7000-8000-0000000000aa'
let fake: FakeChatgptBackend
let token: string

beforeEach(async () => {
  fake = await FakeChatgptBackend.start()
  token = String(fake.issue(SEAT).access_token)
})
afterEach(async () => {
  await fake.close()
})

function profile(extra: Partial<TransportProfile> = {}): TransportProfile {
  return {
    endpoint: fake.backendUrl,
    protocol: 'responses',
    model: 'gpt-5.1-codex',
    api_key: token,
    headers: { 'chatgpt-account-id': 'ws-from-daemon', session_id: SESSION },
    ...extra,
  }
}

function stream(p: TransportProfile, opts: Partial<StreamOptions> = {}, req: NeutralRequest = request()) {
  return collect(
    chatgpt.stream(p, req, {
      signal: new AbortController().signal,
      retryDelayMs: () => 1,
      idleTimeoutMs: 2000,
      ...opts,
    }),
  )
}

const HELLO: NeutralEvent[] = [
  { type: 'start' },
  text(0, 'Hello'),
  text(0, ', '),
  text(0, 'world'),
  text(0, '!'),
  usage(12, 2, null, 4, 16),
  { type: 'done', stop_reason: 'stop' },
]

function lastError(events: NeutralEvent[]): Extract<NeutralEvent, { type: 'error' }> {
  strictEqual(events.length, 1, JSON.stringify(events))
  const [event] = events
  strictEqual(event.type, 'error')
  return event as Extract<NeutralEvent, { type: 'error' }>
}

describe('registry and URL', () => {
  test('extension chatgpt is this transport', () => {
    strictEqual(transportFor('chatgpt'), chatgpt)
  })

  test('the Codex responses path under the endpoint; empty is the ChatGPT backend', () => {
    strictEqual(chatgptUrl(''), 'https://chatgpt.com/backend-api/codex/responses')
    strictEqual(
      chatgptUrl('https://chatgpt.com/backend-api/'),
      'https://chatgpt.com/backend-api/codex/responses',
    )
    strictEqual(
      chatgptUrl('http://127.0.0.1:9/backend-api/codex'),
      'http://127.0.0.1:9/backend-api/codex/responses',
    )
    strictEqual(
      chatgptUrl('http://127.0.0.1:9/backend-api/codex/responses'),
      'http://127.0.0.1:9/backend-api/codex/responses',
    )
  })
})

describe('requests', () => {
  test('headers: bearer, account, experimental Responses, originator, user agent, session', async () => {
    deepStrictEqual(await stream(profile()), HELLO)
    strictEqual(fake.requests.length, 1)
    const [sent] = fake.requests
    strictEqual(sent.method, 'POST')
    strictEqual(sent.path, '/backend-api/codex/responses')
    const h = sent.headers
    strictEqual(h.authorization, `Bearer ${token}`)
    strictEqual(h['chatgpt-account-id'], 'ws-from-daemon')
    strictEqual(h['openai-beta'], 'responses=experimental')
    strictEqual(h.originator, 'hearth')
    strictEqual(h.accept, 'text/event-stream')
    strictEqual(h['content-type'], 'application/json')
    strictEqual(h.session_id, SESSION)
    strictEqual(h['user-agent'], userAgent())
    ok(/^hearth\/\d+\.\d+\.\d+\S* \(\S+ \S+; \S+\)$/.test(String(h['user-agent'])), String(h['user-agent']))
  })

  test('without the daemon headers: account id from the access token, session from the request', async () => {
    deepStrictEqual(await stream(profile({ headers: {} })), HELLO)
    const h = fake.requests[0].headers
    strictEqual(h['chatgpt-account-id'], 'ws-acme')
    strictEqual(h.session_id, request().session_id)
    strictEqual(fake.requests[0].body.prompt_cache_key, request().session_id)
  })

  test('body: not stored, streamed, parallel automatic tools, low verbosity, encrypted reasoning, instructions', async () => {
    const sealed = fake.sealReasoning()
    const req = request({
      system: 'Be brief.',
      effort: 'high',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'List files' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'thinking' },
            {
              type: 'encrypted_reasoning',
              summary: ['Look first.'],
              encrypted_content: sealed,
              model: 'gpt-test',
            },
            // Another model's encrypted reasoning is never sent (it could not be verified).
            {
              type: 'encrypted_reasoning',
              summary: [],
              encrypted_content: 'gAAAAA-other',
              model: 'gpt-other',
            },
            { type: 'text', text: 'Calling ls.' },
            { type: 'tool_call', id: 'call_1', name: 'ls', arguments: '{"path":"."}' },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'a.txt' },
      ],
      tools: [
        {
          name: 'ls',
          description: 'List a directory',
          parameters: {
            type: 'object',
            properties: { path: { type: ['string', 'null'] } },
            required: ['path'],
            additionalProperties: false,
          },
        },
      ],
    })
    await stream(profile(), {}, req)
    deepStrictEqual(fake.requests[0].body, {
      model: 'gpt-test',
      instructions: 'Be brief.',
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'List files' }] },
        {
          type: 'reasoning',
          summary: [{ type: 'summary_text', text: 'Look first.' }],
          encrypted_content: sealed,
        },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Calling ls.' }] },
        { type: 'function_call', call_id: 'call_1', name: 'ls', arguments: '{"path":"."}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'a.txt' },
      ],
      stream: true,
      store: false,
      reasoning: { effort: 'high', summary: 'auto' },
      tools: [
        {
          type: 'function',
          name: 'ls',
          description: 'List a directory',
          parameters: {
            type: 'object',
            properties: { path: { type: ['string', 'null'] } },
            required: ['path'],
            additionalProperties: false,
          },
          strict: null,
        },
      ],
      prompt_cache_key: SESSION,
      tool_choice: 'auto',
      parallel_tool_calls: true,
      include: ['reasoning.encrypted_content'],
      text: { verbosity: 'low' },
    })
    const body = fake.requests[0].body
    strictEqual(body.tools[0].strict, null, 'strict is sent as null')
    ok(!('max_output_tokens' in body))
  })

  test('encrypted reasoning the backend cannot verify is dropped and the turn sent once more', async () => {
    const req = request({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'one' }] },
        {
          role: 'assistant',
          content: [
            // Not issued by this backend (another workspace's, say).
            {
              type: 'encrypted_reasoning',
              summary: [],
              encrypted_content: 'gAAAAA-foreign',
              model: 'gpt-test',
            },
            { type: 'text', text: 'First.' },
          ],
        },
        { role: 'user', content: [{ type: 'text', text: 'two' }] },
      ],
    })
    deepStrictEqual(await stream(profile(), {}, req), HELLO)
    strictEqual(fake.requests.length, 2)
    strictEqual(fake.requests[0].body.input[1].type, 'reasoning')
    deepStrictEqual(
      fake.requests[1].body.input.map((i: any) => i.type),
      ['message', 'message', 'message'],
    )
  })

  test('no system text still sends instructions; no tools sends an empty list', async () => {
    await stream(profile())
    const body = fake.requests[0].body
    strictEqual(body.instructions, '')
    deepStrictEqual(body.tools, [])
    ok(!('reasoning' in body))
    ok(!body.input.some((i: any) => i.role === 'system' || i.role === 'developer'))
  })

  test('streamed reasoning, text and a tool call decode with the Responses decoder', async () => {
    fake.enqueue({
      reasoning: ['Let me ', 'look.'],
      text: ['Listing', '…'],
      toolCall: { id: 'call_9', name: 'ls', arguments: ['{"path"', ':"."}'] },
      usage: { input: 30, output: 9 },
    })
    const events = await stream(profile())
    // The finished reasoning item comes back encrypted (the request included it): kept for replay.
    const sealed = events.find((e) => e.type === 'encrypted_reasoning')
    ok(sealed && /^gAAAAA/.test(sealed.encrypted_content), JSON.stringify(sealed))
    deepStrictEqual(events, [
      { type: 'start' },
      { type: 'reasoning_delta', index: 0, delta: 'Let me ' },
      { type: 'reasoning_delta', index: 0, delta: 'look.' },
      {
        type: 'encrypted_reasoning',
        index: 0,
        summary: ['Let me look.'],
        encrypted_content: sealed.encrypted_content,
      },
      text(1, 'Listing'),
      text(1, '…'),
      { type: 'tool_call', index: 2, id: 'call_9', name: 'ls', arguments: '{"path":"."}' },
      usage(30, 0, null, 9, 39),
      { type: 'done', stop_reason: 'tool_calls' },
    ])
  })

  test('a signed-in credential from the token endpoint works end to end', async () => {
    fake.strictAuth = true
    const plugin = chatgptSignIn({ ...CHATGPT_DEFAULTS, issuer: fake.url })
    const verifier = randomBytes(32).toString('base64url')
    const redirectUri = 'http://localhost:1455/auth/callback'
    const code = fake.authorize(SEAT, s256(verifier), redirectUri)
    const cred = await plugin.exchange({
      code,
      redirectUri,
      state: 'state-1',
      verifier,
      progress: () => {},
      signal: AbortSignal.timeout(5000),
    })
    const p = profile({
      api_key: String(cred.access),
      headers: { 'chatgpt-account-id': String(cred.account_id), session_id: SESSION },
    })
    deepStrictEqual(await stream(p), HELLO)
    strictEqual(fake.requests[0].headers['chatgpt-account-id'], 'ws-acme')
    fake.revoke(String(cred.access))
    const error = lastError(await stream(p))
    deepStrictEqual(error, {
      type: 'error',
      code: 'upstream_unauthorized',
      message:
        'HTTP 401: Your authentication token has expired. Please try signing in again; ' +
        'the ChatGPT sign-in was refused, run /login',
      status: 401,
    })
  })
})

describe('failures', () => {
  test('401 → upstream_unauthorized ending in run /login, not retried, token never shown', async () => {
    fake.enqueue({ status: 401, errorMessage: `token ${token} has expired` })
    const error = lastError(await stream(profile(), { maxRetries: 3 }))
    strictEqual(error.code, 'upstream_unauthorized')
    strictEqual(error.status, 401)
    ok(error.message.endsWith('run /login'), error.message)
    ok(error.message.startsWith('HTTP 401: token [redacted] has expired'), error.message)
    ok(!error.message.includes(token))
    strictEqual(fake.requests.length, 1)
  })

  test('403 is the same', async () => {
    fake.enqueue({ status: 403 })
    const error = lastError(await stream(profile()))
    strictEqual(error.code, 'upstream_unauthorized')
    ok(error.message.endsWith('run /login'), error.message)
  })

  test('no access token: upstream_unauthorized at once, nothing sent', async () => {
    const error = lastError(await stream(profile({ api_key: null })))
    deepStrictEqual(error, {
      type: 'error',
      code: 'upstream_unauthorized',
      message: 'not signed in to ChatGPT; run /login',
      status: null,
    })
    strictEqual(fake.requests.length, 0)
  })

  test('a usage-limit 429 is not retried and says when it resets', async () => {
    const resetsAt = 1_900_000_000
    fake.enqueue({ usageLimit: { resetsAt, plan: 'plus' } })
    let delays = 0
    const error = lastError(
      await stream(profile(), {
        maxRetries: 3,
        retryDelayMs: () => {
          delays++
          return 1
        },
      }),
    )
    deepStrictEqual(error, {
      type: 'error',
      code: 'upstream_rate_limited',
      message: `HTTP 429: usage limit reached (plus plan); resets at ${new Date(resetsAt * 1000).toISOString()}`,
      status: 429,
      limited_until_ms: resetsAt * 1000,
    })
    strictEqual(fake.requests.length, 1)
    strictEqual(delays, 0)
  })

  test('usage_not_included is not retried either', async () => {
    fake.enqueue({ usageLimit: { kind: 'usage_not_included', plan: 'free' } })
    const error = lastError(await stream(profile(), { maxRetries: 3 }))
    strictEqual(error.code, 'upstream_rate_limited')
    strictEqual(error.message, 'HTTP 429: the ChatGPT plan does not include Codex usage (free plan)')
    strictEqual(fake.requests.length, 1)
    // Set aside until the used-up window the headers report resets (the fake: within the hour).
    const until = (error as { limited_until_ms?: number }).limited_until_ms ?? 0
    ok(until > Date.now() + 3_500_000 && until <= Date.now() + 3_600_000, String(until))
  })

  test('a plain 429 and a 500 are retried by the shared HTTP layer', async () => {
    fake.failTimes(1, 429).failTimes(1, 500)
    deepStrictEqual(await stream(profile(), { maxRetries: 3 }), HELLO)
    strictEqual(fake.requests.length, 3)
    fake.reset().failTimes(3, 500)
    const error = lastError(await stream(profile(), { maxRetries: 2 }))
    strictEqual(error.code, 'upstream_unavailable')
    strictEqual(fake.requests.length, 3)
  })

  test('a dropped stream and an abort keep their codes', async () => {
    fake.enqueue({ text: ['Hello', ', ', 'world'], mode: 'drop', after: 1 })
    const dropped = await stream(profile())
    deepStrictEqual(dropped.slice(0, 2), [{ type: 'start' }, text(0, 'Hello')])
    strictEqual(dropped.at(-1)?.type, 'error')
    strictEqual((dropped.at(-1) as any).code, 'upstream_dropped')
    fake.enqueue({ mode: 'stall-before-headers' })
    const ctrl = new AbortController()
    setTimeout(() => ctrl.abort(), 50)
    const aborted = lastError(await stream(profile(), { signal: ctrl.signal }))
    strictEqual(aborted.code, 'aborted')
  })
})
