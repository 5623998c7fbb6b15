import { deepStrictEqual, match, strictEqual } from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { decodeGemini, GeminiDecoder } from '../../../src/providers/gemini/decode.ts'
import { BLOCK_REASONS, FINISH_OUTCOMES, finishOutcome } from '../../../src/providers/gemini/finish.ts'
import { decodeWith } from '../../../src/providers/shared/decode-stream.ts'
import type { NeutralEvent } from '../../../src/providers/types.ts'
import { bytes, collect, usage } from '../openai-compatible/helpers.ts'

function fixture(name: string): string {
  return readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8')
}

/** Generated call ids are random: checked for their shape, then replaced by `<generated>`. */
function normalise(events: NeutralEvent[]): NeutralEvent[] {
  return events.map((e) => {
    if (e.type !== 'tool_call' || !/^[A-Za-z0-9]{9}$/.test(e.id) || e.id === 'g1bmv6il') return e
    return { ...e, id: '<generated>' }
  })
}

async function run(text: string, size?: number): Promise<NeutralEvent[]> {
  return normalise(await collect(decodeGemini(bytes(text, size))))
}

/** Whole, in 1-byte chunks and with LF line ends: always the same events. */
async function decodesTo(text: string, expected: NeutralEvent[]): Promise<void> {
  deepStrictEqual(await run(text), expected)
  deepStrictEqual(await run(text, 1), expected)
  const lf = text.replace(/\r\n/g, '\n')
  deepStrictEqual(await run(lf), expected)
  deepStrictEqual(await run(lf, 7), expected)
}

/** Chunks as Vertex frames them: `data: <json>` and `\r\n\r\n`. */
function sse(...chunks: unknown[]): string {
  return chunks.map((c) => `data: ${typeof c === 'string' ? c : JSON.stringify(c)}\r\n\r\n`).join('')
}

function chunk(parts: unknown[], extra: Record<string, unknown> = {}, usageMetadata?: unknown) {
  const { finishReason, ...rest } = extra
  return {
    candidates: [{ content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}), index: 0 }],
    ...(usageMetadata ? { usageMetadata } : {}),
    modelVersion: 'gemini-2.5-flash',
    responseId: 'resp-1',
    ...rest,
  }
}

const text = (index: number, delta: string): NeutralEvent => ({ type: 'text_delta', index, delta })
const thought = (index: number, delta: string): NeutralEvent => ({ type: 'reasoning_delta', index, delta })
const call = (index: number, name: string, args: string, id = '<generated>'): NeutralEvent => ({
  type: 'tool_call',
  index,
  id,
  name,
  arguments: args,
})
const done = (stop_reason: string): NeutralEvent => ({ type: 'done', stop_reason }) as NeutralEvent
const failed = (code: string, message: string): NeutralEvent =>
  ({ type: 'error', code, message, status: null }) as NeutralEvent

const FINAL_USAGE = {
  promptTokenCount: 41,
  candidatesTokenCount: 18,
  totalTokenCount: 121,
  thoughtsTokenCount: 62,
  cachedContentTokenCount: 32,
}

