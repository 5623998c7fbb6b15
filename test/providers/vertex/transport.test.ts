// The vertex transport over real sockets: a fake token endpoint for the ADC exchange and a
// fake Vertex endpoint speaking Gemini SSE. Exact URL, headers and body; the project and
// location fallbacks; the effort table failing locally with nothing sent; errors; a tool
// round trip the fake checks for pairing and signatures.
import { deepStrictEqual, match, ok, strictEqual } from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, beforeEach, describe, test } from 'node:test'
import { geminiBody } from '../../../src/providers/gemini/encode.ts'
import { thinkingConfigFor } from '../../../src/providers/gemini/models.ts'
import { geminiHeaders, geminiStep } from '../../../src/providers/gemini/transport.ts'
import type { NeutralEvent, NeutralRequest, TransportProfile } from '../../../src/providers/types.ts'
import { vertexTransport, vertexUrl } from '../../../src/providers/vertex/transport.ts'
import { FakeGeminiUpstream, functionCallsOf, functionResponsesOf } from '../../fakes/gemini-upstream.ts'
import { FakeGoogleToken } from '../../fakes/google-token.ts'

let upstream: FakeGeminiUpstream
let tokens: FakeGoogleToken
let adcFile: string

before(async () => {
  upstream = await FakeGeminiUpstream.start()
  tokens = await FakeGoogleToken.start()
  adcFile = join(mkdtempSync(join(tmpdir(), 'hearth-vertex-')), 'adc.json')
  writeFileSync(adcFile, JSON.stringify(tokens.authorizedUser()))
})
after(async () => {
  await upstream.close()
  await tokens.close()
})
beforeEach(() => {
  upstream.reset()
  upstream.tokens.clear()
  tokens.requests.length = 0
  tokens.refuse = false
})

const PROFILE: TransportProfile = {
  endpoint: '',
  protocol: 'chat_completions',
  model: 'gemini-2.5-flash',
  api_key: null,
  project: 'proj-1',
  location: 'us-central1',
}

function env(over: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { HEARTH_VERTEX_BASE_URL: upstream.url, GOOGLE_APPLICATION_CREDENTIALS: adcFile, ...over }
}

function request(over: Partial<NeutralRequest> = {}): NeutralRequest {
  return {
    model: 'gemini-2.5-flash',
    effort: null,
    system: 'Be brief.',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    session_id: 'ses_1',
    ...over,
  }
}

async function turn(
  req: NeutralRequest = request(),
  profile: TransportProfile = PROFILE,
  e: NodeJS.ProcessEnv = env(),
): Promise<NeutralEvent[]> {
  const out: NeutralEvent[] = []
  const opts = { signal: AbortSignal.timeout(10_000), retryDelayMs: () => 1, idleTimeoutMs: 5000 }
  for await (const event of vertexTransport({ env: e }).stream(profile, req, opts)) out.push(event)
  return out
}

async function collect(events: AsyncIterable<NeutralEvent>): Promise<NeutralEvent[]> {
  const out: NeutralEvent[] = []
  for await (const e of events) out.push(e)
  return out
}

const last = (events: NeutralEvent[]) => events.at(-1) as Extract<NeutralEvent, { type: 'error' }>

describe('vertex URLs', () => {
  test('regional host, the bare global host, and the base URL hook', () => {
    strictEqual(
      vertexUrl('p', 'europe-west4', 'gemini-2.5-pro', 'streamGenerateContent', ''),
      'https://europe-west4-aiplatform.googleapis.com/v1/projects/p/locations/europe-west4/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
    )
    strictEqual(
      vertexUrl('p', 'global', 'gemini-3-pro-preview', 'generateContent', ''),
      'https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers/google/models/gemini-3-pro-preview:generateContent',
    )
    strictEqual(
      vertexUrl(
        'p',
        'global',
        'publishers/google/models/gemini-2.5-flash@001',
        'streamGenerateContent',
        'http://127.0.0.1:9/',
      ),
      'http://127.0.0.1:9/v1/projects/p/locations/global/publishers/google/models/gemini-2.5-flash@001:streamGenerateContent?alt=sse',
    )
  })
})

