// Tools, replayed calls and tool results in the request bodies of Chat Completions,
// Responses and the ChatGPT backend, and round trips: a decoded tool-call stream turned
// into history (as the run engine keeps it), plus results, encoded for the next request.
import { deepStrictEqual, strictEqual } from 'node:assert/strict'
import { describe, test } from 'node:test'
import { chatgptBody } from '../../../src/providers/chatgpt/transport.ts'
import { chatBody } from '../../../src/providers/openai-chat/encode.ts'
import { responsesBody } from '../../../src/providers/openai-responses/encode.ts'
import type {
  AssistantPart,
  NeutralEvent,
  NeutralMessage,
  NeutralTool,
  TransportProfile,
} from '../../../src/providers/types.ts'
import { fixture, request, run } from './helpers.ts'

const PROFILE: TransportProfile = {
  endpoint: 'http://h',
  protocol: 'responses',
  model: 'gpt-test',
  api_key: null,
}
const READ: NeutralTool = {
  name: 'read',
  description: 'Read a file',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string' }, offset: { type: 'integer' } },
    required: ['path'],
  },
}
const PNG = { media_type: 'image/png', data: 'iVBORw0KGgo=' } as const
const JPEG = { media_type: 'image/jpeg', data: '/9j/4AAQ' } as const

/** A turn with text, two parallel calls, their results (one with images) and a later question. */
const HISTORY: NeutralMessage[] = [
  { role: 'user', content: [{ type: 'text', text: 'Look at a.png and b.txt' }] },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'two reads' },
      { type: 'text', text: 'Reading both.' },
      { type: 'tool_call', id: 'call_a', name: 'read', arguments: '{"path":"a.png"}' },
      { type: 'tool_call', id: 'call_b', name: 'read', arguments: '' },
    ],
  },
  { role: 'tool', tool_call_id: 'call_a', content: 'a.png: 1x1 PNG', images: [PNG, JPEG] },
  { role: 'tool', tool_call_id: 'call_b', content: 'hello' },
  { role: 'assistant', content: [{ type: 'text', text: 'One pixel; b says hello.' }] },
]

describe('Chat Completions body', () => {
  const body = chatBody(PROFILE, request({ tools: [READ], messages: HISTORY }))

  test('tools as functions with tool_choice auto, and no parallel_tool_calls (some servers refuse it)', () => {
    deepStrictEqual(body.tools, [
      {
        type: 'function',
        function: { name: 'read', description: 'Read a file', parameters: READ.parameters },
      },
    ])
    strictEqual(body.tool_choice, 'auto')
    strictEqual('parallel_tool_calls' in body, false)
  })

  test('calls on the assistant message, results as tool messages in order, their images in a user message after them', () => {
    deepStrictEqual(body.messages, [
      { role: 'user', content: 'Look at a.png and b.txt' },
      {
        role: 'assistant',
        content: 'Reading both.',
        reasoning_content: 'two reads',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'read', arguments: '{"path":"a.png"}' } },
          { id: 'call_b', type: 'function', function: { name: 'read', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: 'a.png: 1x1 PNG' },
      { role: 'tool', tool_call_id: 'call_b', content: 'hello' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'The images returned by tool call call_a:' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
        ],
      },
      { role: 'assistant', content: 'One pixel; b says hello.' },
    ])
  })

  test('calls without text send content null; an image-only result points at the images', () => {
    const messages = chatBody(
      PROFILE,
      request({
        messages: [
          { role: 'assistant', content: [{ type: 'tool_call', id: 'c1', name: 'read', arguments: '{}' }] },
          { role: 'tool', tool_call_id: 'c1', content: '', images: [PNG] },
        ],
      }),
    ).messages as Record<string, unknown>[]
    strictEqual(messages[0].content, null)
    deepStrictEqual(messages[1], {
      role: 'tool',
      tool_call_id: 'c1',
      content: '(the images follow in the next message)',
    })
    strictEqual(messages[2].role, 'user')
  })

  test('no tools: no tool fields', () => {
    const plain = chatBody(PROFILE, request())
    strictEqual('tools' in plain, false)
    strictEqual('tool_choice' in plain, false)
  })
})