describe('recorded Gemini streams', () => {
  test('text, then STOP in a last chunk whose only part is an empty text with a signature', async () => {
    await decodesTo(fixture('text-signature.sse'), [
      text(0, 'There are **3**'),
      text(0, ' "r"s in strawberry.\n\nst**r**awbe**rr**y'),
      usage(9, null, null, 23 + 185, 217),
      done('stop'),
    ])
    await decodesTo(fixture('empty-text-signature.sse'), [
      text(0, '4'),
      usage(15, null, null, 53, 68),
      done('stop'),
    ])
  })

  test('the empty text signs the item it closes; the last signature is kept', async () => {
    const decoder = new GeminiDecoder()
    await collect(decodeWith(bytes(fixture('text-signature.sse')), decoder))
    const signature = decoder.signatures.get(0) ?? ''
    match(signature, /^EqsFCqgFAb4\+9vvtAF5n87lB4OGDOoTRMOqp35jW65/)
    strictEqual(decoder.lastSignature, signature)
  })

  test('a call without an id gets one; STOP after calls is tool_calls', async () => {
    await decodesTo(fixture('call-no-id.sse'), [
      call(0, 'weather', '{"location":"San Francisco"}'),
      usage(29, null, null, 15 + 804, 848),
      done('tool_calls'),
    ])
    const decoder = new GeminiDecoder()
    await collect(decodeWith(bytes(fixture('call-no-id.sse')), decoder))
    match(decoder.signatures.get(0) ?? '', /^EpEgCo4gAb4/)
  })

  test('text, then a call with its own id', async () => {
    await decodesTo(fixture('text-call-with-id.sse'), [
      text(0, 'Let me check.'),
      call(1, 'get_weather', '{"city":"San Francisco"}', 'g1bmv6il'),
      usage(83, null, null, 21 + 178, 282),
      done('tool_calls'),
    ])
  })

  test('a thought summary, a call without args, usage only in the last chunk', async () => {
    await decodesTo(fixture('thought-call-no-args.sse'), [
      thought(
        0,
        '**Processing User Requests**\n\nI\'ve started by understanding the user\'s instructions. Currently, I\'m focusing on the initial steps: reading the specified theme using the appropriate tool. Next, I plan to tackle reading the screens, beginning with screen "A," then proceeding with "B" and "C" in parallel as instructed.\n\n\n',
      ),
      call(1, 'read_theme', '{}'),
      usage(249, null, null, 58 + 183, 490),
      done('tool_calls'),
    ])
  })

  test('a blocked prompt: no candidates, blockReason → upstream_blocked, never success', async () => {
    await decodesTo(fixture('prompt-blocked.sse'), [
      usage(9, null, null, null, 9),
      failed(
        'upstream_blocked',
        "Gemini's filters blocked the prompt (PROHIBITED_CONTENT); no answer was made",
      ),
    ])
  })
})

