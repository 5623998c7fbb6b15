import { deepStrictEqual, strictEqual } from 'node:assert/strict'
import { describe, test } from 'node:test'
import { messagesBody, toolInput } from '../../../src/providers/anthropic-messages/encode.ts'
import { modelFacts, parseModel } from '../../../src/providers/anthropic-messages/models.ts'
import type { NeutralMessage, NeutralRequest } from '../../../src/providers/types.ts'

function request(overrides: Partial<NeutralRequest> = {}): NeutralRequest {
  return {
    model: 'claude-sonnet-4-5-20250929',
    effort: null,
    system: null,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi there' }] }],
    tools: [],
    session_id: '0190f5a0-0000-7000-8000-000000000001',
    ...overrides,
  }
}

const PNG = 'iVBORw0KGgo='

describe('Messages request body', () => {
  test('a plain turn: model, max_tokens, messages, stream; no system, tools or thinking', () => {
    deepStrictEqual(messagesBody(request()), {
      model: 'claude-sonnet-4-5-20250929',
      max_tokens: 32_000,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi there' }] }],
      stream: true,
    })
  })

  test('system: the caller’s blocks first, then the request’s system text', () => {
    const body = messagesBody(request({ system: 'Be brief.' }), {
      systemPrefix: [{ type: 'text', text: 'You are Claude Code.' }],
    })
    deepStrictEqual(body.system, [
      { type: 'text', text: 'You are Claude Code.' },
      { type: 'text', text: 'Be brief.' },
    ])
    deepStrictEqual(messagesBody(request({ system: 'Be brief.' })).system, [
      { type: 'text', text: 'Be brief.' },
    ])
  })

  test('user images as base64 image blocks; empty text left out', () => {
    const body = messagesBody(
      request({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: '' },
              { type: 'text', text: 'What is this?' },
              { type: 'image', media_type: 'image/png', data: PNG },
            ],
          },
        ],
      }),
    )
    deepStrictEqual(body.messages, [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        ],
      },
    ])
  })

  test('tool_use / tool_result pairing: results in one user message, in call order, images inside', () => {
    const messages: NeutralMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'Read both' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'I should read them.' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_call', id: 'toolu_a', name: 'read', arguments: '{"path":"a.txt"}' },
          { type: 'tool_call', id: 'toolu_b', name: 'read', arguments: '{"path": "b.png"' },
        ],
      },
      // Results arrive in the order the tools finished: b first.
      {
        role: 'tool',
        tool_call_id: 'toolu_b',
        content: '',
        images: [{ media_type: 'image/png', data: PNG }],
      },
      { role: 'tool', tool_call_id: 'toolu_a', content: 'alpha' },
      { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
    ]
    const body = messagesBody(
      request({
        messages,
        tools: [{ name: 'read', description: 'Read a file', parameters: { type: 'object', properties: {} } }],
      }),
    )
    deepStrictEqual(body.tools, [
      { name: 'read', description: 'Read a file', input_schema: { type: 'object', properties: {} } },
    ])
    deepStrictEqual(body.messages, [
      { role: 'user', content: [{ type: 'text', text: 'Read both' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'toolu_a', name: 'read', input: { path: 'a.txt' } },
          // Broken JSON arguments: `{}`.
          { type: 'tool_use', id: 'toolu_b', name: 'read', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: 'alpha' },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_b',
            content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }],
          },
          // The user message after the results is merged into the same user turn, after them.
          { type: 'text', text: 'Thanks' },
        ],
      },
    ])
  })

  test('consecutive same-role messages are merged', () => {
    const body = messagesBody(
      request({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'one' }] },
          { role: 'user', content: [{ type: 'text', text: 'two' }] },
          { role: 'assistant', content: [{ type: 'text', text: 'a' }] },
          { role: 'assistant', content: [{ type: 'text', text: 'b' }] },
          { role: 'user', content: [{ type: 'text', text: 'three' }] },
        ],
      }),
    )
    deepStrictEqual(body.messages, [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'three' }] },
    ])
  })

  test('signed thinking: dropped by default, replayed first to the same model with replayThinking', () => {
    const messages: NeutralMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'Q' }] },
      {
        role: 'assistant',
        content: [
          {
            type: 'encrypted_reasoning',
            summary: ['thought'],
            encrypted_content: 'SIG',
            model: 'claude-opus-4-6',
          },
          {
            type: 'encrypted_reasoning',
            summary: [],
            encrypted_content: 'REDACTED',
            model: 'claude-opus-4-6',
          },
          {
            type: 'encrypted_reasoning',
            summary: ['other'],
            encrypted_content: 'X',
            model: 'claude-opus-4-5',
          },
          { type: 'text', text: 'A' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Q2' }] },
    ]
    const req = request({ model: 'claude-opus-4-6', messages })
    deepStrictEqual((messagesBody(req).messages as any[])[1].content, [{ type: 'text', text: 'A' }])
    deepStrictEqual((messagesBody(req, { replayThinking: true }).messages as any[])[1].content, [
      { type: 'thinking', thinking: 'thought', signature: 'SIG' },
      { type: 'redacted_thinking', data: 'REDACTED' },
      { type: 'text', text: 'A' },
    ])
  })

  test('invalid or non-object call arguments become {}', () => {
    deepStrictEqual(toolInput('{"a":1}'), { a: 1 })
    deepStrictEqual(toolInput('{"a":'), {})
    deepStrictEqual(toolInput('[1,2]'), {})
    deepStrictEqual(toolInput(''), {})
  })
})

