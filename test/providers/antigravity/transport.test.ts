// The antigravity transport over a real socket against the fake Cloud Code Assist backend:
// the envelope and its URL, the stream's `response` unwrapped by the shared Gemini
// decoder, flattened tool schemas, thought signatures kept in an `antigravity.parts` entry
// and replayed only to the model that made them, and the failures (per-meter 429s, 401,
// verification, an envelope without a project).
import { deepStrictEqual, match, ok, strictEqual } from 'node:assert/strict'
import { after, before, beforeEach, describe, test } from 'node:test'
import { antigravity, antigravityUrl } from '../../../src/providers/antigravity/transport.ts'
import { transportFor } from '../../../src/providers/transports.ts'
import type {
  AssistantPart,
  NeutralEvent,
  NeutralRequest,
  StreamOptions,
  TransportProfile,
} from '../../../src/providers/types.ts'
import { FakeAntigravityBackend, type FakeGoogleUser, VERIFY_URL } from '../../fakes/antigravity-backend.ts'
import { functionCallsOf } from '../../fakes/gemini-upstream.ts'
import { collect } from '../openai-compatible/helpers.ts'

const USER: FakeGoogleUser = { email: 'ada@example.com', project: 'proj-ada' }
let fake: FakeAntigravityBackend
let access: string

before(async () => {
  fake = await FakeAntigravityBackend.start()
})
after(() => fake.close())
beforeEach(() => {
  fake.requests.length = 0
  fake.scripts.length = 0
  access = fake.issue(USER).access_token
})

function profile(over: Partial<TransportProfile> = {}): TransportProfile {
  return {
    endpoint: fake.url,
    protocol: 'chat_completions',
    model: 'gemini-3-pro-preview',
    api_key: access,
    project: 'proj-ada',
    headers: { 'user-agent': 'antigravity/hub/1.2.3' },
    ...over,
  }
}

function request(over: Partial<NeutralRequest> = {}): NeutralRequest {
  return {
    model: 'gemini-3-pro-preview',
    effort: null,
    system: 'Be brief.',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    session_id: '0190f5a0-0000-7000-8000-0000000000ab',
    ...over,
  }
}

function stream(req = request(), p = profile(), opts: Partial<StreamOptions> = {}) {
  return collect(
    antigravity.stream(p, req, {
      signal: new AbortController().signal,
      retryDelayMs: () => 1,
      idleTimeoutMs: 3000,
      ...opts,
    }),
  )
}

const generations = () => fake.requests.filter((r) => r.path.startsWith('/v1internal:streamGenerateContent'))

function entryOf(events: NeutralEvent[]): Extract<NeutralEvent, { type: 'encrypted_reasoning' }> {
  const entry = events.find((e) => e.type === 'encrypted_reasoning')
  ok(entry && entry.type === 'encrypted_reasoning', JSON.stringify(events))
  return entry
}

function lastError(events: NeutralEvent[]): Extract<NeutralEvent, { type: 'error' }> {
  const last = events.at(-1)
  ok(last?.type === 'error', JSON.stringify(events))
  return last
}

describe('envelope', () => {
  test('extension antigravity is this transport; the URL is the stream method on the base', () => {
    strictEqual(transportFor('antigravity'), antigravity)
    strictEqual(
      antigravityUrl('http://127.0.0.1:9/'),
      'http://127.0.0.1:9/v1internal:streamGenerateContent?alt=sse',
    )
    strictEqual(
      antigravityUrl(''),
      'https://cloudcode-pa.googleapis.com/v1internal:streamGenerateContent?alt=sse',
    )
  })

  test('the request is wrapped, the stream unwrapped; a signed answer ends with its parts entry', async () => {
    const events = await stream()
    strictEqual(generations().length, 1)
    const [sent] = generations()
    strictEqual(sent.path, '/v1internal:streamGenerateContent?alt=sse')
    strictEqual(sent.headers.authorization, `Bearer ${access}`)
    strictEqual(sent.headers['user-agent'], 'antigravity/hub/1.2.3')
    strictEqual(sent.headers.accept, 'text/event-stream')
    deepStrictEqual(JSON.parse(String(sent.headers['client-metadata'])), {
      ideType: 'ANTIGRAVITY',
      platform: 'PLATFORM_UNSPECIFIED',
      pluginType: 'GEMINI',
    })
    const { request: inner, requestId, ...outer } = sent.body
    deepStrictEqual(outer, {
      project: 'proj-ada',
      model: 'gemini-3-pro-preview',
      requestType: 'agent',
      userAgent: 'antigravity',
    })
    match(requestId, /^agent-\d+-[0-9a-f]{12}$/)
    deepStrictEqual(inner, {
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      sessionId: '0190f5a0-0000-7000-8000-0000000000ab',
    })
    const kinds = events.map((e) => e.type)
    deepStrictEqual(kinds, [
      'start',
      'text_delta',
      'text_delta',
      'text_delta',
      'encrypted_reasoning',
      'usage',
      'done',
    ])
    strictEqual(
      events
        .filter((e) => e.type === 'text_delta')
        .map((e) => (e as { delta: string }).delta)
        .join(''),
      'Hello from Antigravity.',
    )
    const entry = JSON.parse(entryOf(events).encrypted_content)
    strictEqual(entry.type, 'antigravity.parts')
    deepStrictEqual(entry.parts.length, 1)
    strictEqual(entry.parts[0].text, 'Hello from Antigravity.')
    ok(fake.signatures.has(entry.parts[0].thoughtSignature), 'the closing signature is kept on its item')
  })

  test('tool schemas are flattened and declared as parameters; Claude models get call ids', async () => {
    const tool = {
      name: 'read',
      description: 'Read a file',
      parameters: {
        type: 'object',
        $defs: { P: { type: 'string', minLength: 1 } },
        properties: {
          path: { $ref: '#/$defs/P' },
          limit: { anyOf: [{ type: 'null' }, { type: 'integer' }] },
        },
        required: ['path'],
        additionalProperties: false,
      },
    }
    await stream(request({ tools: [tool] }))
    deepStrictEqual(generations()[0].body.request.tools, [
      {
        functionDeclarations: [
          {
            name: 'read',
            description: 'Read a file',
            parameters: {
              type: 'object',
              properties: {
                path: { type: 'string', description: '(minLength: 1)' },
                limit: { type: 'integer' },
              },
              required: ['path'],
            },
          },
        ],
      },
    ])
    const history: NeutralRequest['messages'] = [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_call', id: 'toolu_1', name: 'read', arguments: '{"path":"a"}' }],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'A' },
    ]
    const claude = 'claude-sonnet-4-5'
    await stream(request({ model: claude, messages: history }), profile({ model: claude }))
    const calls = functionCallsOf(generations()[1].body.request)
    deepStrictEqual(calls, [
      {
        name: 'read',
        args: { path: 'a' },
        id: 'toolu_1',
        thoughtSignature: 'skip_thought_signature_validator',
      },
    ])
  })
})

