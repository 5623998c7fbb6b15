import { deepStrictEqual, strictEqual } from 'node:assert/strict'
import { afterEach, beforeEach, describe, test } from 'node:test'
import { openaiCompatible } from '../../../src/providers/openai-compatible/transport.ts'
import { joinEndpoint } from '../../../src/providers/openai-compatible/url.ts'
import { transportFor } from '../../../src/providers/transports.ts'
import type {
  NeutralEvent,
  NeutralRequest,
  StreamOptions,
  TransportProfile,
} from '../../../src/providers/types.ts'
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

function profile(
  protocol: TransportProfile['protocol'],
  extra: Partial<TransportProfile> = {},
): TransportProfile {
  return { endpoint: fake.url, protocol, model: 'gpt-test', api_key: KEY, ...extra }
}

function stream(p: TransportProfile, opts: Partial<StreamOptions> = {}, req: NeutralRequest = request()) {
  const options: StreamOptions = {
    signal: new AbortController().signal,
    retryDelayMs: () => 1,
    idleTimeoutMs: 2000,
    ...opts,
  }
  return collect(openaiCompatible.stream(p, req, options))
}

const DONE: NeutralEvent = { type: 'done', stop_reason: 'stop' }
const HELLO: NeutralEvent[] = [
  { type: 'start' },
  text(0, 'Hello'),
  text(0, ', '),
  text(0, 'world'),
  text(0, '!'),
  usage(12, 2, null, 4, 16),
  DONE,
]

const RICH = request({
  system: 'Be brief.',
  effort: 'high',
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'What is in this image?' },
        { type: 'image', media_type: 'image/png', data: 'iVBORw0KGgo=' },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'hmm' },
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_call', id: 'call_1', name: 'read_file', arguments: '{"path":"a.png"}' },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'PNG 1x1' },
  ],
  tools: [
    { name: 'read_file', description: 'Read a file', parameters: { type: 'object', required: ['path'] } },
  ],
})

describe('requests on the wire', () => {
  test('Responses: URL, headers and body', async () => {
    deepStrictEqual(await stream(profile('responses', { headers: { 'X-Extra': 'yes' } }), {}, RICH), HELLO)
    const [req] = fake.requests
    strictEqual(req.path, '/v1/responses')
    strictEqual(req.headers.authorization, `Bearer ${KEY}`)
    strictEqual(req.headers.accept, 'text/event-stream')
    strictEqual(req.headers['content-type'], 'application/json')
    strictEqual(req.headers['x-extra'], 'yes')
    deepStrictEqual(req.body, {
      model: 'gpt-test',
      instructions: 'Be brief.',
      input: [
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is in this image?' },
            { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
          ],
        },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Let me look.' }] },
        { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{"path":"a.png"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'PNG 1x1' },
      ],
      stream: true,
      store: false,
      reasoning: { effort: 'high' },
      tools: [
        {
          type: 'function',
          name: 'read_file',
          description: 'Read a file',
          parameters: { type: 'object', required: ['path'] },
          strict: false,
        },
      ],
      tool_choice: 'auto',
      parallel_tool_calls: true,
      prompt_cache_key: RICH.session_id,
    })
  })

  test('Chat Completions: URL, body, reasoning and a tool call back', async () => {
    fake.enqueue({
      reasoning: ['Thinking'],
      text: ['Sure.'],
      toolCall: { id: 'call_9', name: 'read_file', arguments: ['{"path":', '"b"}'] },
      usage: { input: 30, output: 7 },
    })
    deepStrictEqual(await stream(profile('chat_completions'), {}, RICH), [
      { type: 'start' },
      { type: 'reasoning_delta', index: 0, delta: 'Thinking' },
      text(1, 'Sure.'),
      { type: 'tool_call', index: 2, id: 'call_9', name: 'read_file', arguments: '{"path":"b"}' },
      usage(30, 0, null, 7, 37),
      { type: 'done', stop_reason: 'tool_calls' },
    ])
    const [req] = fake.requests
    strictEqual(req.path, '/v1/chat/completions')
    deepStrictEqual(req.body, {
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this image?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
        {
          role: 'assistant',
          content: 'Let me look.',
          reasoning_content: 'hmm',
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'read_file', arguments: '{"path":"a.png"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'PNG 1x1' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      reasoning_effort: 'high',
      tools: [
        {
          type: 'function',
          function: {
            name: 'read_file',
            description: 'Read a file',
            parameters: { type: 'object', required: ['path'] },
          },
        },
      ],
      tool_choice: 'auto',
    })
  })

  test('no key: no Authorization; an endpoint ending in /v1 is not doubled; a plain user text is a string', async () => {
    deepStrictEqual(
      await stream(profile('chat_completions', { api_key: null, endpoint: `${fake.url}/v1/` })),
      HELLO,
    )
    const [req] = fake.requests
    strictEqual(req.path, '/v1/chat/completions')
    strictEqual(req.headers.authorization, undefined)
    deepStrictEqual(req.body.messages, [{ role: 'user', content: 'Hi there' }])
    strictEqual('reasoning_effort' in req.body, false)
    strictEqual('tools' in req.body, false)
  })

  test('joinEndpoint', () => {
    const cases: [string, string][] = [
      ['http://h:1', 'http://h:1/v1/responses'],
      ['http://h:1/', 'http://h:1/v1/responses'],
      ['http://h:1/v1', 'http://h:1/v1/responses'],
      ['https://openrouter.ai/api/v1/', 'https://openrouter.ai/api/v1/responses'],
      ['https://g.example/v1beta/openai', 'https://g.example/v1beta/openai/responses'],
      ['https://z.example/api/paas/v4', 'https://z.example/api/paas/v4/responses'],
      ['http://h/proxy', 'http://h/proxy/v1/responses'],
      ['http://h/v1/responses', 'http://h/v1/responses'],
      [
        'https://a.example/openai/v1?api-version=preview',
        'https://a.example/openai/v1/responses?api-version=preview',
      ],
    ]
    for (const [endpoint, url] of cases) strictEqual(joinEndpoint(endpoint, '/responses'), url)
    strictEqual(joinEndpoint('http://h:1', '/chat/completions'), 'http://h:1/v1/chat/completions')
  })

  test('the registry maps openai-compatible (and a profile without extension) to this transport', () => {
    strictEqual(transportFor('openai-compatible'), openaiCompatible)
    strictEqual(transportFor(undefined), openaiCompatible)
    strictEqual(transportFor('nope'), null)
  })

  test('a length stop and an endpoint that is not a URL', async () => {
    fake.enqueue({ text: ['cut'], finish: 'length', usage: null })
    deepStrictEqual(await stream(profile('responses')), [
      { type: 'start' },
      text(0, 'cut'),
      { type: 'done', stop_reason: 'length' },
    ])
    const events = await stream(profile('responses', { endpoint: 'not a url' }))
    strictEqual(events.length, 1)
    strictEqual(events[0].type === 'error' && events[0].code, 'upstream_rejected')
  })
})
