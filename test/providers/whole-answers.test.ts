// A 200 in `application/json` where a stream was asked for, over real sockets: Google's
// endpoints answer that way when `alt=sse` is missing (a JSON array of
// GenerateContentResponse chunks; `generateContent` one object), a proxy that buffers
// passes a whole answer on, and the Messages API answers a whole Message without
// `stream: true`. Each is decoded as a complete answer by the wire's own decoder (the same
// events as the stream, the same finishReason and stop rules); JSON that is no answer of
// the wire fails as `upstream_malformed` naming what came back.
import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, beforeEach, describe, test } from 'node:test'
import { messagesStep } from '../../src/providers/anthropic-messages/transport.ts'
import { antigravity } from '../../src/providers/antigravity/transport.ts'
import { bedrockTransport } from '../../src/providers/bedrock/transport.ts'
import type {
  NeutralEvent,
  NeutralRequest,
  StreamOptions,
  TransportProfile,
} from '../../src/providers/types.ts'
import { vertexTransport } from '../../src/providers/vertex/transport.ts'
import { FakeAntigravityBackend } from '../fakes/antigravity-backend.ts'
import { FakeGeminiUpstream, type GeminiScript } from '../fakes/gemini-upstream.ts'
import { FakeGoogleToken } from '../fakes/google-token.ts'
import type { FakeScript } from '../fakes/openai-frames.ts'
import { FakeOpenAIUpstream } from '../fakes/openai-upstream.ts'
import { tempHome } from '../helpers/daemon.ts'
import { collect } from './openai-compatible/helpers.ts'

let gemini: FakeGeminiUpstream
let tokens: FakeGoogleToken
let backend: FakeAntigravityBackend
let messages: FakeOpenAIUpstream
let adcFile: string

before(async () => {
  gemini = await FakeGeminiUpstream.start()
  tokens = await FakeGoogleToken.start()
  backend = await FakeAntigravityBackend.start()
  messages = await FakeOpenAIUpstream.start()
  adcFile = join(mkdtempSync(join(tmpdir(), 'hearth-whole-')), 'adc.json')
  writeFileSync(adcFile, JSON.stringify(tokens.authorizedUser()))
})
after(async () => {
  await gemini.close()
  await tokens.close()
  await backend.close()
  await messages.close()
})
beforeEach(() => {
  gemini.reset()
  backend.scripts.length = 0
  messages.reset()
})

const opts = (over: Partial<StreamOptions> = {}): StreamOptions => ({
  signal: AbortSignal.timeout(10_000),
  retryDelayMs: () => 1,
  idleTimeoutMs: 5000,
  ...over,
})

function request(model: string, over: Partial<NeutralRequest> = {}): NeutralRequest {
  return {
    model,
    effort: null,
    system: 'Be brief.',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [{ name: 'read', description: 'Reads a file', parameters: { type: 'object', properties: {} } }],
    session_id: 'ses_whole',
    ...over,
  }
}

/** Consecutive deltas of one item joined into one. */
function joinDeltas(events: NeutralEvent[]): NeutralEvent[] {
  const out: NeutralEvent[] = []
  for (const e of events) {
    const prev = out.at(-1)
    if (
      prev &&
      (e.type === 'text_delta' || e.type === 'reasoning_delta') &&
      prev.type === e.type &&
      prev.index === e.index
    )
      out[out.length - 1] = { ...prev, delta: prev.delta + e.delta }
    else out.push(e)
  }
  return out
}

const last = (events: NeutralEvent[]) => events.at(-1) as Extract<NeutralEvent, { type: 'error' }>

function vertexTurn(): Promise<NeutralEvent[]> {
  const profile: TransportProfile = {
    endpoint: '',
    protocol: 'chat_completions',
    model: 'gemini-2.5-flash',
    api_key: null,
    project: 'proj-1',
    location: 'us-central1',
  }
  const env = { HEARTH_VERTEX_BASE_URL: gemini.url, GOOGLE_APPLICATION_CREDENTIALS: adcFile }
  return collect(vertexTransport({ env }).stream(profile, request('gemini-2.5-flash'), opts()))
}

