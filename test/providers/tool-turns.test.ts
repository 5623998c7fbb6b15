// A tool round trip over real sockets, in every wire: the scripted fake asks for a tool
// (arguments streamed in pieces, or parallel calls), the transport decodes the call, the
// next request carries the call and its result back, and the fake answers from what it
// received. Shows the fake's tool-script API working against the real transports.
import { deepStrictEqual, strictEqual } from 'node:assert/strict'
import { afterEach, beforeEach, describe, test } from 'node:test'
import { chatgpt } from '../../src/providers/chatgpt/transport.ts'
import { openaiCompatible } from '../../src/providers/openai-compatible/transport.ts'
import type {
  AssistantPart,
  NeutralEvent,
  NeutralMessage,
  NeutralRequest,
  NeutralTool,
  Transport,
  TransportProfile,
} from '../../src/providers/types.ts'
import { FakeChatgptBackend } from '../fakes/chatgpt-backend.ts'
import { FakeOpenAIUpstream, type RecordedRequest } from '../fakes/openai-upstream.ts'
import { answer, callTools, toolCallsOf, toolResultsOf } from '../fakes/tool-script.ts'
import { collect, request } from './openai-compatible/helpers.ts'

const READ: NeutralTool = {
  name: 'read',
  description: 'Read a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
}

interface Wire {
  name: string
  transport: Transport
  start(): Promise<{ fake: FakeOpenAIUpstream | FakeChatgptBackend; profile: TransportProfile }>
}

const WIRES: Wire[] = [
  ...(['responses', 'chat_completions'] as const).map((protocol) => ({
    name: `openai-compatible ${protocol}`,
    transport: openaiCompatible,
    async start() {
      const fake = await FakeOpenAIUpstream.start()
      return { fake, profile: { endpoint: fake.url, protocol, model: 'gpt-test', api_key: 'sk-test' } }
    },
  })),
  {
    name: 'chatgpt',
    transport: chatgpt,
    async start() {
      const fake = await FakeChatgptBackend.start()
      const seat = { accountId: 'ws', userId: 'u', email: 'u@example.com' }
      const token = String(fake.issue(seat).access_token)
      return {
        fake,
        profile: { endpoint: fake.backendUrl, protocol: 'responses', model: 'gpt-5.1-codex', api_key: token },
      }
    },
  },
]

function turn(transport: Transport, profile: TransportProfile, req: NeutralRequest): Promise<NeutralEvent[]> {
  const opts = { signal: new AbortController().signal, retryDelayMs: () => 1, idleTimeoutMs: 2000 }
  return collect(transport.stream(profile, req, opts))
}

/** The assistant message of a turn: its text and its calls, in order. */
function assistantOf(events: NeutralEvent[]): NeutralMessage {
  const content: AssistantPart[] = []
  for (const e of events) {
    if (e.type === 'text_delta') {
      const last = content.at(-1)
      if (last?.type === 'text') last.text += e.delta
      else content.push({ type: 'text', text: e.delta })
    } else if (e.type === 'tool_call') {
      content.push({ type: 'tool_call', id: e.id, name: e.name, arguments: e.arguments })
    }
  }
  return { role: 'assistant', content }
}

const callsIn = (events: NeutralEvent[]) => events.filter((e) => e.type === 'tool_call')
const doneOf = (events: NeutralEvent[]) => events.at(-1)

