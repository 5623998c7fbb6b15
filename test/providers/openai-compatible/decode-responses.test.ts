import { deepStrictEqual } from 'node:assert/strict'
import { describe, test } from 'node:test'
import { decode } from '../../../src/providers/openai-compatible/transport.ts'
import { UpstreamFault } from '../../../src/providers/shared/errors.ts'
import { collect, frames, run, text, usage } from './helpers.ts'

const created = { type: 'response.created', response: { id: 'r', status: 'in_progress', output: [] } }
const completed = (extra: Record<string, unknown> = {}) => ({
  type: 'response.completed',
  response: { id: 'r', status: 'completed', output: [], ...extra },
})
const message = (output_index: number, id: string) => ({
  type: 'response.output_item.added',
  output_index,
  item: { id, type: 'message', role: 'assistant', content: [] },
})

describe('Responses edge cases', () => {
  test('an event without output_index is placed by item_id; an unknown item opens a new index', async () => {
    const sse = frames(
      created,
      message(0, 'm1'),
      message(1, 'm2'),
      { type: 'response.output_text.delta', item_id: 'm2', delta: 'second' },
      { type: 'response.output_text.delta', item_id: 'm1', content_index: 0, delta: 'first' },
      { type: 'response.output_text.delta', item_id: 'm3', delta: 'third' },
      completed(),
    )
    deepStrictEqual(await run(sse, 'responses'), [
      text(1, 'second'),
      text(0, 'first'),
      text(2, 'third'),
      { type: 'done', stop_reason: 'stop' },
    ])
  })

  test('interleaved items keep apart; final arguments come from output_item.done', async () => {
    const call = (output_index: number, id: string, name: string) => ({
      type: 'response.output_item.added',
      output_index,
      item: { id, type: 'function_call', call_id: `call_${id}`, name, arguments: '' },
    })
    const args = (output_index: number, delta: string) => ({
      type: 'response.function_call_arguments.delta',
      output_index,
      delta,
    })
    const sse = frames(
      created,
      call(0, 'a', 'alpha'),
      call(1, 'b', 'beta'),
      message(2, 'm'),
      args(0, '{"x":'),
      args(1, '{"y":'),
      { type: 'response.output_text.delta', output_index: 2, content_index: 0, delta: 'hi' },
      args(0, '1}'),
      args(1, '2'),
      {
        type: 'response.output_item.done',
        output_index: 1,
        item: { id: 'b', type: 'function_call', call_id: 'call_b', name: 'beta', arguments: '{"y":2}' },
      },
      { type: 'response.function_call_arguments.done', output_index: 0, arguments: '{"x":1}' },
      completed({ usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 } }),
    )
    deepStrictEqual(await run(sse, 'responses'), [
      text(2, 'hi'),
      { type: 'tool_call', index: 1, id: 'call_b', name: 'beta', arguments: '{"y":2}' },
      { type: 'tool_call', index: 0, id: 'call_a', name: 'alpha', arguments: '{"x":1}' },
      usage(3, null, null, 4, 7),
      { type: 'done', stop_reason: 'tool_calls' },
    ])
  })

  test('reasoning parts: missing content_index is 0; a new summary part starts after a blank line', async () => {
    const reasoning = {
      type: 'response.output_item.added',
      output_index: 0,
      item: { id: 'rs', type: 'reasoning' },
    }
    const sse = frames(
      created,
      reasoning,
      { type: 'response.reasoning_text.delta', output_index: 0, delta: 'a' },
      { type: 'response.reasoning_text.delta', output_index: 0, content_index: 0, delta: 'b' },
      { type: 'response.reasoning_summary_text.delta', output_index: 0, summary_index: 0, delta: 'S0' },
      { type: 'response.reasoning_summary_text.delta', output_index: 0, summary_index: 1, delta: 'S1' },
      completed(),
    )
    deepStrictEqual(await run(sse, 'responses'), [
      { type: 'reasoning_delta', index: 0, delta: 'a' },
      { type: 'reasoning_delta', index: 0, delta: 'b' },
      { type: 'reasoning_delta', index: 0, delta: '\n\nS0' },
      { type: 'reasoning_delta', index: 0, delta: '\n\nS1' },
      { type: 'done', stop_reason: 'stop' },
    ])
  })

  test('CRLF framing, comments and keepalives, a split UTF-8 character', async () => {
    const delta = { type: 'response.output_text.delta', output_index: 0, delta: 'héllo 🌍' }
    const sse = [
      ': keepalive',
      'event: response.created',
      `data: ${JSON.stringify(created)}`,
      '',
      ':',
      '',
      'event: response.output_text.delta',
      `data: ${JSON.stringify(delta)}`,
      '',
      ': ping',
      '',
      `data: ${JSON.stringify(completed())}`,
      '',
      '',
    ].join('\r\n')
    const expected = [text(0, 'héllo 🌍'), { type: 'done', stop_reason: 'stop' }]
    deepStrictEqual(await run(sse, 'responses'), expected)
    deepStrictEqual(await run(sse, 'responses', 1), expected)
    deepStrictEqual(await run(sse.replaceAll('\r\n', '\r'), 'responses', 3), expected)
  })

  test('malformed JSON is an upstream_malformed error and the stream stops there', async () => {
    const delta = { type: 'response.output_text.delta', output_index: 0, delta: 'ok' }
    const sse = frames(created, delta, '{"type": oops', delta, completed())
    deepStrictEqual(await run(sse, 'responses'), [
      text(0, 'ok'),
      {
        type: 'error',
        code: 'upstream_malformed',
        message: 'a data line is not a JSON object: {"type": oops',
        status: null,
      },
    ])
    deepStrictEqual((await run(frames(created, '42'), 'responses')).at(-1)?.type, 'error')
  })

  test('an end without a terminal event is upstream_incomplete ([DONE] is not terminal here)', async () => {
    const delta = { type: 'response.output_text.delta', output_index: 0, delta: 'par' }
    const incomplete = { type: 'error', code: 'upstream_incomplete', status: null }
    const end = await run(frames(created, delta, '[DONE]'), 'responses')
    deepStrictEqual(end, [
      text(0, 'par'),
      { ...incomplete, message: 'the stream ended without a terminal event' },
    ])
    const cut = `${frames(created, delta)}data: {"type":"response.compl`
    deepStrictEqual(await run(cut, 'responses'), [
      text(0, 'par'),
      { ...incomplete, message: 'the stream ended in the middle of an event' },
    ])
  })

  test('a last event without its closing blank line still counts', async () => {
    const sse = `${frames(created)}data: ${JSON.stringify(completed())}`
    deepStrictEqual(await run(sse, 'responses'), [{ type: 'done', stop_reason: 'stop' }])
  })

  test('response.incomplete for max_output_tokens is done with length', async () => {
    const sse = frames(created, {
      type: 'response.incomplete',
      response: {
        status: 'incomplete',
        incomplete_details: { reason: 'max_output_tokens' },
        usage: {
          input_tokens: 5,
          input_tokens_details: { cached_tokens: 4 },
          output_tokens: 9,
          total_tokens: 14,
        },
      },
    })
    deepStrictEqual(await run(sse, 'responses'), [
      usage(5, 4, null, 9, 14),
      { type: 'done', stop_reason: 'length' },
    ])
  })

  test('faults of the byte source become error events', async () => {
    async function* failing(err: unknown) {
      yield new TextEncoder().encode(
        frames({ type: 'response.output_text.delta', output_index: 0, delta: 'x' }),
      )
      throw err
    }
    const timeout = new UpstreamFault('upstream_timeout', 'no byte received for 5 ms')
    deepStrictEqual(await collect(decode(failing(timeout), 'responses')), [
      text(0, 'x'),
      { type: 'error', code: 'upstream_timeout', message: 'no byte received for 5 ms', status: null },
    ])
    const dropped = await collect(decode(failing(new Error('socket hang up')), 'chat_completions'))
    deepStrictEqual(dropped, [
      {
        type: 'error',
        code: 'upstream_dropped',
        message: 'the connection ended before the response was complete (socket hang up)',
        status: null,
      },
    ])
  })
})
