// The copilot transport against the fake Copilot API over a real socket: the URL without
// `/v1`, the headers (profile's, bearer, x-initiator, copilot-vision-request), the bodies
// within OpenAI's published params and Copilot's rules, and Copilot's refusals read into
// stable codes and limit marks.
import { deepStrictEqual, equal, match, ok, strictEqual } from 'node:assert/strict'
import { afterEach, beforeEach, describe, test } from 'node:test'
import { DIRECT_HEADERS, EXCHANGE_HEADERS } from '../../../src/providers/copilot/constants.ts'
import { nextMonthUtc } from '../../../src/providers/copilot/limits.ts'
import { copilotUrl, copilot as transport } from '../../../src/providers/copilot/transport.ts'
import { transportFor } from '../../../src/providers/transports.ts'
import type {
  NeutralEvent,
  NeutralRequest,
  StreamOptions,
  TransportProfile,
} from '../../../src/providers/types.ts'
import {
  FakeCopilotUpstream,
  MODEL_NOT_SUPPORTED,
  QUOTA_EXCEEDED,
  rateLimited,
} from '../../fakes/copilot-upstream.ts'
import { chatParamsError, responsesParamsError } from '../../fakes/openai-params.ts'
import { callTools } from '../../fakes/tool-script.ts'
import { collect, request } from '../openai-compatible/helpers.ts'

const TOKEN = 'tid=abc;exp=9999999999;proxy-ep=proxy.individual.githubcopilot.com;8kp=1:secret'
let fake: FakeCopilotUpstream

beforeEach(async () => {
  fake = await FakeCopilotUpstream.start()
})
afterEach(async () => {
  await fake.close()
})

function profile(protocol: TransportProfile['protocol'], extra: Partial<TransportProfile> = {}) {
  return {
    endpoint: fake.url,
    protocol,
    model: 'gpt-4.1',
    api_key: TOKEN,
    headers: { ...EXCHANGE_HEADERS },
    ...extra,
  } satisfies TransportProfile
}

function stream(p: TransportProfile, req: NeutralRequest = request(), opts: Partial<StreamOptions> = {}) {
  return collect(
    transport.stream(p, req, {
      signal: new AbortController().signal,
      retryDelayMs: () => 1,
      idleTimeoutMs: 2000,
      ...opts,
    }),
  )
}

const errorOf = (events: NeutralEvent[]) => events.find((e) => e.type === 'error') as any
const IMAGE = { type: 'image' as const, media_type: 'image/png' as const, data: 'iVBORw0KGgo=' }

/** A conversation that called a tool: the last input is the tool's result. */
const AFTER_TOOL = request({
  system: 'Be brief.',
  effort: 'high',
  tools: [{ name: 'read', description: 'Read a file', parameters: { type: 'object', properties: {} } }],
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'Read notes.txt' }] },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'I should read it.' },
        { type: 'tool_call', id: 'call_1', name: 'read', arguments: '{"path":"notes.txt"}' },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'the notes', images: [IMAGE] },
  ],
})