describe('thought signatures', () => {
  /** A first answer with thoughts and two parallel calls, as the fake signs them. */
  async function firstAnswer(model: string) {
    fake.enqueue({
      thoughts: ['Look ', 'first.'],
      calls: [{ name: 'ls', args: { dir: '.' } }, { name: 'pwd' }],
    })
    const events = await stream(request({ model }), profile({ model }))
    strictEqual(events.at(-1)?.type, 'done', JSON.stringify(events))
    const calls = events.filter((e) => e.type === 'tool_call') as Extract<
      NeutralEvent,
      { type: 'tool_call' }
    >[]
    const entry = entryOf(events)
    const content: AssistantPart[] = [
      {
        type: 'encrypted_reasoning',
        summary: entry.summary,
        encrypted_content: entry.encrypted_content,
        model,
      },
      ...calls.map((c) => ({ type: 'tool_call' as const, id: c.id, name: c.name, arguments: c.arguments })),
    ]
    const messages: NeutralRequest['messages'] = [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content },
      ...calls.map((c) => ({ role: 'tool' as const, tool_call_id: c.id, content: `${c.name} done` })),
    ]
    return { entry: JSON.parse(entry.encrypted_content), messages }
  }

  test('the entry holds the thoughts and calls in order, each with its own signature', async () => {
    const { entry } = await firstAnswer('gemini-3-pro-preview')
    deepStrictEqual(
      entry.parts.map((p: any) => [
        p.text ?? p.functionCall.name,
        p.thought === true,
        typeof p.thoughtSignature,
      ]),
      [
        ['Look first.', true, 'string'],
        ['ls', false, 'string'],
        ['pwd', false, 'string'],
      ],
    )
  })

  test('the same model gets the signed parts back in place; unsigned calls get the placeholder', async () => {
    const model = 'gemini-3-pro-preview'
    const { entry, messages } = await firstAnswer(model)
    const events = await stream(request({ model, messages }), profile({ model }))
    strictEqual(events.at(-1)?.type, 'done', JSON.stringify(events))
    const contents = generations().at(-1)?.body.request.contents
    const [thought, ls, pwd] = contents[1].parts
    deepStrictEqual(thought, entry.parts[0])
    deepStrictEqual(ls, entry.parts[1])
    strictEqual(pwd.thoughtSignature, entry.parts[2].thoughtSignature ?? 'skip_thought_signature_validator')
    strictEqual(contents[2].role, 'user')
    deepStrictEqual(
      contents[2].parts.map((p: any) => p.functionResponse.name),
      ['ls', 'pwd'],
    )
  })

  test('another model gets plain text and calls, each call with the placeholder, no thoughts', async () => {
    const { messages } = await firstAnswer('gemini-3-pro-preview')
    const other = 'gemini-3-flash-preview'
    const events = await stream(request({ model: other, messages }), profile({ model: other }))
    strictEqual(events.at(-1)?.type, 'done', JSON.stringify(events))
    const parts = generations().at(-1)?.body.request.contents[1].parts
    deepStrictEqual(parts, [
      {
        functionCall: { name: 'ls', args: { dir: '.' } },
        thoughtSignature: 'skip_thought_signature_validator',
      },
      { functionCall: { name: 'pwd', args: {} }, thoughtSignature: 'skip_thought_signature_validator' },
    ])
  })

  test('the fake refuses a signature replayed to another model (the check the transport avoids)', async () => {
    const { entry } = await firstAnswer('gemini-3-pro-preview')
    const other = 'gemini-3-flash-preview'
    const forged: AssistantPart = {
      type: 'encrypted_reasoning',
      summary: [],
      encrypted_content: JSON.stringify(entry),
      model: other,
    }
    const messages: NeutralRequest['messages'] = [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: [forged, { type: 'text', text: 'x' }] },
      { role: 'user', content: [{ type: 'text', text: 'again' }] },
    ]
    const error = lastError(await stream(request({ model: other, messages }), profile({ model: other })))
    strictEqual(error.code, 'upstream_rejected')
    match(error.message, /Corrupted thought signature/)
  })
})

