// Tool calls decoded from both wires: recorded streams of real servers (fixtures/README.md
// names their sources) and hand-written edge cases. Whole event arrays are compared, also
// with the bytes cut into 1-byte chunks and with CRLF event ends.
import { deepStrictEqual, match, strictEqual } from 'node:assert/strict'
import { describe, test } from 'node:test'
import { decode } from '../../../src/providers/openai-compatible/transport.ts'
import type { NeutralEvent } from '../../../src/providers/types.ts'
import { bytes, collect, fixture, frames, run, text, usage } from './helpers.ts'

const call = (index: number, id: string, name: string, args: string): NeutralEvent => ({
  type: 'tool_call',
  index,
  id,
  name,
  arguments: args,
})
const done = (stop_reason: 'stop' | 'tool_calls' | 'length' | 'other'): NeutralEvent => ({
  type: 'done',
  stop_reason,
})
const only = (events: NeutralEvent[], ...types: NeutralEvent['type'][]) =>
  events.filter((e) => types.includes(e.type))
const crlf = (sse: string) => sse.replaceAll('\n', '\r\n')

/** The same events whole, in 1-byte chunks and with CRLF line ends. */
async function decodesAs(sse: string, protocol: 'chat_completions' | 'responses', expected: NeutralEvent[]) {
  deepStrictEqual(await run(sse, protocol), expected)
  deepStrictEqual(await run(sse, protocol, 1), expected)
  deepStrictEqual(await run(crlf(sse), protocol, 3), expected)
}

describe('recorded tool-call streams', () => {
  test('an Anthropic model behind a compatible endpoint: the call opens at index 1, two empty argument pieces', async () => {
    await decodesAs(fixture('chat-anthropic-compat-tool-call.sse'), 'chat_completions', [
      text(0, 'Reading'),
      text(0, ' it.'),
      call(1, 'toolu_sanitized', 'read_file', '{"path": "a.txt"}'),
      done('tool_calls'),
    ])
  })

  test('Qwen: later pieces repeat an empty id and type; a trailing empty piece; no [DONE]', async () => {
    await decodesAs(fixture('chat-qwen-tool-call.sse'), 'chat_completions', [
      call(0, 'call_eee11723464a4b9eb8cee71d', 'weather', '{"location": "San Francisco"}'),
      usage(295, 0, null, 22, 317),
      done('tool_calls'),
    ])
  })

  test('Grok: reasoning, then the whole call in one piece; chunks without finish_reason', async () => {
    const events = await run(fixture('chat-xai-tool-call.sse'), 'chat_completions')
    strictEqual(only(events, 'reasoning_delta').length, 227)
    deepStrictEqual(only(events, 'tool_call', 'usage', 'done', 'error'), [
      call(1, 'call_79382389', 'weather', '{"location":"San Francisco"}'),
      usage(307, 306, null, 26, 560),
      done('tool_calls'),
    ])
  })

  test('DeepSeek reasoner: reasoning, arguments in pieces, usage on the finish chunk', async () => {
    const events = await run(fixture('chat-deepseek-tool-call.sse'), 'chat_completions', 5)
    strictEqual(only(events, 'reasoning_delta').length, 39)
    deepStrictEqual(only(events, 'tool_call', 'usage', 'done', 'error'), [
      call(1, 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF', 'weather', '{"location": "San Francisco"}'),
      usage(339, 320, null, 83, 422),
      done('tool_calls'),
    ])
  })

  test('Azure Responses: argument deltas, .done and item.done agree', async () => {
    await decodesAs(fixture('responses-azure-function-call.sse'), 'responses', [
      call(0, 'call_H5DxLSFnsGhiROnUiDHmgyc8', 'weather', '{"location":"San Francisco"}'),
      usage(45, 0, null, 24, 69),
      done('tool_calls'),
    ])
  })
})

const chunk = (delta: Record<string, unknown>, finish_reason: string | null = null) => ({
  id: 'c',
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta, finish_reason }],
})
const piece = (index: number | undefined, fields: Record<string, unknown>) =>
  chunk({ tool_calls: [{ index, ...fields }] })

