import { deepStrictEqual } from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { NeutralEvent } from '../../../src/providers/types.ts'
import { fixture, run, text, usage } from './helpers.ts'

const COPILOT_DELTAS = [
  ...['There', ' are', ' **', '3', '**', ' letter', ' **', '“', 'r', '”', '**', 's', ' in', ' **', '“', 'st'],
  ...['raw', 'berry', '.”', '**\n\n', 'Break', 'down', ':', ' **', 's', ' t', ' r', ' a', ' w', ' b', ' e'],
  ...[' r', ' r', ' y', '**', '  \n', 'You', ' can', ' see', ' **', 'r', '**', ' at', ' positions', ' **'],
  ...['3', ',', ' ', '8', ',', ' and', ' ', '9', '**', '.'],
]

const CHAT_WORDS = [
  ...["I'm", ' unable', ' to', ' provide', ' real', '-time', ' updates', ',', ' including', ' current'],
  ...[' weather', ' information', '.', ' For', ' the', ' latest', ' weather', ' in', ' San', ' Francisco'],
  ...[
    ',',
    ' I',
    ' recommend',
    ' checking',
    ' a',
    ' reliable',
    ' weather',
    ' website',
    ' or',
    ' app',
    ' such',
  ],
  ...[' as', ' the', ' Weather', ' Channel', ',', ' BBC', ' Weather', ',', ' or', ' a', ' local', ' San'],
  ...[' Francisco', ' news', ' station', '.'],
]

describe('recorded Responses streams', () => {
  const reasoningText: NeutralEvent[] = [
    { type: 'reasoning_delta', index: 0, delta: '**Counting character occurrences**' },
    ...COPILOT_DELTAS.map((d) => text(1, d)),
    usage(19, 0, 0, 105, 124),
    { type: 'done', stop_reason: 'stop' },
  ]

  test('reasoning summary and text with rotating item ids (whole, 1-byte and 7-byte chunks)', async () => {
    const sse = fixture('responses-reasoning-text.sse')
    deepStrictEqual(await run(sse, 'responses'), reasoningText)
    deepStrictEqual(await run(sse, 'responses', 1), reasoningText)
    deepStrictEqual(await run(sse, 'responses', 7), reasoningText)
  })

  test('function call assembled from argument deltas', async () => {
    deepStrictEqual(await run(fixture('responses-function-call.sse'), 'responses'), [
      {
        type: 'tool_call',
        index: 0,
        id: 'call_2FQdm3Br7Qb35YUBSkDR7kue',
        name: 'get_weather',
        arguments: '{"city":"Beijing"}',
      },
      usage(45, 0, 0, 25, 70),
      { type: 'done', stop_reason: 'tool_calls' },
    ])
  })

  test('an `error` event ends the stream (the following response.failed adds nothing)', async () => {
    deepStrictEqual(await run(fixture('responses-error.sse'), 'responses'), [
      {
        type: 'error',
        code: 'upstream_rate_limited',
        message:
          'insufficient_quota: You exceeded your current quota, please check your plan and billing details. ' +
          'For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
        status: null,
      },
    ])
  })

  test('response.failed becomes an error event', async () => {
    deepStrictEqual(await run(fixture('responses-failed.sse'), 'responses'), [
      {
        type: 'error',
        code: 'upstream_rate_limited',
        message:
          'rate_limit_exceeded: Request too large for gpt-4o-mini in organization on tokens per min (TPM): ' +
          'Limit 30000, Requested 35364.',
        status: null,
      },
    ])
  })

  test('an item that only arrives whole (no deltas, no output_index) still yields its text', async () => {
    deepStrictEqual(await run(fixture('responses-codex-cli.sse'), 'responses'), [
      text(0, 'fixture hello'),
      { type: 'done', stop_reason: 'stop' },
    ])
  })
})

describe('recorded Chat Completions streams', () => {
  test('text deltas, usage chunk, [DONE]', async () => {
    const expected = [
      ...CHAT_WORDS.map((w) => text(0, w)),
      usage(14, null, null, 47, 61),
      { type: 'done', stop_reason: 'stop' },
    ]
    deepStrictEqual(await run(fixture('chat-text.sse'), 'chat_completions'), expected)
    deepStrictEqual(await run(fixture('chat-text.sse'), 'chat_completions', 5), expected)
  })

  test('two parallel tool calls by index', async () => {
    deepStrictEqual(await run(fixture('chat-tool-calls.sse'), 'chat_completions'), [
      {
        type: 'tool_call',
        index: 0,
        id: 'call_g4Q1vRbE0CaHGOs5if8mHsBq',
        name: 'GetWeatherArgs',
        arguments: '{"city": "Edinburgh", "country": "UK", "units": "c"}',
      },
      {
        type: 'tool_call',
        index: 1,
        id: 'call_gWj3HQxZEHnFvyJLEHIiJKBV',
        name: 'get_stock_price',
        arguments: '{"ticker": "AAPL", "exchange": "NASDAQ"}',
      },
      usage(149, null, null, 60, 209),
      { type: 'done', stop_reason: 'tool_calls' },
    ])
  })
})
