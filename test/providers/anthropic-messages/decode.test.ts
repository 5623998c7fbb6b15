import { deepStrictEqual } from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { decodeMessages, neutralUsage } from '../../../src/providers/anthropic-messages/decode.ts'
import type { NeutralEvent } from '../../../src/providers/types.ts'
import { bytes, collect, usage } from '../openai-compatible/helpers.ts'

function fixture(name: string): string {
  return readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8')
}

function run(text: string, size?: number): Promise<NeutralEvent[]> {
  return collect(decodeMessages(bytes(text, size)))
}

/** The same stream with CRLF line ends (so events end in `\r\n\r\n`). */
function crlf(text: string): string {
  return text.replace(/\n/g, '\r\n')
}

/** Whole, in 1-byte chunks and with CRLF line ends: always the same events. */
async function decodesTo(name: string, expected: NeutralEvent[]): Promise<void> {
  const sse = fixture(name)
  deepStrictEqual(await run(sse), expected)
  deepStrictEqual(await run(sse, 1), expected)
  deepStrictEqual(await run(crlf(sse)), expected)
  deepStrictEqual(await run(crlf(sse), 1), expected)
}

function sse(...objs: unknown[]): string {
  return objs
    .map((o) => {
      const type = (o as { type?: string }).type ?? 'unknown'
      return `event: ${type}\ndata: ${JSON.stringify(o)}\n\n`
    })
    .join('')
}

const text = (index: number, delta: string): NeutralEvent => ({ type: 'text_delta', index, delta })
const done = (stop_reason: string): NeutralEvent => ({ type: 'done', stop_reason }) as NeutralEvent

describe('recorded Messages streams', () => {
  test('text: deltas, ping skipped, usage from message_delta, end_turn → stop', async () => {
    await decodesTo('text.sse', [
      text(0, 'Hello'),
      text(0, '! I'),
      text(0, "'m doing well, thank you for asking"),
      text(0, '. How are you doing today?'),
      text(0, ' Is'),
      text(0, ' there anything I can help you with?'),
      usage(12, 0, 0, 30, 42),
      done('stop'),
    ])
  })

  test('thinking with a signature, padded JSON: reasoning, then the signed block for replay', async () => {
    const thinking = [
      'I',
      "'m working through the Euclidean algorithm to find the GCD of 1071 and 462,",
      ' applying successive division until I reach a remainder of zero, which',
      ' gives me 21 as the greatest common divisor.',
    ]
    const events = await run(fixture('thinking-signature.sse'))
    const signature = (events.find((e) => e.type === 'encrypted_reasoning') as { encrypted_content: string })
      ?.encrypted_content
    deepStrictEqual(signature.startsWith('EsECCokBCBAYAipA9i3HF1aHpQ'), true)
    deepStrictEqual(signature.endsWith('L4oPGAE='), true)
    const texts = events.filter((e) => e.type === 'text_delta').map((e) => (e as { delta: string }).delta)
    await decodesTo('thinking-signature.sse', [
      ...thinking.map((delta) => ({ type: 'reasoning_delta', index: 0, delta }) as NeutralEvent),
      { type: 'encrypted_reasoning', index: 0, summary: [thinking.join('')], encrypted_content: signature },
      ...texts.map((d) => text(1, d)),
      usage(47, 0, 0, 373, 420),
      done('stop'),
    ])
    deepStrictEqual(texts.length, 6)
  })

  test('a tool without arguments: the only, empty, input_json_delta gives {}', async () => {
    await decodesTo('tool-no-args.sse', [
      text(0, "I'll update the issue list for"),
      text(0, ' you.'),
      {
        type: 'tool_call',
        index: 1,
        id: 'toolu_01QE1WLsSVp5hy5Q3GmGTmjP',
        name: 'updateIssueList',
        arguments: '{}',
      },
      usage(565, 0, 0, 48, 613),
      done('tool_calls'),
    ])
  })

  test('tool input assembled from its pieces (first one empty, escaped quotes)', async () => {
    const args =
      '{"website_path": "/home/user/pace-landing", "tasks": [{"description": "Today you post every run to Strava, ' +
      'but Strava does not answer the question: \\"What should I do next after this run?\\". It is a great log, ' +
      'but it is not adaptive.", "type": "feature", "passes": false}]}'
    await decodesTo('tool-input-json.sse', [
      {
        type: 'tool_call',
        index: 0,
        id: 'toolu_01Cr31vcGoeeRgi3Eo5Ds8qN',
        name: 'website_update',
        arguments: args,
      },
      usage(912, 0, 0, 118, 1030),
      done('tool_calls'),
    ])
    const parsed = JSON.parse(args)
    deepStrictEqual(parsed.tasks[0].passes, false)
  })

  test('message_delta usage replaces message_start usage (the final figures)', async () => {
    await decodesTo('message-delta-usage.sse', [
      text(0, 'p'),
      text(0, 'ong'),
      usage(61, null, null, 2, 63),
      done('stop'),
    ])
  })

  test('server tool blocks are neither emitted nor run; the text around them is', async () => {
    await decodesTo('web-search-trimmed.sse', [
      text(0, "Here are today's"),
      text(0, ' tech headlines.'),
      usage(10321, 0, 0, 305, 10626),
      done('stop'),
    ])
  })

  test('an error event mid-stream fails the turn with its code; the text before it was delivered', async () => {
    await decodesTo('error-overloaded.sse', [
      text(0, 'Partial answer'),
      { type: 'error', code: 'upstream_unavailable', message: 'overloaded_error: Overloaded', status: null },
    ])
  })
})