describe('Chat Completions tool calls', () => {
  test('parallel calls interleaved by index come out whole, in the order they opened', async () => {
    const sse = frames(
      chunk({ role: 'assistant', content: null }),
      piece(0, { id: 'call_a', type: 'function', function: { name: 'read', arguments: '' } }),
      piece(1, { id: 'call_b', type: 'function', function: { name: 'grep', arguments: '' } }),
      piece(0, { function: { arguments: '{"path":' } }),
      piece(1, { function: { arguments: '{"pattern":' } }),
      piece(1, { function: { arguments: '"x"}' } }),
      piece(0, { function: { arguments: '"a.txt"}' } }),
      chunk({}, 'tool_calls'),
      '[DONE]',
    )
    await decodesAs(sse, 'chat_completions', [
      call(0, 'call_a', 'read', '{"path":"a.txt"}'),
      call(1, 'call_b', 'grep', '{"pattern":"x"}'),
      done('tool_calls'),
    ])
  })

  test('whole calls all at index 0 (or without index) are told apart by their ids', async () => {
    const sse = frames(
      piece(0, { id: 'call_a', function: { name: 'read', arguments: '{"path":"a"}' } }),
      piece(0, { id: 'call_b', function: { name: 'read', arguments: '{"path":"b"}' } }),
      piece(undefined, { id: 'call_c', function: { name: 'read', arguments: '{"path":"c"}' } }),
      chunk({}, 'tool_calls'),
      '[DONE]',
    )
    await decodesAs(sse, 'chat_completions', [
      call(0, 'call_a', 'read', '{"path":"a"}'),
      call(1, 'call_b', 'read', '{"path":"b"}'),
      call(2, 'call_c', 'read', '{"path":"c"}'),
      done('tool_calls'),
    ])
  })

  test('an id and name repeated on every piece make one call; a missing type is fine', async () => {
    const sse = frames(
      piece(0, { id: 'call_a', function: { name: 'edit', arguments: '{"old":' } }),
      piece(0, { id: 'call_a', function: { name: 'edit', arguments: '"x","new":' } }),
      piece(0, { id: 'call_a', function: { name: 'edit', arguments: '"y"}' } }),
      chunk({}, 'tool_calls'),
    )
    await decodesAs(sse, 'chat_completions', [
      call(0, 'call_a', 'edit', '{"old":"x","new":"y"}'),
      done('tool_calls'),
    ])
  })

  test('padded, empty and object arguments are tidied; padded data lines parse', async () => {
    const sse =
      frames(
        piece(0, { id: 'call_a', function: { name: 'read', arguments: '\n  {"path": "a"}\n' } }),
        piece(1, { id: 'call_b', function: { name: 'list', arguments: '' } }),
        piece(2, { id: 'call_c', function: { name: 'glob', arguments: { pattern: '*.ts' } } }),
      ) + `data:    ${JSON.stringify(chunk({}, 'tool_calls'))}   \n\ndata: [DONE]\n\n`
    await decodesAs(sse, 'chat_completions', [
      call(0, 'call_a', 'read', '{"path": "a"}'),
      call(1, 'call_b', 'list', '{}'),
      call(2, 'call_c', 'glob', '{"pattern":"*.ts"}'),
      done('tool_calls'),
    ])
  })

  test('argument pieces a server sends after the finish make no nameless call', async () => {
    const sse = frames(
      piece(0, { id: 'call_a', function: { name: 'read', arguments: '{"path":"a"}' } }),
      chunk({}, 'tool_calls'),
      piece(0, { function: { arguments: '' } }),
      '[DONE]',
    )
    deepStrictEqual(await run(sse, 'chat_completions'), [
      call(0, 'call_a', 'read', '{"path":"a"}'),
      done('tool_calls'),
    ])
  })

  test('a call the model made without a name is kept, its name empty (it gets an error result)', async () => {
    const chat = frames(
      piece(0, { id: 'call_x', type: 'function', function: { name: '', arguments: '{"path":' } }),
      piece(0, { function: { arguments: '"a"}' } }),
      chunk({}, 'tool_calls'),
      '[DONE]',
    )
    deepStrictEqual(await run(chat, 'chat_completions'), [
      call(0, 'call_x', '', '{"path":"a"}'),
      done('tool_calls'),
    ])
  })

  test('without a finish_reason, [DONE] after calls means tool_calls, after nameless pieces stop', async () => {
    const named = frames(piece(0, { id: 'call_a', function: { name: 'list', arguments: '{}' } }), '[DONE]')
    deepStrictEqual(await run(named, 'chat_completions'), [
      call(0, 'call_a', 'list', '{}'),
      done('tool_calls'),
    ])
    const nameless = frames(chunk({ content: 'hi' }), piece(0, { function: { arguments: '' } }), '[DONE]')
    deepStrictEqual(await run(nameless, 'chat_completions'), [text(0, 'hi'), done('stop')])
  })

  test('a server that says `stop` after calls reports tool_calls', async () => {
    const sse = frames(
      piece(0, { id: 'call_a', function: { name: 'read', arguments: '{}' } }),
      chunk({}, 'stop'),
      '[DONE]',
    )
    deepStrictEqual(await run(sse, 'chat_completions'), [call(0, 'call_a', 'read', '{}'), done('tool_calls')])
  })

  test('a length finish drops the call cut in half and keeps the whole one', async () => {
    const sse = frames(
      piece(0, { id: 'call_a', function: { name: 'read', arguments: '{"path":"a"}' } }),
      piece(1, { id: 'call_b', function: { name: 'write', arguments: '{"path":"b","content":"lo' } }),
      chunk({}, 'length'),
      '[DONE]',
    )
    deepStrictEqual(await run(sse, 'chat_completions'), [
      call(0, 'call_a', 'read', '{"path":"a"}'),
      done('length'),
    ])
  })

  test('a call without an id gets one the strictest servers accept on replay', async () => {
    const events = await run(
      frames(piece(0, { function: { name: 'list', arguments: '{}' } }), chunk({}, 'tool_calls')),
      'chat_completions',
    )
    const [first] = events
    strictEqual(first.type, 'tool_call')
    if (first.type === 'tool_call') match(first.id, /^[a-zA-Z0-9]{9}$/)
    deepStrictEqual(events[1], done('tool_calls'))
  })

  test('a whole message (a server that ignored stream: true) carries its calls', async () => {
    const message = {
      id: 'r',
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_a', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } },
              { id: 'call_b', type: 'function', function: { name: 'read', arguments: '{"path":"b"}' } },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 },
    }
    deepStrictEqual(await run(frames(message, '[DONE]'), 'chat_completions'), [
      call(0, 'call_a', 'read', '{"path":"a"}'),
      call(1, 'call_b', 'read', '{"path":"b"}'),
      usage(5, null, null, 6, 11),
      done('tool_calls'),
    ])
  })
})

