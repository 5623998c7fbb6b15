// The shared Messages turn against the fake upstream's Messages route: real HTTP, the
// wire's own error bodies, retries, and a tool round whose replay the fake checks for pairing.
import { deepStrictEqual, strictEqual } from 'node:assert/strict'
import { after, before, beforeEach, describe, test } from 'node:test'
import { messagesBody } from '../../../src/providers/anthropic-messages/encode.ts'
import {
  ANTHROPIC_VERSION,
  messagesHeaders,
  messagesStep,
} from '../../../src/providers/anthropic-messages/transport.ts'
import type { NeutralEvent, NeutralRequest, StreamOptions } from '../../../src/providers/types.ts'
import { FakeOpenAIUpstream } from '../../fakes/openai-upstream.ts'
import { callTools, toolCallsOf, toolResultsOf } from '../../fakes/tool-script.ts'

let fake: FakeOpenAIUpstream

before(async () => {
  fake = await FakeOpenAIUpstream.start()
})
after(() => fake.close())
beforeEach(() => fake.reset())

const opts = (): StreamOptions => ({ signal: AbortSignal.timeout(10_000), retryDelayMs: () => 1 })

function request(over: Partial<NeutralRequest> = {}): NeutralRequest {
  return {
    model: 'claude-sonnet-4-5',
    effort: null,
    system: 'Be brief.',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    session_id: 'ses_1',
    ...over,
  }
}

function turn(req: NeutralRequest, path = '/v1/messages', secret = 'sk-ant-secret') {
  return messagesStep(
    () => ({
      url: `${fake.url}${path}`,
      headers: { ...messagesHeaders(), 'x-api-key': secret },
      body: JSON.stringify(messagesBody(req)),
    }),
    opts(),
    secret,
  )
}

async function collect(events: AsyncIterable<NeutralEvent>): Promise<NeutralEvent[]> {
  const out: NeutralEvent[] = []
  for await (const e of events) out.push(e)
  return out
}

describe('messagesStep', () => {
  test('streams text and reasoning with the wire headers; usage counts cache reads', async () => {
    fake.enqueue({
      reasoning: ['Think', 'ing'],
      text: ['Hel', 'lo'],
      usage: { input: 20, output: 7, cached: 5 },
    })
    const events = await collect(turn(request()))
    const sent = fake.requests[0]
    strictEqual(sent.headers['anthropic-version'], ANTHROPIC_VERSION)
    strictEqual(sent.body.model, 'claude-sonnet-4-5')
    strictEqual(events[0].type, 'start')
    const text = events.flatMap((e) => (e.type === 'text_delta' ? [e.delta] : [])).join('')
    const thought = events.flatMap((e) => (e.type === 'reasoning_delta' ? [e.delta] : [])).join('')
    strictEqual(text, 'Hello')
    strictEqual(thought, 'Thinking')
    const usage = events.find((e) => e.type === 'usage')
    deepStrictEqual(usage?.type === 'usage' && usage.usage, {
      prompt_tokens: 20,
      cached_prompt_tokens: 5,
      cache_write_tokens: 0,
      completion_tokens: 7,
      total_tokens: 27,
    })
    deepStrictEqual(events.at(-1), { type: 'done', stop_reason: 'stop' })
  })

  test("Bedrock's path is served too; max_tokens ends as length", async () => {
    fake.enqueue({ text: ['cut'], finish: 'length' })
    const events = await collect(turn(request(), '/anthropic/v1/messages'))
    strictEqual(fake.requests[0].path, '/anthropic/v1/messages')
    deepStrictEqual(events.at(-1), { type: 'done', stop_reason: 'length' })
  })

  test('a tool call, then its result replayed in the pairing the API demands', async () => {
    fake.enqueue(callTools({ name: 'read', arguments: { path: 'a.txt' }, id: 'toolu_1' }))
    const first = await collect(
      turn(request({ tools: [{ name: 'read', description: 'r', parameters: {} }] })),
    )
    const call = first.find((e) => e.type === 'tool_call')
    deepStrictEqual(call?.type === 'tool_call' && [call.id, call.name, JSON.parse(call.arguments)], [
      'toolu_1',
      'read',
      { path: 'a.txt' },
    ])
    deepStrictEqual(first.at(-1), { type: 'done', stop_reason: 'tool_calls' })
    const replay = request({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        {
          role: 'assistant',
          content: [{ type: 'tool_call', id: 'toolu_1', name: 'read', arguments: '{"path":"a.txt"}' }],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: 'file text' },
      ],
    })
    const second = await collect(turn(replay))
    deepStrictEqual(second.at(-1), { type: 'done', stop_reason: 'stop' })
    deepStrictEqual(toolCallsOf(fake.requests[1].body), [
      { call_id: 'toolu_1', name: 'read', arguments: '{"path":"a.txt"}' },
    ])
    deepStrictEqual(toolResultsOf(fake.requests[1].body), [
      { call_id: 'toolu_1', output: 'file text', images: [] },
    ])
  })

  test('an unpaired replay is refused as the API refuses it', async () => {
    const replay = request({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        { role: 'assistant', content: [{ type: 'tool_call', id: 'toolu_9', name: 'read', arguments: '{}' }] },
        { role: 'user', content: [{ type: 'text', text: 'no result' }] },
      ],
    })
    const events = await collect(turn(replay))
    const last = events.at(-1)
    strictEqual(last?.type === 'error' && last.code, 'upstream_rejected')
    strictEqual(last?.type === 'error' && /invalid_request_error: messages\.2/.test(last.message), true)
  })

  test('overloaded is retried, then succeeds; a 401 is not retried and keeps no secret', async () => {
    fake.failTimes(1, 529)
    const ok = await collect(turn(request()))
    deepStrictEqual(ok.at(-1), { type: 'done', stop_reason: 'stop' })
    strictEqual(fake.requests.length, 2)
    fake.reset()
    fake.failTimes(1, 401, { message: 'invalid x-api-key sk-ant-secret' })
    const refused = await collect(turn(request()))
    const last = refused.at(-1)
    strictEqual(last?.type === 'error' && last.code, 'upstream_unauthorized')
    strictEqual(last?.type === 'error' && last.message.includes('sk-ant-secret'), false)
    strictEqual(last?.type === 'error' && last.message.includes('authentication_error'), true)
    strictEqual(fake.requests.length, 1)
  })

  test('a stream cut before message_stop is upstream_incomplete or dropped, never success', async () => {
    fake.enqueue({ text: ['a', 'b', 'c'], mode: 'drop', after: 1 })
    const events = await collect(turn(request()))
    const last = events.at(-1)
    strictEqual(last?.type, 'error')
    strictEqual(
      last?.type === 'error' && ['upstream_incomplete', 'upstream_dropped'].includes(last.code),
      true,
    )
  })
})