describe('Messages decoding edge cases', () => {
  const start = {
    type: 'message_start',
    message: {
      usage: {
        input_tokens: 10,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 20,
        output_tokens: 1,
      },
    },
  }
  const stop = { type: 'message_stop' }

  test('usage: prompt = input + cache reads + cache writes; completion from message_delta', async () => {
    const events = await run(
      sse(
        start,
        { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 7 } },
        stop,
      ),
    )
    deepStrictEqual(events, [usage(130, 100, 20, 7, 137), done('stop')])
    deepStrictEqual(
      neutralUsage({ input: null, cacheRead: 5, cacheWrite: null, output: 3 }).prompt_tokens,
      null,
    )
  })

  test('several text blocks keep their order and join without a separator', async () => {
    const events = await run(
      sse(
        start,
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'One.' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Two.' } },
        { type: 'content_block_stop', index: 1 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 4 } },
        stop,
      ),
    )
    deepStrictEqual(
      events
        .filter((e) => e.type === 'text_delta')
        .map((e) => (e as { delta: string }).delta)
        .join(''),
      'One.Two.',
    )
    deepStrictEqual(
      events.filter((e) => e.type === 'text_delta').map((e) => (e as { index: number }).index),
      [0, 1],
    )
  })

  test('redacted thinking is kept for replay with an empty summary', async () => {
    const events = await run(
      sse(
        start,
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va' },
        },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 4 } },
        stop,
      ),
    )
    deepStrictEqual(events[0], {
      type: 'encrypted_reasoning',
      index: 0,
      summary: [],
      encrypted_content: 'EmwKAhgBEgy3va',
    })
  })

  test('no message_stop: upstream_incomplete, also after a stop reason', async () => {
    const cut = sse(
      start,
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } },
    )
    deepStrictEqual(await run(cut), [
      text(0, 'Hi'),
      {
        type: 'error',
        code: 'upstream_incomplete',
        message: 'the stream ended without a terminal event',
        status: null,
      },
    ])
  })

  test('unknown event types are skipped; an event: line that disagrees with the data is ignored', async () => {
    const body =
      sse(start, { type: 'future_event', x: 1 }) +
      `event: ping\ndata: ${JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })}\n\n` +
      sse(
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'citations_delta', citation: {} } },
        { type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 1 } },
        stop,
      )
    deepStrictEqual(await run(body), [text(0, 'ok'), usage(130, 100, 20, 1, 131), done('length')])
  })

  test('a call cut by max_tokens is dropped; stop reasons map', async () => {
    const events = await run(
      sse(
        start,
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 'toolu_1', name: 'read', input: {} },
        },
        {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'input_json_delta', partial_json: '{"path": "a' },
        },
        { type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 9 } },
        stop,
      ),
    )
    deepStrictEqual(events, [usage(130, 100, 20, 9, 139), done('length')])
    const refusal = await run(
      sse(start, { type: 'message_delta', delta: { stop_reason: 'refusal' }, usage: {} }, stop),
    )
    deepStrictEqual(refusal.at(-1), done('content_filter'))
    const paused = await run(
      sse(start, { type: 'message_delta', delta: { stop_reason: 'pause_turn' }, usage: {} }, stop),
    )
    deepStrictEqual(paused.at(-1), done('other'))
  })

  test('a tool_use without a name is still a call, its name empty (it gets an error result)', async () => {
    const events = await run(
      sse(
        start,
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 'toolu_n', input: {} },
        },
        {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'input_json_delta', partial_json: '{"path": "a"}' },
        },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } },
        stop,
      ),
    )
    deepStrictEqual(events[0], {
      type: 'tool_call',
      index: 0,
      id: 'toolu_n',
      name: '',
      arguments: '{"path": "a"}',
    })
    deepStrictEqual(events.at(-1), done('tool_calls'))
  })

  test('data that is not JSON is malformed', async () => {
    const events = await run(`event: message_start\ndata: {not json\n\n`)
    deepStrictEqual(events[0]?.type, 'error')
    deepStrictEqual((events[0] as { code: string }).code, 'upstream_malformed')
  })

  test('an error event maps its type: rate_limit_error, authentication_error, invalid_request_error', async () => {
    for (const [type, code] of [
      ['rate_limit_error', 'upstream_rate_limited'],
      ['authentication_error', 'upstream_unauthorized'],
      ['invalid_request_error', 'upstream_rejected'],
      ['api_error', 'upstream_unavailable'],
    ]) {
      const events = await run(sse({ type: 'error', error: { type, message: 'm' } }))
      deepStrictEqual(events, [{ type: 'error', code, message: `${type}: m`, status: null }])
    }
  })
})
