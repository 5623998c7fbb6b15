// The claude request as pure functions: the URL and its hook, the client headers, the
// system blocks, tool names both ways, and the flattening of top-level schema combiners.
import { deepStrictEqual, ok, strictEqual, throws } from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  claudeBody,
  claudeHeaders,
  claudeUrl,
  encode,
  offeredToolName,
  wireToolName,
} from '../../../src/providers/claude/request.ts'
import { flattenToolSchema } from '../../../src/providers/claude/schema.ts'
import type { NeutralRequest } from '../../../src/providers/types.ts'

function request(over: Partial<NeutralRequest> = {}): NeutralRequest {
  return {
    model: 'claude-sonnet-4-5-20250929',
    effort: null,
    system: 'Work in /tmp.',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    session_id: 'ses_1',
    ...over,
  }
}

describe('claudeUrl', () => {
  test('the hook wins, may be http, and gets /v1/messages', () => {
    const env = { HEARTH_CLAUDE_BASE_URL: 'http://127.0.0.1:4010' }
    strictEqual(claudeUrl('', env), 'http://127.0.0.1:4010/v1/messages')
    strictEqual(claudeUrl('https://proxy.example/anthropic', env), 'http://127.0.0.1:4010/v1/messages')
  })

  test('else the profile endpoint (https only), else api.anthropic.com', () => {
    strictEqual(claudeUrl('', {}), 'https://api.anthropic.com/v1/messages')
    strictEqual(claudeUrl('https://gw.example/', {}), 'https://gw.example/v1/messages')
    strictEqual(claudeUrl('https://gw.example/v1', {}), 'https://gw.example/v1/messages')
    strictEqual(claudeUrl('https://gw.example/v1/messages', {}), 'https://gw.example/v1/messages')
    throws(() => claudeUrl('http://127.0.0.1:9', {}), /must be https/)
  })
})

describe('headers', () => {
  test('bearer token, the OAuth beta, the client headers; no x-api-key', () => {
    const h = claudeHeaders('sk-ant-oat01-t', 'claude-opus-4-6')
    deepStrictEqual(h, {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'anthropic-version': '2023-06-01',
      authorization: 'Bearer sk-ant-oat01-t',
      'anthropic-beta': 'claude-code-20250219,oauth-2025-04-20,fine-grained-tool-streaming-2025-05-14',
      'anthropic-dangerous-direct-browser-access': 'true',
      'user-agent': 'claude-cli/2.1.75 (external, cli)',
      'x-app': 'cli',
    })
  })

  test('budget-thinking models also get the interleaved-thinking beta', () => {
    const h = claudeHeaders('t', 'claude-sonnet-4-5-20250929')
    ok(h['anthropic-beta'].endsWith(',interleaved-thinking-2025-05-14'), h['anthropic-beta'])
  })
})

