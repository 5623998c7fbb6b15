import { deepStrictEqual } from 'node:assert/strict'
import { describe, test } from 'node:test'
import { fixture, frames, run, text, usage } from './helpers.ts'

const chunk = (delta: Record<string, unknown>, finish_reason: string | null = null) => ({
  id: 'c',
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta, finish_reason }],
})

describe('Chat Completions edge cases', () => {
  test('reasoning_content and reasoning stream as reasoning; each kind keeps its own index', async () => {
    const sse = frames(
      chunk({ role: 'assistant', content: '' }),
      chunk({ reasoning_content: 'think ' }),
      chunk({ reasoning: 'more' }),
      chunk({ content: 'answer' }),
      chunk({ reasoning_content: ' late' }),
      chunk({}, 'stop'),
      {
        id: 'c',
        choices: [],
        usage: {
          prompt_tokens: 10,
          completion_tokens: 3,
          total_tokens: 13,
          prompt_tokens_details: { cached_tokens: 8 },
        },
      },
      '[DONE]',
    )
    deepStrictEqual(await run(sse, 'chat_completions'), [
      { type: 'reasoning_delta', index: 0, delta: 'think ' },
      { type: 'reasoning_delta', index: 0, delta: 'more' },
      text(1, 'answer'),
      { type: 'reasoning_delta', index: 0, delta: ' late' },
      usage(10, 8, null, 3, 13),
      { type: 'done', stop_reason: 'stop' },
    ])
  })

  test('structured content (Mistral reasoning models): thinking parts are reasoning, text parts text', async () => {
    const reasoning = (delta: string) => ({ type: 'reasoning_delta', index: 0, delta }) as const
    deepStrictEqual(await run(fixture('chat-mistral-thinking.sse'), 'chat_completions', 7), [
      reasoning('Half of 8'),
      reasoning(' by 2 is'),
      reasoning(' 4.'),
      text(1, 'The answer'),
      text(1, ' is 4.'),
      usage(12, null, null, 28, 40),
      { type: 'done', stop_reason: 'stop' },
    ])
  })

  test('a whole message with structured content decodes the same way', async () => {
    const message = {
      id: 'r',
      object: 'chat.completion',
      model: 'magistral-medium-latest',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: [{ type: 'text', text: 'Add them.' }] },
              { type: 'reference', reference_ids: [1] },
              { type: 'text', text: '4' },
            ],
          },
          finish_reason: 'stop',
        },
      ],
    }
    deepStrictEqual(await run(frames(message), 'chat_completions'), [
      { type: 'reasoning_delta', index: 0, delta: 'Add them.' },
      text(1, '4'),
      { type: 'done', stop_reason: 'stop' },
    ])
  })

  test('finish reasons map to stop reasons', async () => {
    for (const [finish, stop] of [
      ['length', 'length'],
      ['content_filter', 'content_filter'],
      ['function_call', 'tool_calls'],
      ['eos', 'other'],
    ]) {
      const events = await run(
        frames(chunk({ content: 'x' }), chunk({}, finish), '[DONE]'),
        'chat_completions',
      )
      deepStrictEqual(events, [text(0, 'x'), { type: 'done', stop_reason: stop }])
    }
  })

  test('tool call fragments: id and name once, arguments appended, index taken from position if absent', async () => {
    const sse = frames(
      chunk({ content: 'Let me check.' }),
      chunk({
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"pa' } }],
      }),
      chunk({ tool_calls: [{ function: { arguments: 'th":"a"}' } }] }),
      '[DONE]',
    )
    deepStrictEqual(await run(sse, 'chat_completions'), [
      text(0, 'Let me check.'),
      { type: 'tool_call', index: 1, id: 'call_1', name: 'read', arguments: '{"path":"a"}' },
      { type: 'done', stop_reason: 'tool_calls' },
    ])
  })

  test('an error chunk ends the stream with a mapped code', async () => {
    const sse = frames(
      chunk({ content: 'x' }),
      { error: { message: 'Overloaded', type: 'server_error' } },
      chunk({ content: 'y' }),
    )
    deepStrictEqual(await run(sse, 'chat_completions'), [
      text(0, 'x'),
      { type: 'error', code: 'upstream_unavailable', message: 'server_error: Overloaded', status: null },
    ])
  })

  test('a clean end after a finish_reason is done; without one it is upstream_incomplete', async () => {
    deepStrictEqual(await run(frames(chunk({ content: 'x' }), chunk({}, 'stop')), 'chat_completions'), [
      text(0, 'x'),
      { type: 'done', stop_reason: 'stop' },
    ])
    deepStrictEqual(await run(frames(chunk({ content: 'x' })), 'chat_completions'), [
      text(0, 'x'),
      {
        type: 'error',
        code: 'upstream_incomplete',
        message: 'the stream ended without a terminal event',
        status: null,
      },
    ])
  })

  test('malformed JSON stops the stream; CRLF and keepalive comments are fine', async () => {
    const sse = `: ok\r\n\r\n${frames(chunk({ content: 'a' })).replaceAll('\n', '\r\n')}data: {nope\r\n\r\n${frames('[DONE]')}`
    deepStrictEqual(await run(sse, 'chat_completions', 2), [
      text(0, 'a'),
      {
        type: 'error',
        code: 'upstream_malformed',
        message: 'a data line is not a JSON object: {nope',
        status: null,
      },
    ])
  })
})