describe('copilot transport', () => {
  test('the kernel finds it by the folder name', () => {
    strictEqual(transportFor('copilot'), transport)
  })

  test('the URL is {api}/chat/completions or {api}/responses, never with /v1', () => {
    equal(
      copilotUrl('https://api.githubcopilot.com', 'chat_completions'),
      'https://api.githubcopilot.com/chat/completions',
    )
    equal(
      copilotUrl('https://api.githubcopilot.com/', 'responses'),
      'https://api.githubcopilot.com/responses',
    )
    equal(
      copilotUrl('https://copilot-api.octo.ghe.com/chat/completions', 'chat_completions'),
      'https://copilot-api.octo.ghe.com/chat/completions',
    )
  })

  test('Chat Completions: the person asks; the profile headers, bearer, x-initiator user, Copilot body rules', async () => {
    const events = await stream(profile('chat_completions'), request({ system: 'Be brief.', effort: 'high' }))
    deepStrictEqual(events.at(-1), { type: 'done', stop_reason: 'stop' })
    const sent = fake.requests[0]!
    equal(sent.path, '/chat/completions')
    equal(sent.headers.authorization, `Bearer ${TOKEN}`)
    for (const [name, value] of Object.entries(EXCHANGE_HEADERS)) equal(sent.headers[name], value, name)
    equal(sent.headers['openai-intent'], 'conversation-edits')
    equal(sent.headers['x-initiator'], 'user')
    equal(sent.headers['copilot-vision-request'], undefined)
    equal(sent.body.messages[0].role, 'system')
    equal(sent.body.store, undefined)
    equal(sent.body.reasoning_effort, undefined, 'Copilot takes no reasoning_effort on Chat Completions')
    equal(sent.body.prompt_cache_key, undefined)
    deepStrictEqual(sent.body.stream_options, { include_usage: true })
    equal(chatParamsError(sent.body), null)
  })

  test('Chat Completions after a tool result: x-initiator agent, the vision header, within OpenAI params', async () => {
    const events = await stream(profile('chat_completions'), AFTER_TOOL)
    equal(events.at(-1)?.type, 'done', JSON.stringify(errorOf(events)))
    const sent = fake.requests[0]!
    equal(sent.headers['x-initiator'], 'agent')
    equal(sent.headers['copilot-vision-request'], 'true')
    const assistant = sent.body.messages.find((m: any) => m.role === 'assistant')
    equal(assistant.reasoning_content, undefined)
    equal(assistant.tool_calls[0].id, 'call_1')
    equal(sent.body.tools[0].function.name, 'read')
    equal(chatParamsError(sent.body), null)
  })

  test('Responses: /responses, effort as reasoning, no max_output_tokens or prompt_cache_key', async () => {
    const events = await stream(profile('responses', { model: 'gpt-5.2-codex' }), AFTER_TOOL)
    equal(events.at(-1)?.type, 'done', JSON.stringify(errorOf(events)))
    const sent = fake.requests[0]!
    equal(sent.path, '/responses')
    equal(sent.headers['x-initiator'], 'agent')
    equal(sent.headers['copilot-vision-request'], 'true')
    deepStrictEqual(sent.body.reasoning, { effort: 'high' })
    equal(sent.body.max_output_tokens, undefined)
    equal(sent.body.prompt_cache_key, undefined)
    equal(sent.body.instructions, 'Be brief.')
    equal(responsesParamsError(sent.body), null)
  })

  test('an image from the person sends the vision header and x-initiator user', async () => {
    const req = request({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'what is it?' }, IMAGE] }],
    })
    await stream(profile('responses'), req)
    equal(fake.requests[0]!.headers['copilot-vision-request'], 'true')
    equal(fake.requests[0]!.headers['x-initiator'], 'user')
  })

  test("a compaction's summary is the agent's request", async () => {
    await stream(profile('chat_completions'), request({ whole: true }))
    equal(fake.requests[0]!.headers['x-initiator'], 'agent')
  })

  test('a tool call streams back as a neutral tool_call', async () => {
    fake.enqueue(callTools({ name: 'read', arguments: { path: 'a' }, id: 'call_9' }))
    const events = await stream(profile('chat_completions'), AFTER_TOOL)
    const call = events.find((e) => e.type === 'tool_call') as any
    equal(call.id, 'call_9')
    equal(call.arguments, '{"path":"a"}')
    deepStrictEqual(events.at(-1), { type: 'done', stop_reason: 'tool_calls' })
  })

  test('a profile header cannot replace the bearer or the per-request headers', async () => {
    await stream(
      profile('chat_completions', {
        headers: { ...EXCHANGE_HEADERS, Authorization: 'Bearer other', 'X-Initiator': 'user' },
      }),
      AFTER_TOOL,
    )
    equal(fake.requests[0]!.headers.authorization, `Bearer ${TOKEN}`)
    equal(fake.requests[0]!.headers['x-initiator'], 'agent')
  })

  test('401: upstream_unauthorized ending in run /login, the token never in the message', async () => {
    fake.accepts = () => false
    const error = errorOf(await stream(profile('chat_completions')))
    equal(error.code, 'upstream_unauthorized')
    equal(error.status, 401)
    match(error.message, /run \/login$/)
    ok(!error.message.includes(TOKEN))
    const exchanged = errorOf(await stream(profile('chat_completions', { headers: EXCHANGE_HEADERS })))
    match(exchanged.message, /GitHub Copilot refused the sign-in, run \/login$/)
    const direct = errorOf(await stream(profile('chat_completions', { headers: DIRECT_HEADERS })))
    match(
      direct.message,
      /refused the GitHub token \(a GitHub CLI token .*\); sign in with a code: run \/login$/,
    )
  })

  test('no token: upstream_unauthorized at once, nothing sent', async () => {
    const error = errorOf(await stream(profile('chat_completions', { api_key: null })))
    equal(error.code, 'upstream_unauthorized')
    match(error.message, /run \/login$/)
    equal(fake.requests.length, 0)
  })

  test('402 quota_exceeded: rate limited, not retried, limited until the month renews', async () => {
    fake.refuse(QUOTA_EXCEEDED)
    const before = Date.now()
    const error = errorOf(await stream(profile('chat_completions')))
    equal(fake.requests.length, 1, 'not retried')
    equal(error.code, 'upstream_rate_limited')
    match(error.message, /premium requests .* used up \(You have no quota\)/)
    equal(error.limited_until_ms, nextMonthUtc(before))
  })

  test('402 with Retry-After: limited until then', async () => {
    fake.refuse({ ...QUOTA_EXCEEDED, headers: { 'retry-after': '3600' } })
    const before = Date.now()
    const error = errorOf(await stream(profile('responses')))
    ok(error.limited_until_ms >= before + 3_600_000 && error.limited_until_ms <= Date.now() + 3_600_000)
  })

  test('429: retried, then rate limited with the Retry-After as the limit mark and the limit named', async () => {
    for (let i = 0; i < 4; i++) fake.refuse(rateLimited(30))
    const before = Date.now()
    const error = errorOf(await stream(profile('chat_completions'), request(), { maxRetries: 3 }))
    equal(fake.requests.length, 4, 'retried three times')
    equal(error.code, 'upstream_rate_limited')
    match(error.message, /rate-limited.*global-chat/)
    ok(error.limited_until_ms >= before + 30_000 && error.limited_until_ms <= Date.now() + 30_000)
  })

  test('429 without Retry-After: the account is set aside a minute', async () => {
    fake.refuse({ status: 429, body: { error: { message: 'rate limited' } } })
    const before = Date.now()
    const error = errorOf(await stream(profile('chat_completions'), request(), { maxRetries: 0 }))
    equal(error.code, 'upstream_rate_limited')
    ok(error.limited_until_ms >= before + 60_000 && error.limited_until_ms <= Date.now() + 60_000)
  })

  test('429 then success: the step completes', async () => {
    fake.refuse(rateLimited(0))
    const events = await stream(profile('chat_completions'))
    equal(events.at(-1)?.type, 'done')
    equal(fake.requests.length, 2)
  })

  test('a model the account may not use: upstream_rejected naming the model, not retried', async () => {
    fake.refuse(MODEL_NOT_SUPPORTED)
    const error = errorOf(
      await stream(profile('chat_completions', { model: 'claude-opus-4.5' }), request({ model: '' })),
    )
    equal(error.code, 'upstream_rejected')
    match(error.message, /claude-opus-4\.5/)
    match(error.message, /choose another model/)
    equal(fake.requests.length, 1)
  })

  test('a 403 naming a disabled model policy reads the same', async () => {
    fake.refuse({
      status: 403,
      body: { error: { message: 'Model gpt-5 is disabled by your organization policy' } },
    })
    const error = errorOf(await stream(profile('responses', { model: 'gpt-5' }), request({ model: 'gpt-5' })))
    equal(error.code, 'upstream_rejected')
    match(error.message, /gpt-5/)
  })

  test('the params check refuses what OpenAI does not publish (so the checks above can fail)', () => {
    equal(
      chatParamsError({
        model: 'm',
        messages: [{ role: 'assistant', content: 'x', reasoning_content: 'y' }],
      }),
      'messages[0].reasoning_content',
    )
    equal(chatParamsError({ model: 'm', messages: [], max_output_tokens: 5 }), 'body.max_output_tokens')
    equal(responsesParamsError({ model: 'm', input: [], reasoning_effort: 'high' }), 'body.reasoning_effort')
    equal(
      responsesParamsError({
        model: 'm',
        input: [{ type: 'message', role: 'user', content: [{ type: 'image', data: '' }] }],
      }),
      'input[0].content[0] is of a kind the API does not know',
    )
  })
})