describe('body', () => {
  test('system[0] the billing attribution text, system[1] the identity, then the system text', () => {
    const body = claudeBody(request())
    deepStrictEqual(body.system, [
      { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1.75; cc_entrypoint=cli;' },
      { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude." },
      { type: 'text', text: 'Work in /tmp.' },
    ])
    strictEqual(body.model, 'claude-sonnet-4-5-20250929')
    strictEqual(body.stream, true)
    strictEqual(body.max_tokens, 32_000)
  })

  test("tools and replayed calls go by Claude Code's names; others as they are", () => {
    const body = claudeBody(
      request({
        tools: [
          { name: 'read', description: 'Read a file', parameters: { type: 'object', properties: {} } },
          { name: 'shell', description: 'Run', parameters: { type: 'object', properties: {} } },
        ],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'go' }] },
          {
            role: 'assistant',
            content: [{ type: 'tool_call', id: 'toolu_1', name: 'read', arguments: '{}' }],
          },
          { role: 'tool', tool_call_id: 'toolu_1', content: 'text' },
        ],
      }),
    )
    deepStrictEqual(
      (body.tools as { name: string }[]).map((t) => t.name),
      ['Read', 'shell'],
    )
    const assistant = (body.messages as { content: { name?: string }[] }[])[1]
    strictEqual(assistant.content[0].name, 'Read')
    strictEqual(wireToolName('GREP'), 'Grep')
    strictEqual(offeredToolName('Read', ['read', 'shell']), 'read')
    strictEqual(offeredToolName('shell', ['read', 'shell']), 'shell')
    strictEqual(offeredToolName('Unknown', ['read']), 'Unknown')
  })

  test('signed thinking is replayed to the model that produced it', () => {
    const body = claudeBody(
      request({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'q' }] },
          {
            role: 'assistant',
            content: [
              {
                type: 'encrypted_reasoning',
                summary: ['thought'],
                encrypted_content: 'sig',
                model: 'claude-sonnet-4-5-20250929',
              },
              { type: 'text', text: 'a' },
            ],
          },
          { role: 'user', content: [{ type: 'text', text: 'q2' }] },
        ],
      }),
    )
    const assistant = (body.messages as { content: unknown[] }[])[1]
    deepStrictEqual(assistant.content[0], { type: 'thinking', thinking: 'thought', signature: 'sig' })
  })

  test('encode: the URL, headers and body together; the session model goes upstream', () => {
    const e = encode(
      { endpoint: '', protocol: 'chat_completions', model: 'profile-model', api_key: 'tok' },
      request({ model: 'claude-haiku-4-5' }),
      { HEARTH_CLAUDE_BASE_URL: 'http://127.0.0.1:1' },
    )
    strictEqual(e.url, 'http://127.0.0.1:1/v1/messages')
    strictEqual(e.headers.authorization, 'Bearer tok')
    strictEqual(JSON.parse(e.body).model, 'claude-haiku-4-5')
  })
})

describe('flattenToolSchema', () => {
  test('oneOf: property alternatives and the required names every branch shares', () => {
    const schema = {
      $defs: { mode: { type: 'string' } },
      description: 'Find things',
      'x-hearth': { kept: true },
      oneOf: [
        {
          type: 'object',
          properties: { path: { type: 'string' }, depth: { type: 'integer' } },
          required: ['path', 'depth'],
        },
        {
          type: 'object',
          properties: { path: { type: 'string' }, pattern: { type: 'string' } },
          required: ['path', 'pattern'],
        },
      ],
    }
    deepStrictEqual(flattenToolSchema(schema), {
      $defs: { mode: { type: 'string' } },
      description: 'Find things',
      'x-hearth': { kept: true },
      type: 'object',
      properties: { path: { type: 'string' }, depth: { type: 'integer' }, pattern: { type: 'string' } },
      required: ['path'],
    })
  })

  test('anyOf with differing definitions of one property; top-level required kept', () => {
    const out = flattenToolSchema({
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
      anyOf: [
        { properties: { value: { type: 'string' } }, required: ['value'] },
        { properties: { value: { type: 'number' } }, required: ['value'] },
      ],
    })
    deepStrictEqual(out, {
      type: 'object',
      properties: { id: { type: 'string' }, value: { anyOf: [{ type: 'string' }, { type: 'number' }] } },
      required: ['id', 'value'],
    })
  })

  test('allOf: every branch applies, so every required name counts', () => {
    const out = flattenToolSchema({
      allOf: [
        { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
        { type: 'object', properties: { b: { type: 'string' } }, required: ['b'] },
      ],
    })
    deepStrictEqual(out, {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      required: ['a', 'b'],
    })
  })

  test('nested combiners and schemas without top-level ones are untouched', () => {
    const nested = {
      type: 'object',
      properties: { target: { oneOf: [{ type: 'string' }, { type: 'integer' }] } },
      required: ['target'],
    }
    strictEqual(flattenToolSchema(nested), nested)
    const out = flattenToolSchema({
      oneOf: [{ type: 'object', properties: { x: { anyOf: [{ type: 'string' }, { type: 'null' }] } } }],
    })
    deepStrictEqual(out, {
      type: 'object',
      properties: { x: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
    })
  })
})
