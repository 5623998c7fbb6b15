// The claude transport over a real socket against the fake upstream's Messages route,
// reached through HEARTH_CLAUDE_BASE_URL: thinking with a signature, tool input streamed in
// pieces (and its name mapped back), an `error` event mid-stream, max_tokens, a refused
// token, and the request as sent.
import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict'
import { after, before, beforeEach, describe, test } from 'node:test'
import { claude } from '../../../src/providers/claude/transport.ts'
import type { NeutralEvent, NeutralRequest, TransportProfile } from '../../../src/providers/types.ts'
import { FAKE_SIGNATURE } from '../../fakes/anthropic-frames.ts'
import { FakeOpenAIUpstream } from '../../fakes/openai-upstream.ts'

let fake: FakeOpenAIUpstream
const TOKEN = 'sk-ant-oat01-secret-token'

before(async () => {
  fake = await FakeOpenAIUpstream.start()
  process.env.HEARTH_CLAUDE_BASE_URL = fake.url
})
after(async () => {
  delete process.env.HEARTH_CLAUDE_BASE_URL
  await fake.close()
})
beforeEach(() => fake.reset())

const profile = (over: Partial<TransportProfile> = {}): TransportProfile => ({
  endpoint: 'https://api.anthropic.com',
  protocol: 'chat_completions',
  model: 'claude-sonnet-4-5-20250929',
  api_key: TOKEN,
  ...over,
})

function request(over: Partial<NeutralRequest> = {}): NeutralRequest {
  return {
    model: 'claude-sonnet-4-5-20250929',
    effort: 'low',
    system: null,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    session_id: 'ses_1',
    ...over,
  }
}

async function run(req = request(), p = profile()): Promise<NeutralEvent[]> {
  const out: NeutralEvent[] = []
  const opts = { signal: AbortSignal.timeout(10_000), retryDelayMs: () => 1 }
  for await (const e of claude.stream(p, req, opts)) out.push(e)
  return out
}

const frame = (type: string, fields: Record<string, unknown> = {}) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`

describe('claude transport', () => {
  test('posts to the hook with the subscription headers; thinking keeps its signature', async () => {
    fake.enqueue({ reasoning: ['Let me ', 'think.'], text: ['Hel', 'lo'], usage: { input: 10, output: 5 } })
    const events = await run()
    const sent = fake.requests[0]
    strictEqual(sent.path, '/v1/messages')
    strictEqual(sent.headers.authorization, `Bearer ${TOKEN}`)
    strictEqual(sent.headers['x-api-key'], undefined)
    ok(String(sent.headers['anthropic-beta']).includes('oauth-2025-04-20'))
    strictEqual(sent.headers['x-app'], 'cli')
    strictEqual(sent.body.model, 'claude-sonnet-4-5-20250929')
    strictEqual(sent.body.system[0].text.startsWith('x-anthropic-billing-header:'), true)
    deepStrictEqual(sent.body.thinking, { type: 'enabled', budget_tokens: 2048 })
    deepStrictEqual(events, [
      { type: 'start' },
      { type: 'reasoning_delta', index: 0, delta: 'Let me ' },
      { type: 'reasoning_delta', index: 0, delta: 'think.' },
      {
        type: 'encrypted_reasoning',
        index: 0,
        summary: ['Let me think.'],
        encrypted_content: FAKE_SIGNATURE,
      },
      { type: 'text_delta', index: 1, delta: 'Hel' },
      { type: 'text_delta', index: 1, delta: 'lo' },
      {
        type: 'usage',
        usage: {
          prompt_tokens: 10,
          cached_prompt_tokens: 0,
          cache_write_tokens: 0,
          completion_tokens: 5,
          total_tokens: 15,
        },
      },
      { type: 'done', stop_reason: 'stop' },
    ])
  })

  test("tool input streamed in pieces; Claude Code's name maps back to the offered tool", async () => {
    fake.enqueue({
      toolCall: { id: 'toolu_01', name: 'Read', arguments: ['{"pa', 'th": "a', '.txt"}'] },
    })
    const tools = [
      { name: 'read', description: 'Read a file', parameters: { type: 'object', properties: {} } },
    ]
    const events = await run(request({ tools, effort: null }))
    deepStrictEqual(fake.requests[0].body.tools[0].name, 'Read')
    const call = events.find((e) => e.type === 'tool_call')
    deepStrictEqual(call, {
      type: 'tool_call',
      index: 0,
      id: 'toolu_01',
      name: 'read',
      arguments: '{"path": "a.txt"}',
    })
    deepStrictEqual(events.at(-1), { type: 'done', stop_reason: 'tool_calls' })
  })

  test('max_tokens ends the turn with length', async () => {
    fake.enqueue({ text: ['cut'], finish: 'length' })
    deepStrictEqual((await run()).at(-1), { type: 'done', stop_reason: 'length' })
  })

  test('an error event mid-stream fails the turn; the text before it was streamed', async () => {
    const raw =
      frame('message_start', {
        message: {
          id: 'm',
          type: 'message',
          role: 'assistant',
          content: [],
          usage: { input_tokens: 3, output_tokens: 1 },
        },
      }) +
      frame('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
      frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Partial' } }) +
      frame('error', { error: { type: 'overloaded_error', message: 'Overloaded' } })
    fake.enqueue({ raw })
    const events = await run()
    deepStrictEqual(events.slice(0, 2), [
      { type: 'start' },
      { type: 'text_delta', index: 0, delta: 'Partial' },
    ])
    const last = events.at(-1)
    strictEqual(last?.type, 'error')
    strictEqual(last?.type === 'error' && last.code, 'upstream_unavailable')
    ok(last?.type === 'error' && last.message.includes('Overloaded'))
  })

  test('401: upstream_unauthorized, not retried, ending in run /login, token never shown', async () => {
    fake.enqueue({ status: 401, errorMessage: `Invalid bearer token ${TOKEN}` })
    const events = await run()
    strictEqual(fake.requests.length, 1)
    strictEqual(events.length, 1)
    const e = events[0]
    strictEqual(e.type, 'error')
    if (e.type !== 'error') return
    strictEqual(e.code, 'upstream_unauthorized')
    strictEqual(e.status, 401)
    ok(e.message.endsWith('run /login'), e.message)
    ok(!e.message.includes(TOKEN), e.message)
  })

  test('a refusal on policy grounds points to Bedrock or an API key', async () => {
    fake.enqueue({
      status: 400,
      errorMessage:
        'This credential is only authorized for use with Claude Code and cannot be used for other API requests.',
    })
    const [e] = await run()
    strictEqual(e.type === 'error' && e.code, 'upstream_rejected')
    ok(
      e.type === 'error' &&
        /use Amazon Bedrock \(extension bedrock\) or an Anthropic API key$/.test(e.message),
      JSON.stringify(e),
    )
  })

  test('no token: nothing is sent; a plain-http profile endpoint without the hook is refused', async () => {
    const none = await run(request(), profile({ api_key: null }))
    strictEqual(none[0].type === 'error' && none[0].message, 'not signed in to Claude; run /login')
    delete process.env.HEARTH_CLAUDE_BASE_URL
    try {
      const events = await run(request(), profile({ endpoint: fake.url }))
      strictEqual(events[0].type === 'error' && events[0].code, 'upstream_rejected')
    } finally {
      process.env.HEARTH_CLAUDE_BASE_URL = fake.url
    }
    strictEqual(fake.requests.length, 0)
  })
})