describe('failures', () => {
  test('a 429 with a quota reset: rate limited until then, not retried, naming the meter', async () => {
    const reset = '2099-01-01T00:00:00Z'
    fake.enqueue({
      status: 429,
      errorBody: {
        error: {
          code: 429,
          message: 'You have exhausted your capacity on this model.',
          status: 'RESOURCE_EXHAUSTED',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'QUOTA_EXHAUSTED',
              metadata: { quotaResetTimeStamp: reset },
            },
          ],
        },
      },
    })
    const error = lastError(await stream())
    strictEqual(error.code, 'upstream_rate_limited')
    strictEqual(error.limited_until_ms, Date.parse(reset))
    match(error.message, /gemini quota/)
    strictEqual(generations().length, 1)
  })

  test('a 429 naming no reset limits the meter for a minute; a short RetryInfo is retried', async () => {
    fake.enqueue({ status: 429, errorStatus: 'RESOURCE_EXHAUSTED', errorMessage: 'slow down' })
    const before = Date.now()
    const error = lastError(
      await stream(request({ model: 'claude-sonnet-4-5' }), profile({ model: 'claude-sonnet-4-5' })),
    )
    ok(
      (error.limited_until_ms ?? 0) >= before + 60_000 &&
        (error.limited_until_ms ?? 0) <= Date.now() + 60_000,
    )
    match(error.message, /claude quota/)
    fake.enqueue({
      status: 429,
      errorBody: {
        error: {
          code: 429,
          status: 'RESOURCE_EXHAUSTED',
          message: 'wait',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '0.01s' }],
        },
      },
    })
    const events = await stream()
    strictEqual(events.at(-1)?.type, 'done')
    strictEqual(generations().length, 3)
  })

  test('a rate limit inside the stream still limits the meter for a minute', async () => {
    const before = Date.now()
    const error = lastError(
      await stream(request(), profile(), {
        fetch: async () =>
          new Response(
            'data: {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": "quota"}}\r\n\r\n',
            { status: 200, headers: { 'content-type': 'text/event-stream' } },
          ),
      }),
    )
    strictEqual(error.code, 'upstream_rate_limited')
    ok((error.limited_until_ms ?? 0) >= before + 60_000, JSON.stringify(error))
  })

  test('a 401 ends with run /login and is not retried; the token never appears', async () => {
    const events = await stream(request(), profile({ api_key: 'ya29.not-issued' }))
    const error = lastError(events)
    strictEqual(error.code, 'upstream_unauthorized')
    strictEqual(error.status, 401)
    match(error.message, /run \/login$/)
    ok(!error.message.includes('ya29.not-issued'))
    strictEqual(generations().length, 1)
  })

  test('an account that needs verification: the page to open, then run /login', async () => {
    fake.enqueue({
      status: 403,
      errorBody: {
        error: {
          code: 403,
          status: 'PERMISSION_DENIED',
          message: 'Verify your account to continue.',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'VALIDATION_REQUIRED',
              metadata: { validation_url: VERIFY_URL },
            },
          ],
        },
      },
    })
    const error = lastError(await stream())
    strictEqual(error.code, 'upstream_unauthorized')
    ok(error.message.includes(VERIFY_URL), error.message)
    match(error.message, /run \/login$/)
  })

  test('no project or no token: fails before sending', async () => {
    match(lastError(await stream(request(), profile({ project: '' }))).message, /no project; run \/login$/)
    match(
      lastError(await stream(request(), profile({ api_key: null }))).message,
      /not signed in to Antigravity; run \/login$/,
    )
    strictEqual(generations().length, 0)
  })

  test('MAX_TOKENS, SAFETY and a cut stream through the envelope', async () => {
    fake.enqueue({ text: ['partial'], finishReason: 'MAX_TOKENS' })
    strictEqual((await stream()).at(-1)?.type, 'done')
    fake.enqueue({ text: ['x'], calls: [{ name: 'ls' }], finishReason: 'SAFETY' })
    const filtered = await stream()
    strictEqual(lastError(filtered).code, 'upstream_blocked')
    ok(!filtered.some((e) => e.type === 'tool_call'), 'a filtered answer runs no call')
    fake.enqueue({ text: ['cut'], mode: 'cut' })
    strictEqual(lastError(await stream()).code, 'upstream_incomplete')
  })
})