for (const wire of WIRES) {
  describe(`tool round trip: ${wire.name}`, () => {
    let fake: FakeOpenAIUpstream | FakeChatgptBackend
    let profile: TransportProfile
    beforeEach(async () => {
      ;({ fake, profile } = await wire.start())
    })
    afterEach(async () => {
      await fake.close()
    })

    test('a call streamed in pieces, its result sent back, then the answer made from it', async () => {
      const first = callTools(
        { name: 'read', arguments: { path: 'notes.txt' }, pieces: 4 },
        { text: 'Let me look.' },
      )
      strictEqual(first.toolCalls[0].arguments.length, 4)
      fake.enqueue(first, (req: RecordedRequest) => answer(`It says: ${toolResultsOf(req.body)[0]?.output}`))
      const id = first.toolCalls[0].id

      const user: NeutralMessage = {
        role: 'user',
        content: [{ type: 'text', text: 'What is in notes.txt?' }],
      }
      const one = await turn(wire.transport, profile, request({ tools: [READ], messages: [user] }))
      deepStrictEqual(callsIn(one), [
        { type: 'tool_call', index: 1, id, name: 'read', arguments: '{"path":"notes.txt"}' },
      ])
      deepStrictEqual(doneOf(one), { type: 'done', stop_reason: 'tool_calls' })

      const history: NeutralMessage[] = [
        user,
        assistantOf(one),
        { role: 'tool', tool_call_id: id, content: 'buy milk' },
      ]
      const two = await turn(wire.transport, profile, request({ tools: [READ], messages: history }))
      const said = two.flatMap((e) => (e.type === 'text_delta' ? [e.delta] : [])).join('')
      strictEqual(said, 'It says: buy milk')
      deepStrictEqual(doneOf(two), { type: 'done', stop_reason: 'stop' })

      strictEqual(fake.requests.length, 2)
      const sent = fake.requests[1].body
      deepStrictEqual(toolCallsOf(sent), [{ call_id: id, name: 'read', arguments: '{"path":"notes.txt"}' }])
      deepStrictEqual(toolResultsOf(sent), [{ call_id: id, output: 'buy milk', images: [] }])
      deepStrictEqual(toolResultsOf(fake.requests[0].body), [])
    })

    test('parallel calls come back in order and their results (one with an image) go back in that order', async () => {
      const reply = callTools(
        { name: 'read', arguments: { path: 'a.png' } },
        { name: 'read', arguments: { path: 'b.txt' }, pieces: 1 },
        { name: 'list', arguments: '' },
      )
      fake.enqueue(reply, answer('Done.'))
      const [a, b, c] = reply.toolCalls.map((call) => call.id)
      const user: NeutralMessage = { role: 'user', content: [{ type: 'text', text: 'go' }] }
      const one = await turn(wire.transport, profile, request({ tools: [READ], messages: [user] }))
      deepStrictEqual(
        callsIn(one).map((e) => e.type === 'tool_call' && [e.id, e.name, e.arguments]),
        [
          [a, 'read', '{"path":"a.png"}'],
          [b, 'read', '{"path":"b.txt"}'],
          [c, 'list', '{}'],
        ],
      )
      const png = { media_type: 'image/png', data: 'iVBORw0KGgo=' } as const
      const history: NeutralMessage[] = [
        user,
        assistantOf(one),
        { role: 'tool', tool_call_id: a, content: 'an image', images: [png] },
        { role: 'tool', tool_call_id: b, content: 'bee' },
        { role: 'tool', tool_call_id: c, content: 'a.png b.txt' },
      ]
      await turn(wire.transport, profile, request({ tools: [READ], messages: history }))
      const sent = fake.requests[1].body
      deepStrictEqual(
        toolCallsOf(sent).map((x) => x.call_id),
        [a, b, c],
      )
      deepStrictEqual(toolResultsOf(sent), [
        { call_id: a, output: 'an image', images: [png] },
        { call_id: b, output: 'bee', images: [] },
        { call_id: c, output: 'a.png b.txt', images: [] },
      ])
    })

    test("a model's parallel wrapper over the offered tools arrives as the calls it wraps", async () => {
      const uses = [
        { recipient_name: 'functions.read', parameters: { path: 'a' } },
        { recipient_name: 'functions.read', parameters: { path: 'b' } },
      ]
      const reply = callTools({ name: 'parallel', arguments: { tool_uses: uses } })
      const id = reply.toolCalls[0].id
      fake.enqueue(reply, answer('ok'))
      const user: NeutralMessage = { role: 'user', content: [{ type: 'text', text: 'go' }] }
      const one = await turn(wire.transport, profile, request({ tools: [READ], messages: [user] }))
      deepStrictEqual(callsIn(one), [
        { type: 'tool_call', index: 0, id: `${id}_0`, name: 'read', arguments: '{"path":"a"}' },
        { type: 'tool_call', index: 1, id: `${id}_1`, name: 'read', arguments: '{"path":"b"}' },
      ])
      const history: NeutralMessage[] = [
        user,
        assistantOf(one),
        { role: 'tool', tool_call_id: `${id}_0`, content: 'A' },
        { role: 'tool', tool_call_id: `${id}_1`, content: 'B' },
      ]
      deepStrictEqual(
        doneOf(await turn(wire.transport, profile, request({ tools: [READ], messages: history }))),
        {
          type: 'done',
          stop_reason: 'stop',
        },
      )
    })

    test('a call replayed without its result is refused, as upstream (the fake checks the pairing)', async () => {
      const history: NeutralMessage[] = [
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        { role: 'assistant', content: [{ type: 'tool_call', id: 'call_x', name: 'read', arguments: '{}' }] },
        { role: 'user', content: [{ type: 'text', text: 'never mind' }] },
      ]
      const events = await turn(wire.transport, profile, request({ tools: [READ], messages: history }))
      const last = events.at(-1)
      strictEqual(last?.type, 'error')
      if (last?.type !== 'error') return
      strictEqual(last.code, 'upstream_rejected')
      strictEqual(last.status, 400)
      const expected = wire.name.endsWith('chat_completions')
        ? "must be followed by tool messages responding to each 'tool_call_id'"
        : 'No tool output found for function call call_x.'
      strictEqual(last.message.includes(expected), true, last.message)
    })
  })
}

describe('a whole Responses answer from a server that ignored stream: true', () => {
  test('its function calls are decoded like the streamed ones', async () => {
    const body = {
      id: 'resp_1',
      object: 'response',
      status: 'completed',
      output: [
        { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'read', arguments: '{"path":"a"}' },
      ],
      usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
    }
    const fetch: typeof globalThis.fetch = async () =>
      new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } })
    const profile: TransportProfile = {
      endpoint: 'http://h',
      protocol: 'responses',
      model: 'm',
      api_key: null,
    }
    const events = await collect(
      openaiCompatible.stream(profile, request({ tools: [READ] }), {
        signal: new AbortController().signal,
        fetch,
      }),
    )
    deepStrictEqual(events, [
      { type: 'start' },
      { type: 'tool_call', index: 0, id: 'call_1', name: 'read', arguments: '{"path":"a"}' },
      {
        type: 'usage',
        usage: {
          prompt_tokens: 3,
          cached_prompt_tokens: null,
          cache_write_tokens: null,
          completion_tokens: 4,
          total_tokens: 7,
        },
      },
      { type: 'done', stop_reason: 'tool_calls' },
    ])
  })
})