describe('written Gemini streams', () => {
  test('parallel calls: each its own index, only the first signed', async () => {
    const stream = sse(
      chunk(
        [{ text: '**Checking both cities**\n\nI need Paris and London.', thought: true }],
        {},
        {
          trafficType: 'ON_DEMAND',
        },
      ),
      chunk(
        [
          {
            functionCall: { name: 'get_weather', args: { city: 'Paris' } },
            thoughtSignature: 'c2lnLXBhcmFsbGVs',
          },
          { functionCall: { name: 'get_weather', args: { city: 'London' } } },
        ],
        { finishReason: 'STOP' },
        FINAL_USAGE,
      ),
    )
    await decodesTo(stream, [
      thought(0, '**Checking both cities**\n\nI need Paris and London.'),
      call(1, 'get_weather', '{"city":"Paris"}'),
      call(2, 'get_weather', '{"city":"London"}'),
      usage(41, 32, null, 80, 121),
      done('tool_calls'),
    ])
    const decoder = new GeminiDecoder()
    await collect(decodeWith(bytes(stream), decoder))
    deepStrictEqual([...decoder.signatures], [[1, 'c2lnLXBhcmFsbGVs']])
  })

  test('thought, text, thought again: three items in order', async () => {
    await decodesTo(
      sse(
        chunk([{ text: 'a', thought: true }]),
        chunk([{ text: 'b' }, { text: 'c' }]),
        chunk([{ text: 'd', thought: true }], { finishReason: 'STOP' }),
      ),
      [thought(0, 'a'), text(1, 'b'), text(1, 'c'), thought(2, 'd'), done('stop')],
    )
  })

  test('MAX_TOKENS: length, and a call it made is never published', async () => {
    await decodesTo(
      sse(
        chunk([{ text: 'Reading the file' }]),
        chunk(
          [{ functionCall: { name: 'read', args: { path: 'a.txt' } } }],
          { finishReason: 'MAX_TOKENS' },
          FINAL_USAGE,
        ),
      ),
      [text(0, 'Reading the file'), usage(41, 32, null, 80, 121), done('length')],
    )
  })

  test('SAFETY: upstream_blocked, no calls; the text already streamed stays', async () => {
    const safety = {
      finishReason: 'SAFETY',
      safetyRatings: [{ category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true }],
    }
    const stream = sse(chunk([{ text: 'Here is how' }]), {
      candidates: [
        { content: { role: 'model', parts: [{ functionCall: { name: 'run', args: {} } }] }, ...safety },
      ],
    })
    await decodesTo(stream, [
      text(0, 'Here is how'),
      failed('upstream_blocked', "Gemini's filters stopped the answer (SAFETY: the answer may be unsafe)"),
    ])
  })

  test("MALFORMED_FUNCTION_CALL fails with Google's finishMessage; its call is never published", async () => {
    // The shape Gemini sends: an empty content, the reason and its message (and usage).
    const stream = sse(
      chunk([{ text: 'Let me check' }]),
      chunk([{ functionCall: { name: 'read', args: { path: 'a' } } }]),
      {
        candidates: [
          {
            content: {},
            finishReason: 'MALFORMED_FUNCTION_CALL',
            finishMessage: 'Malformed function call: print(default_api.read(path=',
            index: 0,
          },
        ],
        usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 0, totalTokenCount: 12 },
      },
    )
    await decodesTo(stream, [
      text(0, 'Let me check'),
      usage(12, null, null, 0, 12),
      failed(
        'upstream_tool_call_invalid',
        'Gemini stopped the answer: MALFORMED_FUNCTION_CALL, the model wrote a function call that does not parse; no call was run: Malformed function call: print(default_api.read(path=',
      ),
    ])
  })

  test('a blockReason beside candidates still blocks; blockReasonMessage is kept', async () => {
    const stream = sse({
      promptFeedback: { blockReason: 'JAILBREAK', blockReasonMessage: 'The prompt was blocked.' },
      candidates: [{ content: { role: 'model', parts: [] }, index: 0 }],
    })
    await decodesTo(stream, [
      failed(
        'upstream_blocked',
        "Gemini's filters blocked the prompt (JAILBREAK); no answer was made: The prompt was blocked.",
      ),
    ])
  })

  test('every finish reason Google documents has an outcome; only STOP and MAX_TOKENS succeed', async () => {
    const documented = [
      'FINISH_REASON_UNSPECIFIED',
      'STOP',
      'MAX_TOKENS',
      'SAFETY',
      'RECITATION',
      'LANGUAGE',
      'OTHER',
      'BLOCKLIST',
      'PROHIBITED_CONTENT',
      'SPII',
      'MALFORMED_FUNCTION_CALL',
      'IMAGE_SAFETY',
      'IMAGE_PROHIBITED_CONTENT',
      'IMAGE_OTHER',
      'NO_IMAGE',
      'IMAGE_RECITATION',
      'UNEXPECTED_TOOL_CALL',
      'TOO_MANY_TOOL_CALLS',
      'MISSING_THOUGHT_SIGNATURE',
      'MALFORMED_RESPONSE',
    ]
    deepStrictEqual(Object.keys(FINISH_OUTCOMES).sort(), [...documented].sort())
    const codes = Object.fromEntries(documented.map((r) => [r, finishOutcome(r)]))
    deepStrictEqual(
      Object.entries(codes)
        .filter(([, o]) => 'stop' in o)
        .map(([r]) => r),
      ['STOP', 'MAX_TOKENS'],
    )
    deepStrictEqual(finishOutcome('SOMETHING_NEW'), {
      code: 'upstream_stopped',
      message: 'Gemini stopped the answer: SOMETHING_NEW (a reason hearth does not know)',
    })
    strictEqual('code' in finishOutcome('toString'), true)
    // A call in a stream that ends with any failing reason is never published.
    for (const reason of documented.filter((r) => !('stop' in finishOutcome(r)))) {
      const events = await run(
        sse(chunk([{ functionCall: { name: 'read', args: {} } }]), chunk([], { finishReason: reason })),
      )
      strictEqual(events.length, 1, reason)
      strictEqual(events[0].type, 'error', reason)
    }
    for (const reason of BLOCK_REASONS) {
      const events = await run(sse({ promptFeedback: { blockReason: reason } }))
      const last = events.at(-1)
      strictEqual(last?.type === 'error' && last.code, 'upstream_blocked', reason)
    }
  })

  test('a stream cut before finishReason is incomplete, never success; its calls are not published', async () => {
    const events = await run(
      sse(chunk([{ text: 'Let me look' }]), chunk([{ functionCall: { name: 'read', args: { path: 'x' } } }])),
    )
    deepStrictEqual(events.slice(0, 1), [text(0, 'Let me look')])
    strictEqual(events.length, 2)
    strictEqual(events[1].type === 'error' && events[1].code, 'upstream_incomplete')
  })

  test('a stream cut inside an event is incomplete', async () => {
    const whole = sse(chunk([{ text: 'one' }]), chunk([{ text: 'two' }], { finishReason: 'STOP' }))
    const last = (await run(whole.slice(0, whole.length - 30))).at(-1)
    strictEqual(last?.type === 'error' && last.code, 'upstream_incomplete')
  })

  test('a malformed present field fails decoding', async () => {
    const bad = [
      chunk([{ text: 5 }]),
      chunk([{ text: 'x', thought: 'yes' }]),
      { candidates: [{ content: { role: 'model', parts: { text: 'x' } } }] },
      { candidates: { content: {} } },
      chunk([{ functionCall: { args: {} } }]),
      chunk([{ functionCall: { name: 'read', args: '{"path":1}' } }]),
      chunk([{ functionCall: { name: 'read', id: 7 } }]),
      chunk([{ text: 'x', thoughtSignature: 12 }]),
      chunk([{ text: 'x' }], { finishReason: 3 }),
      chunk([{ text: 'x' }], {}, { promptTokenCount: '9' }),
      '[1, 2]',
    ]
    for (const data of bad) {
      const events = await run(
        sse(chunk([{ text: 'ok' }]), data, chunk([{ text: 'late' }], { finishReason: 'STOP' })),
      )
      const last = events.at(-1)
      strictEqual(last?.type === 'error' && last.code, 'upstream_malformed', JSON.stringify(data))
      strictEqual(
        events.some((e) => e.type === 'text_delta' && e.delta === 'late'),
        false,
      )
    }
  })

  test('unknown fields and part kinds are skipped', async () => {
    await decodesTo(
      sse(
        chunk(
          [{ executableCode: { language: 'PYTHON', code: 'print(1)' } }, { text: 'one', newField: { x: 1 } }],
          {
            finishReason: 'STOP',
            citationMetadata: {},
          },
        ),
      ),
      [text(0, 'one'), done('stop')],
    )
  })

  test('an error chunk ends the turn with the mapped code', async () => {
    const events = await run(
      sse(chunk([{ text: 'partial' }]), {
        error: { code: 429, message: 'Resource has been exhausted', status: 'RESOURCE_EXHAUSTED' },
      }),
    )
    deepStrictEqual(events, [
      text(0, 'partial'),
      {
        type: 'error',
        code: 'upstream_rate_limited',
        message: 'RESOURCE_EXHAUSTED: Resource has been exhausted',
        status: null,
      },
    ])
  })

  test('a wrapper unwraps each chunk (the Code Assist envelope)', async () => {
    const wrapped = sse({
      response: chunk([{ text: 'hi' }], { finishReason: 'STOP' }, FINAL_USAGE),
      traceId: 't',
    })
    const events = await collect(decodeGemini(bytes(wrapped), { unwrap: (c) => c.response }))
    deepStrictEqual(events, [text(0, 'hi'), usage(41, 32, null, 80, 121), done('stop')])
  })
})