describe('Responses body', () => {
  const body = responsesBody(PROFILE, request({ tools: [READ], messages: HISTORY }))

  test('tools are not strict (the API defaults to strict, which refuses optional properties); parallel automatic', () => {
    deepStrictEqual(body.tools, [
      {
        type: 'function',
        name: 'read',
        description: 'Read a file',
        parameters: READ.parameters,
        strict: false,
      },
    ])
    strictEqual(body.tool_choice, 'auto')
    strictEqual(body.parallel_tool_calls, true)
  })

  test('function_call items in order after the text; outputs with images as input parts', () => {
    deepStrictEqual(body.input, [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Look at a.png and b.txt' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Reading both.' }] },
      { type: 'function_call', call_id: 'call_a', name: 'read', arguments: '{"path":"a.png"}' },
      { type: 'function_call', call_id: 'call_b', name: 'read', arguments: '{}' },
      {
        type: 'function_call_output',
        call_id: 'call_a',
        output: [
          { type: 'input_text', text: 'a.png: 1x1 PNG' },
          { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
          { type: 'input_image', image_url: 'data:image/jpeg;base64,/9j/4AAQ', detail: 'auto' },
        ],
      },
      { type: 'function_call_output', call_id: 'call_b', output: 'hello' },
      {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'One pixel; b says hello.' }],
      },
    ])
  })

  test('no tools: no tool fields', () => {
    const plain = responsesBody(PROFILE, request())
    for (const key of ['tools', 'tool_choice', 'parallel_tool_calls']) strictEqual(key in plain, false, key)
  })
})

/** The assistant message the run engine keeps from a decoded turn: parts by index, in order. */
function assistantFrom(events: NeutralEvent[], model: string): NeutralMessage {
  const parts = new Map<number, AssistantPart>()
  for (const e of events) {
    if (e.type === 'text_delta' || e.type === 'reasoning_delta') {
      const kind = e.type === 'text_delta' ? 'text' : 'reasoning'
      const part = parts.get(e.index)
      if (part && part.type === kind) part.text += e.delta
      else parts.set(e.index, { type: kind, text: e.delta })
    } else if (e.type === 'tool_call') {
      parts.set(e.index, { type: 'tool_call', id: e.id, name: e.name, arguments: e.arguments })
    } else if (e.type === 'encrypted_reasoning') {
      const { summary, encrypted_content } = e
      parts.set(e.index, { type: 'encrypted_reasoning', summary, encrypted_content, model })
    }
  }
  const content = [...parts.entries()].sort(([a], [b]) => a - b).map(([, part]) => part)
  return { role: 'assistant', content }
}