describe('vertex transport', () => {
  test('one turn: the token from ADC, the exact route, headers and body; text and usage decoded', async () => {
    upstream.enqueue({
      thoughts: ['Considering'],
      text: ['Hel', 'lo'],
      usage: { prompt: 20, candidates: 2, thoughts: 7, cached: 8 },
    })
    const events = await turn()
    deepStrictEqual(events, [
      { type: 'start' },
      { type: 'reasoning_delta', index: 0, delta: 'Considering' },
      { type: 'text_delta', index: 1, delta: 'Hel' },
      { type: 'text_delta', index: 1, delta: 'lo' },
      {
        type: 'usage',
        usage: {
          prompt_tokens: 20,
          cached_prompt_tokens: 8,
          cache_write_tokens: null,
          completion_tokens: 9,
          total_tokens: 29,
        },
      },
      { type: 'done', stop_reason: 'stop' },
    ])
    strictEqual(tokens.requests.length, 1)
    const [r] = upstream.requests
    strictEqual(
      r.path,
      '/v1/projects/proj-1/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent',
    )
    strictEqual(r.query, '?alt=sse')
    ok(tokens.issued.has(String(r.headers.authorization).replace('Bearer ', '')))
    strictEqual(r.headers['x-goog-user-project'], 'quota-proj')
    strictEqual(r.headers.accept, 'text/event-stream')
    strictEqual(r.headers['content-type'], 'application/json')
    match(String(r.headers['user-agent']), /^hearth\//)
    deepStrictEqual(r.body, {
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
    })
  })

  test('every turn exchanges the credentials again (no token cache)', async () => {
    await turn()
    await turn()
    strictEqual(tokens.requests.length, 2)
    ok(upstream.requests[0].headers.authorization !== upstream.requests[1].headers.authorization)
  })

  test('project and location fall back to GOOGLE_CLOUD_PROJECT / GOOGLE_CLOUD_LOCATION; global', async () => {
    const bare = { ...PROFILE, project: undefined, location: undefined }
    await turn(request(), bare, env({ GOOGLE_CLOUD_PROJECT: 'env-proj', GOOGLE_CLOUD_LOCATION: 'global' }))
    strictEqual(upstream.requests[0].project, 'env-proj')
    strictEqual(upstream.requests[0].location, 'global')
    const missing = await turn(request(), bare, env())
    strictEqual(last(missing).code, 'upstream_rejected')
    match(last(missing).message, /no Vertex AI project: set the profile's project or GOOGLE_CLOUD_PROJECT/)
    const noLocation = await turn(request(), bare, env({ GOOGLE_CLOUD_PROJECT: 'p' }))
    match(last(noLocation).message, /no Vertex AI location/)
    strictEqual(upstream.requests.length, 1)
  })

  test('tools as parametersJsonSchema, unflattened; replay keeps text, thinking text and calls with the skip signature', async () => {
    const schema = {
      type: 'object',
      properties: { path: { $ref: '#/$defs/p' }, mode: { anyOf: [{ const: 'a' }, { type: 'null' }] } },
      $defs: { p: { type: 'string', minLength: 1 } },
      required: ['path'],
      additionalProperties: false,
    }
    const req = request({
      model: 'gemini-3-pro-preview',
      tools: [{ name: 'read', description: 'Read a file', parameters: schema }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'read a and b' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'Two files.' },
            { type: 'text', text: 'Reading both.' },
            { type: 'tool_call', id: 'c1', name: 'read', arguments: '{"path":"a"}' },
            { type: 'tool_call', id: 'c2', name: 'read', arguments: 'not json' },
          ],
        },
        { role: 'tool', tool_call_id: 'c2', content: 'B' },
        {
          role: 'tool',
          tool_call_id: 'c1',
          content: 'A',
          images: [{ media_type: 'image/png', data: 'iVBORw0=' }],
        },
      ],
    })
    const events = await turn(req)
    strictEqual(events.at(-1)?.type, 'done', JSON.stringify(events.at(-1)))
    const body = upstream.requests[0].body
    deepStrictEqual(body.tools, [
      { functionDeclarations: [{ name: 'read', description: 'Read a file', parametersJsonSchema: schema }] },
    ])
    deepStrictEqual(body.toolConfig, { functionCallingConfig: { mode: 'AUTO' } })
    deepStrictEqual(body.contents, [
      { role: 'user', parts: [{ text: 'read a and b' }] },
      {
        role: 'model',
        parts: [
          { text: 'Two files.', thought: true },
          { text: 'Reading both.' },
          {
            functionCall: { name: 'read', args: { path: 'a' } },
            thoughtSignature: 'skip_thought_signature_validator',
          },
          { functionCall: { name: 'read', args: {} }, thoughtSignature: 'skip_thought_signature_validator' },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'read', response: { output: 'A' } } },
          { functionResponse: { name: 'read', response: { output: 'B' } } },
          { text: 'The image(s) returned by tool call c1 (read):' },
          { inlineData: { mimeType: 'image/png', data: 'iVBORw0=' } },
        ],
      },
    ])
  })

  test('a tool round trip: parallel calls decoded, then replayed and answered in order', async () => {
    const tool = {
      name: 'read',
      description: 'Read',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
    }
    upstream.enqueue({
      calls: [
        { name: 'read', args: { path: 'a' } },
        { name: 'read', args: { path: 'b' }, id: 'own-id' },
      ],
    })
    const first = await turn(request({ model: 'gemini-3-flash-preview', tools: [tool] }))
    const calls = first.filter((e) => e.type === 'tool_call') as Extract<
      NeutralEvent,
      { type: 'tool_call' }
    >[]
    deepStrictEqual(
      calls.map((c) => [c.index, c.name, c.arguments]),
      [
        [0, 'read', '{"path":"a"}'],
        [1, 'read', '{"path":"b"}'],
      ],
    )
    strictEqual(calls[1].id, 'own-id')
    deepStrictEqual(first.at(-1), { type: 'done', stop_reason: 'tool_calls' })
    upstream.enqueue((r) => ({
      text: [
        `got ${functionResponsesOf(r.body)
          .map((f) => f.response.output)
          .join(',')}`,
      ],
    }))
    const second = await turn(
      request({
        model: 'gemini-3-flash-preview',
        tools: [tool],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'read' }] },
          {
            role: 'assistant',
            content: calls.map((c) => ({
              type: 'tool_call',
              id: c.id,
              name: c.name,
              arguments: c.arguments,
            })),
          },
          { role: 'tool', tool_call_id: calls[0].id, content: 'A' },
          { role: 'tool', tool_call_id: calls[1].id, content: 'B' },
        ],
      }),
    )
    deepStrictEqual(
      second.filter((e) => e.type === 'text_delta').map((e) => (e as { delta: string }).delta),
      ['got A,B'],
    )
    deepStrictEqual(
      functionCallsOf(upstream.requests[1].body).map((c) => [c.name, c.id, c.thoughtSignature]),
      [
        ['read', undefined, 'skip_thought_signature_validator'],
        ['read', undefined, 'skip_thought_signature_validator'],
      ],
    )
  })

  test('the fake refuses what Vertex refuses: unpaired results, unsigned Gemini 3 calls', async () => {
    const unpaired = await turn(
      request({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'x' }] },
          { role: 'assistant', content: [{ type: 'tool_call', id: 'c', name: 'read', arguments: '{}' }] },
          { role: 'user', content: [{ type: 'text', text: 'no result' }] },
        ],
      }),
    )
    strictEqual(last(unpaired).code, 'upstream_rejected')
    match(
      last(unpaired).message,
      /^HTTP 400: INVALID_ARGUMENT: Please ensure that the number of function response parts/,
    )
    // A body replaying a Gemini 3 call without any signature (what the skip placeholder prevents).
    const replay = request({
      model: 'gemini-3-pro-preview',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'x' }] },
        { role: 'assistant', content: [{ type: 'tool_call', id: 'c', name: 'read', arguments: '{}' }] },
        { role: 'tool', tool_call_id: 'c', content: 'r' },
      ],
    })
    const unsigned = await collect(
      geminiStep(
        () => ({
          url: vertexUrl('p', 'global', 'gemini-3-pro-preview', 'streamGenerateContent', upstream.url),
          headers: { ...geminiHeaders(), authorization: 'Bearer t' },
          body: JSON.stringify(geminiBody(replay, { callSignature: () => undefined })),
        }),
        { signal: AbortSignal.timeout(5000) },
        't',
      ),
    )
    match(last(unsigned).message, /^HTTP 400: INVALID_ARGUMENT: Function call is missing a thought_signature/)
    deepStrictEqual((await turn(replay)).at(-1), { type: 'done', stop_reason: 'stop' })
  })

  test('a whole-answer request goes to generateContent (JSON, no alt=sse) and decodes as the stream does', async () => {
    upstream.enqueue(
      { thoughts: ['Summing up'], text: ['The', ' summary.'] },
      { thoughts: ['Summing up'], text: ['The', ' summary.'] },
    )
    const whole = await turn(request({ whole: true }))
    const streamed = await turn(request())
    const [w, st] = upstream.requests
    strictEqual(w.method_name, 'generateContent')
    strictEqual(w.query, '')
    strictEqual(w.headers.accept, 'application/json')
    strictEqual(st.method_name, 'streamGenerateContent')
    strictEqual(st.query, '?alt=sse')
    deepStrictEqual(w.body, st.body)
    // One JSON answer holds the same parts: text, reasoning and usage alike, whole.
    deepStrictEqual(
      whole.filter((e) => e.type !== 'start').map((e) => e.type),
      ['reasoning_delta', 'text_delta', 'text_delta', 'usage', 'done'],
    )
    const text = (events: NeutralEvent[]) =>
      events.flatMap((e) => (e.type === 'text_delta' ? [e.delta] : [])).join('')
    strictEqual(text(whole), text(streamed))
    deepStrictEqual(whole.at(-1), streamed.at(-1))
  })

  test('structured output goes as responseJsonSchema with responseMimeType, the schema unflattened', async () => {
    const schema = {
      type: 'object',
      properties: { verdict: { enum: ['yes', 'no'] }, why: { $ref: '#/$defs/reason' } },
      required: ['verdict'],
      $defs: { reason: { type: 'string' } },
      anyOf: [{ required: ['why'] }, { required: ['verdict'] }],
    }
    upstream.enqueue({ text: ['{"verdict":"yes"}'] })
    deepStrictEqual((await turn(request({ response_schema: schema }))).at(-1), {
      type: 'done',
      stop_reason: 'stop',
    })
    deepStrictEqual(upstream.requests[0].body.generationConfig, {
      responseMimeType: 'application/json',
      responseJsonSchema: schema,
    })
    // An effort and a schema share generationConfig.
    deepStrictEqual(geminiBody(request({ effort: 'low', response_schema: schema })).generationConfig, {
      thinkingConfig: thinkingConfigFor('gemini-2.5-flash', 'low'),
      responseMimeType: 'application/json',
      responseJsonSchema: schema,
    })
  })

  test('MAX_TOKENS and SAFETY never publish calls; a cut stream is incomplete', async () => {
    upstream.enqueue({ text: ['partial'], calls: [{ name: 'read', args: {} }], finishReason: 'MAX_TOKENS' })
    const limited = await turn()
    ok(!limited.some((e) => e.type === 'tool_call'))
    deepStrictEqual(limited.at(-1), { type: 'done', stop_reason: 'length' })
    upstream.enqueue({ calls: [{ name: 'read', args: {} }], finishReason: 'SAFETY' })
    const filtered = await turn()
    ok(!filtered.some((e) => e.type === 'tool_call'))
    strictEqual(last(filtered).code, 'upstream_blocked')
    upstream.enqueue({ text: ['cut'], calls: [{ name: 'read', args: {} }], mode: 'cut' })
    const cut = await turn()
    ok(!cut.some((e) => e.type === 'tool_call'))
    strictEqual(last(cut).code, 'upstream_incomplete')
  })

  test('a refused token is unauthorized, not retried, and says where credentials come from', async () => {
    upstream.tokens.add('only-this')
    const events = await turn()
    strictEqual(last(events).code, 'upstream_unauthorized')
    match(
      last(events).message,
      /^HTTP 401: UNAUTHENTICATED: Request had invalid authentication credentials\..*; check the application default credentials \(gcloud auth application-default login\)$/,
    )
    strictEqual(upstream.requests.length, 1)
    ok(!last(events).message.includes('ya29.'))
  })

  test('RESOURCE_EXHAUSTED is retried, then rate limited; UNAVAILABLE retried', async () => {
    const exhausted = {
      status: 429,
      errorStatus: 'RESOURCE_EXHAUSTED',
      errorMessage: 'Resource exhausted. Please try again later.',
    }
    upstream.enqueue(exhausted, exhausted, exhausted, exhausted)
    const events = await turn()
    strictEqual(last(events).code, 'upstream_rate_limited')
    strictEqual(
      last(events).message,
      'HTTP 429: RESOURCE_EXHAUSTED: Resource exhausted. Please try again later.',
    )
    strictEqual(upstream.requests.length, 4)
    upstream.reset()
    upstream.enqueue(
      { status: 503, errorStatus: 'UNAVAILABLE', errorMessage: 'overloaded' },
      { text: ['ok'] },
    )
    deepStrictEqual((await turn()).at(-1), { type: 'done', stop_reason: 'stop' })
  })

  test('credentials that cannot be exchanged end the turn before Vertex is called', async () => {
    tokens.refuse = true
    const events = await turn()
    strictEqual(last(events).code, 'upstream_unauthorized')
    match(last(events).message, /refused the application default credentials: invalid_grant/)
    strictEqual(upstream.requests.length, 0)
  })
})