const created = { type: 'response.created', response: { id: 'r', status: 'in_progress', output: [] } }
const completed = (output: unknown[] = [], extra: Record<string, unknown> = {}) => ({
  type: 'response.completed',
  response: { id: 'r', status: 'completed', output, ...extra },
})
const added = (output_index: number, id: string, name: string, args = '') => ({
  type: 'response.output_item.added',
  output_index,
  item: { id, type: 'function_call', status: 'in_progress', call_id: `call_${id}`, name, arguments: args },
})
const argsDelta = (output_index: number, item_id: string, delta: string) => ({
  type: 'response.function_call_arguments.delta',
  output_index,
  item_id,
  delta,
})
const argsDone = (output_index: number, item_id: string, args: string) => ({
  type: 'response.function_call_arguments.done',
  output_index,
  item_id,
  arguments: args,
})
const itemDone = (output_index: number, id: string, name: string, args: string) => ({
  type: 'response.output_item.done',
  output_index,
  item: { id, type: 'function_call', status: 'completed', call_id: `call_${id}`, name, arguments: args },
})

describe('Responses function calls', () => {
  test('reasoning, text and parallel calls keep their order and indexes', async () => {
    const sse = frames(
      created,
      {
        type: 'response.output_item.added',
        output_index: 0,
        item: { id: 'rs', type: 'reasoning', summary: [] },
      },
      { type: 'response.reasoning_summary_text.delta', output_index: 0, item_id: 'rs', delta: 'plan' },
      {
        type: 'response.output_item.added',
        output_index: 1,
        item: { id: 'm', type: 'message', content: [] },
      },
      {
        type: 'response.output_text.delta',
        output_index: 1,
        item_id: 'm',
        content_index: 0,
        delta: 'Reading.',
      },
      added(2, 'a', 'read'),
      added(3, 'b', 'read'),
      argsDelta(2, 'a', '{"path":'),
      argsDelta(3, 'b', '{"path":"b"}'),
      argsDelta(2, 'a', '"a"}'),
      itemDone(3, 'b', 'read', '{"path":"b"}'),
      itemDone(2, 'a', 'read', '{"path":"a"}'),
      completed(),
    )
    await decodesAs(sse, 'responses', [
      { type: 'reasoning_delta', index: 0, delta: 'plan' },
      text(1, 'Reading.'),
      call(3, 'call_b', 'read', '{"path":"b"}'),
      call(2, 'call_a', 'read', '{"path":"a"}'),
      done('tool_calls'),
    ])
  })

  test('the final arguments of .done and item.done win over the deltas; an empty final keeps what came', async () => {
    const sse = frames(
      created,
      added(0, 'a', 'read'),
      argsDelta(0, 'a', '{"path":"wrong"'),
      argsDone(0, 'a', '{"path":"right"}'),
      itemDone(0, 'a', 'read', ''),
      added(1, 'b', 'grep'),
      argsDelta(1, 'b', '{"pattern":"x"}'),
      argsDone(1, 'b', ''),
      itemDone(1, 'b', 'grep', '{"pattern":"y"}'),
      completed(),
    )
    await decodesAs(sse, 'responses', [
      call(0, 'call_a', 'read', '{"path":"right"}'),
      call(1, 'call_b', 'grep', '{"pattern":"y"}'),
      done('tool_calls'),
    ])
  })

  test('a call that only arrives whole (item.done), or whole in output_item.added, is emitted once', async () => {
    const sse = frames(
      created,
      itemDone(0, 'a', 'list', ''),
      added(1, 'b', 'read', '{"path":"b"}'),
      completed([]),
    )
    await decodesAs(sse, 'responses', [
      call(0, 'call_a', 'list', '{}'),
      call(1, 'call_b', 'read', '{"path":"b"}'),
      done('tool_calls'),
    ])
  })

  test('calls reported only in the final response (nothing streamed) are emitted from it', async () => {
    const output = [
      { id: 'a', type: 'function_call', call_id: 'call_a', name: 'read', arguments: '{"path":"a"}' },
      { id: 'b', type: 'function_call', call_id: 'call_b', name: 'read', arguments: '{"path":"b"}' },
    ]
    deepStrictEqual(await run(frames(completed(output)), 'responses'), [
      call(0, 'call_a', 'read', '{"path":"a"}'),
      call(1, 'call_b', 'read', '{"path":"b"}'),
      done('tool_calls'),
    ])
  })

  test('a cut response (max_output_tokens) drops the call whose item never closed', async () => {
    const sse = frames(
      created,
      added(0, 'a', 'read'),
      argsDelta(0, 'a', '{"path":"a"}'),
      itemDone(0, 'a', 'read', '{"path":"a"}'),
      added(1, 'b', 'write'),
      argsDelta(1, 'b', '{"path":"b","content":"lo'),
      {
        type: 'response.incomplete',
        response: { id: 'r', status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
      },
    )
    deepStrictEqual(await run(sse, 'responses'), [call(0, 'call_a', 'read', '{"path":"a"}'), done('length')])
  })

  test('a completed response emits a call whose item never closed, with what streamed', async () => {
    const sse = frames(created, added(0, 'a', 'read'), argsDelta(0, 'a', ' {"path":"a"} '), completed())
    deepStrictEqual(await run(sse, 'responses'), [
      call(0, 'call_a', 'read', '{"path":"a"}'),
      done('tool_calls'),
    ])
  })
})

describe("a model's parallel wrapper", () => {
  const declared = ['weather', 'cityAttractions']
  const unwrapped = (protocol: 'responses' | 'chat_completions', sse: string, tools = declared) =>
    collect(decode(bytes(sse, 7), protocol, tools))

  test('Responses: a `parallel` call over declared tools becomes the calls it wraps', async () => {
    deepStrictEqual(await unwrapped('responses', fixture('responses-parallel-wrapper.sse')), [
      call(0, 'call_parallel_0', 'weather', '{"location":"San Francisco"}'),
      call(1, 'call_parallel_1', 'cityAttractions', '{"city":"Rome"}'),
      usage(34, 0, null, 28, 62),
      done('tool_calls'),
    ])
  })

  test('it stays as it is when a tool of that name was offered, or a recipient was not', async () => {
    const wrapper = (events: NeutralEvent[]) =>
      events.filter((e) => e.type === 'tool_call').map((e) => e.type === 'tool_call' && e.name)
    const sse = fixture('responses-parallel-wrapper.sse')
    deepStrictEqual(wrapper(await unwrapped('responses', sse, [...declared, 'parallel'])), ['parallel'])
    deepStrictEqual(wrapper(await unwrapped('responses', sse, ['weather'])), ['parallel'])
    deepStrictEqual(wrapper(await unwrapped('responses', sse, [])), ['parallel'])
  })

  test('Chat: `multi_tool_use.parallel` unwraps, and the calls after it keep their own indexes', async () => {
    const args = JSON.stringify({
      tool_uses: [
        { recipient_name: 'functions.weather', parameters: { location: 'Oslo' } },
        { recipient_name: 'functions.weather', parameters: { location: 'Bergen' } },
      ],
    })
    const sse = frames(
      chunk({ content: 'Checking.' }),
      piece(0, { id: 'call_w', function: { name: 'multi_tool_use.parallel', arguments: args.slice(0, 20) } }),
      piece(0, { function: { arguments: args.slice(20) } }),
      piece(1, { id: 'call_r', function: { name: 'cityAttractions', arguments: '{"city":"Rome"}' } }),
      chunk({}, 'tool_calls'),
      '[DONE]',
    )
    deepStrictEqual(await unwrapped('chat_completions', sse), [
      text(0, 'Checking.'),
      call(1, 'call_w_0', 'weather', '{"location":"Oslo"}'),
      call(3, 'call_w_1', 'weather', '{"location":"Bergen"}'),
      call(2, 'call_r', 'cityAttractions', '{"city":"Rome"}'),
      done('tool_calls'),
    ])
  })
})