describe('replay round trips', () => {
  test('Chat: a recorded parallel-call stream and its results go back in the right shape', async () => {
    const events = await run(fixture('chat-tool-calls.sse'), 'chat_completions', 9)
    const messages: NeutralMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'Weather in Edinburgh, and AAPL?' }] },
      assistantFrom(events, 'gpt-4o'),
      { role: 'tool', tool_call_id: 'call_g4Q1vRbE0CaHGOs5if8mHsBq', content: '12 C, rain' },
      { role: 'tool', tool_call_id: 'call_gWj3HQxZEHnFvyJLEHIiJKBV', content: '231.40' },
    ]
    const body = chatBody(PROFILE, request({ messages }))
    deepStrictEqual((body.messages as unknown[]).slice(1), [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_g4Q1vRbE0CaHGOs5if8mHsBq',
            type: 'function',
            function: {
              name: 'GetWeatherArgs',
              arguments: '{"city": "Edinburgh", "country": "UK", "units": "c"}',
            },
          },
          {
            id: 'call_gWj3HQxZEHnFvyJLEHIiJKBV',
            type: 'function',
            function: { name: 'get_stock_price', arguments: '{"ticker": "AAPL", "exchange": "NASDAQ"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_g4Q1vRbE0CaHGOs5if8mHsBq', content: '12 C, rain' },
      { role: 'tool', tool_call_id: 'call_gWj3HQxZEHnFvyJLEHIiJKBV', content: '231.40' },
    ])
  })

  test('Chat: the reasoning of a thinking model goes back with its calls as reasoning_content (DeepSeek refuses a tool loop without it)', async () => {
    const events = await run(fixture('chat-deepseek-tool-call.sse'), 'chat_completions')
    const thought = events.flatMap((e) => (e.type === 'reasoning_delta' ? [e.delta] : [])).join('')
    strictEqual(thought.startsWith('The user is asking for the weather in San Francisco.'), true, thought)
    const messages: NeutralMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'Weather in SF?' }] },
      assistantFrom(events, 'deepseek-reasoner'),
      { role: 'tool', tool_call_id: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF', content: 'sunny' },
      assistantFrom(
        [
          { type: 'reasoning_delta', index: 0, delta: 'done' },
          { type: 'text_delta', index: 1, delta: 'Sunny.' },
        ],
        'deepseek-reasoner',
      ),
    ]
    const sent = chatBody(PROFILE, request({ messages })).messages as Record<string, unknown>[]
    deepStrictEqual(sent[1], {
      role: 'assistant',
      content: null,
      reasoning_content: thought,
      tool_calls: [
        {
          id: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF',
          type: 'function',
          function: { name: 'weather', arguments: '{"location": "San Francisco"}' },
        },
      ],
    })
    deepStrictEqual(
      sent[3],
      { role: 'assistant', content: 'Sunny.' },
      'an answer without calls carries no reasoning',
    )
  })

  test('Chat: Mistral, which refuses fields it does not know, gets no reasoning_content', () => {
    for (const endpoint of ['https://api.mistral.ai/v1', 'https://mistral.ai']) {
      const sent = chatBody({ ...PROFILE, endpoint }, request({ messages: HISTORY })).messages as Record<
        string,
        unknown
      >[]
      strictEqual('reasoning_content' in sent[1], false, endpoint)
      strictEqual(Array.isArray(sent[1].tool_calls), true)
    }
    const elsewhere = chatBody(
      { ...PROFILE, endpoint: 'https://notmistral.ai.example/v1' },
      request({ messages: HISTORY }),
    )
    strictEqual((elsewhere.messages as Record<string, unknown>[])[1].reasoning_content, 'two reads')
  })

  test('Responses: a recorded function-call stream replays as function_call then function_call_output', async () => {
    const events = await run(fixture('responses-azure-function-call.sse'), 'responses', 11)
    const messages: NeutralMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'Weather in SF?' }] },
      assistantFrom(events, 'gpt-test'),
      { role: 'tool', tool_call_id: 'call_H5DxLSFnsGhiROnUiDHmgyc8', content: 'sunny' },
    ]
    deepStrictEqual(responsesBody(PROFILE, request({ messages })).input, [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in SF?' }] },
      {
        type: 'function_call',
        call_id: 'call_H5DxLSFnsGhiROnUiDHmgyc8',
        name: 'weather',
        arguments: '{"location":"San Francisco"}',
      },
      { type: 'function_call_output', call_id: 'call_H5DxLSFnsGhiROnUiDHmgyc8', output: 'sunny' },
    ])
  })

  test('chatgpt: encrypted reasoning, text and calls interleave in the order the model gave them', async () => {
    const sse = frames([
      { type: 'response.output_item.added', output_index: 0, item: { id: 'rs1', type: 'reasoning' } },
      {
        type: 'response.output_item.done',
        output_index: 0,
        item: { id: 'rs1', type: 'reasoning', summary: [], encrypted_content: 'gAAA-1' },
      },
      {
        type: 'response.output_item.done',
        output_index: 1,
        item: {
          id: 'fc1',
          type: 'function_call',
          call_id: 'call_1',
          name: 'read',
          arguments: '{"path":"a"}',
        },
      },
      {
        type: 'response.output_item.done',
        output_index: 2,
        item: {
          id: 'rs2',
          type: 'reasoning',
          summary: [{ type: 'summary_text', text: 'then b' }],
          encrypted_content: 'gAAA-2',
        },
      },
      {
        type: 'response.output_item.done',
        output_index: 3,
        item: { id: 'm', type: 'message', content: [{ type: 'output_text', text: 'And b:' }] },
      },
      {
        type: 'response.output_item.done',
        output_index: 4,
        item: {
          id: 'fc2',
          type: 'function_call',
          call_id: 'call_2',
          name: 'read',
          arguments: '{"path":"b"}',
        },
      },
      { type: 'response.completed', response: { status: 'completed', output: [] } },
    ])
    const model = 'gpt-5.1-codex'
    const events = await run(sse, 'responses')
    const messages: NeutralMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'read a then b' }] },
      assistantFrom(events, model),
      { role: 'tool', tool_call_id: 'call_1', content: 'A' },
      { role: 'tool', tool_call_id: 'call_2', content: 'B', images: [PNG] },
    ]
    const body = chatgptBody({ ...PROFILE, model }, request({ model, tools: [READ], messages }))
    deepStrictEqual(body.tools, [
      {
        type: 'function',
        name: 'read',
        description: 'Read a file',
        parameters: READ.parameters,
        strict: null,
      },
    ])
    strictEqual(body.tool_choice, 'auto')
    strictEqual(body.parallel_tool_calls, true)
    deepStrictEqual((body.input as unknown[]).slice(1), [
      { type: 'reasoning', summary: [], encrypted_content: 'gAAA-1' },
      { type: 'function_call', call_id: 'call_1', name: 'read', arguments: '{"path":"a"}' },
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'then b' }], encrypted_content: 'gAAA-2' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'And b:' }] },
      { type: 'function_call', call_id: 'call_2', name: 'read', arguments: '{"path":"b"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'A' },
      {
        type: 'function_call_output',
        call_id: 'call_2',
        output: [
          { type: 'input_text', text: 'B' },
          { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
        ],
      },
    ])
  })
})

function frames(objs: unknown[]): string {
  return objs.map((o) => `data: ${JSON.stringify(o)}\n\n`).join('')
}