describe('reasoning effort', () => {
  test('no effort sends no thinking setting', () => {
    strictEqual(geminiBody(request()).generationConfig, undefined)
  })

  test('Gemini 2.5 budgets and Gemini 3 levels, as documented', () => {
    deepStrictEqual(thinkingConfigFor('gemini-2.5-pro', 'high'), {
      thinkingBudget: 32_768,
      includeThoughts: true,
    })
    deepStrictEqual(thinkingConfigFor('gemini-2.5-flash', 'minimal'), {
      thinkingBudget: 512,
      includeThoughts: true,
    })
    deepStrictEqual(thinkingConfigFor('gemini-2.5-flash-lite', 'medium'), {
      thinkingBudget: 8_192,
      includeThoughts: true,
    })
    deepStrictEqual(thinkingConfigFor('gemini-3-pro-preview', 'low'), {
      thinkingLevel: 'LOW',
      includeThoughts: true,
    })
    deepStrictEqual(thinkingConfigFor('gemini-3.1-pro-preview', 'medium'), {
      thinkingLevel: 'MEDIUM',
      includeThoughts: true,
    })
    deepStrictEqual(thinkingConfigFor('gemini-3-flash-preview', 'minimal'), {
      thinkingLevel: 'MINIMAL',
      includeThoughts: true,
    })
    deepStrictEqual(thinkingConfigFor('models/gemini-3.7-flash', 'high'), {
      thinkingLevel: 'HIGH',
      includeThoughts: true,
    })
  })

  test('an effort the model does not take, or a model outside the families, fails locally: nothing is sent', async () => {
    for (const [model, effort, pattern] of [
      ['gemini-3-pro-preview', 'medium', /does not take reasoning effort medium; it takes low, high/],
      ['gemini-2.5-flash', 'xhigh', /does not take reasoning effort xhigh/],
      [
        'gemini-2.0-flash',
        'low',
        /takes no reasoning effort \(only gemini-2\.5-\* and gemini-3\* models do\)/,
      ],
    ] as const) {
      const events = await turn(request({ model, effort }))
      deepStrictEqual(events.length, 1)
      strictEqual(last(events).code, 'effort_unsupported')
      match(last(events).message, pattern)
    }
    strictEqual(tokens.requests.length, 0)
    strictEqual(upstream.requests.length, 0)
  })

  test('an effort goes as thinkingConfig', async () => {
    await turn(request({ model: 'gemini-2.5-pro', effort: 'low' }))
    deepStrictEqual(upstream.requests[0].body.generationConfig, {
      thinkingConfig: { thinkingBudget: 2_048, includeThoughts: true },
    })
  })
})