describe('vertex: a whole Gemini answer', () => {
  const script: GeminiScript = {
    thoughts: ['Thinking.'],
    text: ['Hello', ' there.'],
    calls: [
      { name: 'read', args: { path: 'a' } },
      { name: 'read', args: { path: 'b' }, id: 'call-b' },
    ],
    usage: { prompt: 20, candidates: 7, thoughts: 3 },
  }

  test('a JSON array of chunks decodes to the events of the same answer streamed', async () => {
    gemini.enqueue(script)
    const streamed = await vertexTurn()
    gemini.enqueue({ ...script, unstreamed: 'array' })
    const whole = await vertexTurn()
    strictEqual(gemini.requests.at(-1)?.query, '?alt=sse')
    deepStrictEqual(last(whole), { type: 'done', stop_reason: 'tool_calls' })
    // Call ids made up for calls without one differ between turns; the rest is the same.
    const sameIds = (events: NeutralEvent[]) =>
      events.map((e) => (e.type === 'tool_call' && e.id !== 'call-b' ? { ...e, id: 'made-up' } : e))
    deepStrictEqual(sameIds(whole), sameIds(streamed))
  })

  test("generateContent's one object decodes too", async () => {
    gemini.enqueue({ text: ['One', ' object.'], unstreamed: 'single' })
    const events = await vertexTurn()
    const text = events.flatMap((e) => (e.type === 'text_delta' ? [e.delta] : [])).join('')
    strictEqual(text, 'One object.')
    deepStrictEqual(last(events), { type: 'done', stop_reason: 'stop' })
  })

  test('the stream rules hold: no finishReason is incomplete, MAX_TOKENS runs no call', async () => {
    gemini.enqueue({ text: ['cut'], calls: [{ name: 'read' }], mode: 'cut', unstreamed: 'array' })
    const cut = await vertexTurn()
    strictEqual(last(cut).code, 'upstream_incomplete')
    ok(!cut.some((e) => e.type === 'tool_call'))
    gemini.enqueue({
      text: ['long'],
      calls: [{ name: 'read' }],
      finishReason: 'MAX_TOKENS',
      unstreamed: 'array',
    })
    const limited = await vertexTurn()
    deepStrictEqual(last(limited), { type: 'done', stop_reason: 'length' })
    ok(!limited.some((e) => e.type === 'tool_call'))
  })
})

describe('antigravity: a whole answer in the Code Assist envelope', () => {
  test('an array of envelopes decodes as the stream does, with its signed parts entry', async () => {
    const user = { email: 'ada@example.com', project: 'proj-ada' }
    const access = backend.issue(user).access_token
    const profile: TransportProfile = {
      endpoint: backend.url,
      protocol: 'chat_completions',
      model: 'gemini-3-pro-preview',
      api_key: access,
      project: 'proj-ada',
      headers: { 'user-agent': 'antigravity/hub/1.2.3' },
    }
    backend.enqueue({ thoughts: ['Hmm.'], text: ['Whole', ' answer.'], unstreamed: 'array' })
    const events = await collect(antigravity.stream(profile, request('gemini-3-pro-preview'), opts()))
    const text = events.flatMap((e) => (e.type === 'text_delta' ? [e.delta] : [])).join('')
    strictEqual(text, 'Whole answer.')
    ok(events.some((e) => e.type === 'reasoning_delta' && e.delta === 'Hmm.'))
    ok(
      events.some(
        (e) => e.type === 'encrypted_reasoning' && e.encrypted_content.includes('antigravity.parts'),
      ),
    )
    deepStrictEqual(last(events), { type: 'done', stop_reason: 'stop' })
  })

  test('JSON that is no answer fails as malformed, naming what came back', async () => {
    const fetch = (async () => Response.json({ kind: 'not-an-answer', items: [] })) as typeof globalThis.fetch
    const profile: TransportProfile = {
      endpoint: 'http://127.0.0.1:9',
      protocol: 'chat_completions',
      model: 'gemini-2.5-flash',
      api_key: 'ya29.x',
      project: 'p',
    }
    const events = await collect(antigravity.stream(profile, request('gemini-2.5-flash'), opts({ fetch })))
    deepStrictEqual(events, [
      {
        type: 'error',
        code: 'upstream_malformed',
        message: 'the upstream answered a JSON object with keys "kind", "items" instead of an event stream',
        status: 200,
      },
    ])
  })
})

describe('Messages: a whole Message', () => {
  const bedrock = (script: FakeScript) => {
    messages.enqueue(script)
    const env = {
      HOME: tempHome('hearth-whole-'),
      HEARTH_BEDROCK_BASE_URL: messages.url,
      AWS_BEARER_TOKEN_BEDROCK: 'bedrock-key',
    }
    const profile: TransportProfile = {
      endpoint: '',
      protocol: 'chat_completions',
      model: 'm',
      api_key: null,
    }
    const req = request('us.anthropic.claude-sonnet-4-5-20250929-v1:0', { effort: null })
    return collect(bedrockTransport({ env: () => env }).stream(profile, req, opts()))
  }

  test('a 200 JSON Message decodes to the events of the same answer streamed', async () => {
    const script: FakeScript = {
      reasoning: ['Let me see.'],
      text: ['Two', ' blocks.'],
      toolCalls: [{ id: 'toolu_1', name: 'read', arguments: ['{"path":', '"a"}'] }],
    }
    const streamed = await bedrock(script)
    const whole = await bedrock({ ...script, unstreamed: true })
    // A whole block's text comes as one delta, the streamed one's in pieces.
    deepStrictEqual(whole, joinDeltas(streamed))
    deepStrictEqual(last(whole), { type: 'done', stop_reason: 'tool_calls' })
    ok(
      whole.some((e) => e.type === 'encrypted_reasoning'),
      'the signed thinking is kept',
    )
  })

  test('a 200 JSON error body is the stream error it stands for', async () => {
    const fetch = (async () =>
      Response.json({
        type: 'error',
        error: { type: 'overloaded_error', message: 'Overloaded' },
      })) as typeof globalThis.fetch
    const build = () => ({ url: 'http://127.0.0.1:9/v1/messages', headers: {}, body: '{}' })
    const events = await collect(messagesStep(build, opts({ fetch }), null))
    strictEqual(last(events).code, 'upstream_unavailable')
    ok(last(events).message.includes('Overloaded'), last(events).message)
  })
})