describe('thinking per model family', () => {
  test('model ids of every spelling reduce to a family and a version', () => {
    deepStrictEqual(parseModel('claude-sonnet-4-5-20250929'), { family: 'sonnet', version: 4.5 })
    deepStrictEqual(parseModel('us.anthropic.claude-sonnet-4-20250514-v1:0'), {
      family: 'sonnet',
      version: 4,
    })
    deepStrictEqual(parseModel('anthropic.claude-opus-4-6-v1'), { family: 'opus', version: 4.6 })
    deepStrictEqual(parseModel('claude-3-7-sonnet-20250219'), { family: 'sonnet', version: 3.7 })
    deepStrictEqual(parseModel('claude-3-haiku-20240307'), { family: 'haiku', version: 3 })
    deepStrictEqual(parseModel('claude-sonnet-4-5@20250929'), { family: 'sonnet', version: 4.5 })
    deepStrictEqual(parseModel('claude-mythos-preview'), { family: 'mythos', version: null })
    deepStrictEqual(parseModel('claude-sonnet-5'), { family: 'sonnet', version: 5 })
    strictEqual(parseModel('arn:aws:bedrock:us-east-1:123:application-inference-profile/abc'), null)
  })

  test('adaptive models: thinking adaptive and output_config.effort; xhigh where taken, else max, else high', () => {
    const body = (model: string, effort: string) => messagesBody(request({ model, effort }))
    const opus46 = body('claude-opus-4-6', 'medium')
    deepStrictEqual(opus46.thinking, { type: 'adaptive' })
    deepStrictEqual(opus46.output_config, { effort: 'medium' })
    strictEqual(opus46.max_tokens, 32_000)
    deepStrictEqual(body('claude-opus-4-6', 'minimal').output_config, { effort: 'low' })
    deepStrictEqual(body('claude-opus-4-6', 'xhigh').output_config, { effort: 'max' })
    deepStrictEqual(body('claude-opus-4-7', 'xhigh').output_config, { effort: 'xhigh' })
    deepStrictEqual(body('claude-sonnet-4-6', 'xhigh').output_config, { effort: 'max' })
    deepStrictEqual(body('claude-haiku-5-5', 'xhigh').output_config, { effort: 'high' })
    deepStrictEqual(body('anthropic.claude-fable-5', 'high').output_config, { effort: 'high' })
  })

  test('budget models: budget_tokens per effort, max_tokens raised within the model limit', () => {
    const sonnet45 = messagesBody(request({ effort: 'medium' }))
    deepStrictEqual(sonnet45.thinking, { type: 'enabled', budget_tokens: 8_192 })
    strictEqual(sonnet45.max_tokens, 40_192)
    strictEqual(sonnet45.output_config, undefined)
    const high = messagesBody(request({ model: 'claude-3-7-sonnet-20250219', effort: 'xhigh' }))
    deepStrictEqual(high.thinking, { type: 'enabled', budget_tokens: 32_768 })
    strictEqual(high.max_tokens, 64_000)
    // Opus 4.1 answers at most 32,000 tokens: the budget leaves 1,024 to answer.
    const opus41 = messagesBody(request({ model: 'claude-opus-4-1-20250805', effort: 'xhigh' }))
    deepStrictEqual(opus41.thinking, { type: 'enabled', budget_tokens: 30_976 })
    strictEqual(opus41.max_tokens, 32_000)
  })

  test('no effort, or a model that does not think: no thinking fields; temperature only then', () => {
    const plain = messagesBody(request(), { temperature: 0.2 })
    strictEqual(plain.thinking, undefined)
    strictEqual(plain.temperature, 0.2)
    const old = messagesBody(request({ model: 'claude-3-5-haiku-20241022', effort: 'high' }))
    strictEqual(old.thinking, undefined)
    strictEqual(old.max_tokens, 8_192)
    const thinking = messagesBody(request({ effort: 'low' }), { temperature: 0.2 })
    strictEqual(thinking.temperature, undefined)
    strictEqual(
      messagesBody(request({ model: 'claude-opus-4-6', effort: 'low' }), { temperature: 1 }).temperature,
      undefined,
    )
  })

  test('a budget model mid tool loop without replayed thinking goes without thinking; adaptive keeps it', () => {
    const messages: NeutralMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'Read it' }] },
      { role: 'assistant', content: [{ type: 'tool_call', id: 'toolu_1', name: 'read', arguments: '{}' }] },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'text' },
    ]
    strictEqual(messagesBody(request({ effort: 'high', messages })).thinking, undefined)
    deepStrictEqual(messagesBody(request({ model: 'claude-opus-4-7', effort: 'high', messages })).thinking, {
      type: 'adaptive',
    })
    const signed: NeutralMessage[] = [
      messages[0] as NeutralMessage,
      {
        role: 'assistant',
        content: [
          {
            type: 'encrypted_reasoning',
            summary: ['t'],
            encrypted_content: 'S',
            model: 'claude-sonnet-4-5-20250929',
          },
          { type: 'tool_call', id: 'toolu_1', name: 'read', arguments: '{}' },
        ],
      },
      messages[2] as NeutralMessage,
    ]
    deepStrictEqual(
      messagesBody(request({ effort: 'high', messages: signed }), { replayThinking: true }).thinking,
      {
        type: 'enabled',
        budget_tokens: 16_384,
      },
    )
  })

  test('an id naming no family gets the fallback output limit and no thinking', () => {
    const facts = modelFacts('my-custom-deployment')
    deepStrictEqual(facts, { maxOutput: 32_000, thinking: 'none', xhigh: false, max: false })
  })
})
