// The bedrock transport over real sockets against the fake upstream's Bedrock route, with
// Bedrock's front door in front of it (bedrock-auth.ts: exactly one credential; SigV4
// recomputed from what arrived, scoped to the expected region and service).
import { deepStrictEqual, strictEqual } from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, beforeEach, describe, test } from 'node:test'
import type { Env } from '../../../src/providers/bedrock/aws-files.ts'
import { bedrockTransport, RUNTIME_ANTHROPIC_VERSION } from '../../../src/providers/bedrock/transport.ts'
import type {
  NeutralEvent,
  NeutralRequest,
  StreamOptions,
  TransportProfile,
} from '../../../src/providers/types.ts'
import { bedrockGate } from '../../fakes/bedrock-auth.ts'
import { fakeProcessCommand } from '../../fakes/credential-process.ts'
import { FakeOpenAIUpstream } from '../../fakes/openai-upstream.ts'
import { answer, callTools, toolCallsOf, toolResultsOf } from '../../fakes/tool-script.ts'
import { tempHome, until } from '../../helpers/daemon.ts'

let fake: FakeOpenAIUpstream
before(async () => {
  fake = await FakeOpenAIUpstream.start()
})
after(() => fake.close())
beforeEach(() => fake.reset())

const MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0'
const KEYS = { AKIDTEST: { secret: 'test-secret', token: 'test-token' } }

function profile(over: Partial<TransportProfile> = {}): TransportProfile {
  return { endpoint: '', protocol: 'chat_completions', model: 'a-profile-model', api_key: null, ...over }
}

function request(over: Partial<NeutralRequest> = {}): NeutralRequest {
  return {
    model: MODEL,
    effort: null,
    system: 'Be brief.',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    session_id: 'ses_1',
    ...over,
  }
}

/** A temp HOME with an ~/.aws folder, and the env of a step that reaches the fake. */
function envWith(vars: Record<string, string> = {}): Record<string, string> {
  const home = tempHome('hearth-bedrock-')
  mkdirSync(join(home, '.aws'))
  return { HOME: home, HEARTH_BEDROCK_BASE_URL: fake.url, ...vars }
}

const opts = (over: Partial<StreamOptions> = {}): StreamOptions => ({
  signal: AbortSignal.timeout(15_000),
  retryDelayMs: () => 1,
  ...over,
})

async function run(
  env: Env,
  p: TransportProfile = profile(),
  req: NeutralRequest = request(),
  o: StreamOptions = opts(),
): Promise<NeutralEvent[]> {
  const out: NeutralEvent[] = []
  for await (const e of bedrockTransport({ env: () => env }).stream(p, req, o)) out.push(e)
  return out
}

const textOf = (events: NeutralEvent[]) =>
  events.flatMap((e) => (e.type === 'text_delta' ? [e.delta] : [])).join('')
const last = (events: NeutralEvent[]) => events.at(-1) as any

describe('bedrock transport', () => {
  test("the hook's route, the runtime's version field, the session's model, the profile's key unsigned", async () => {
    fake.gate = bedrockGate({ region: 'us-east-1', service: 'bedrock', apiKeys: ['brk-key'] })
    fake.enqueue({ text: ['Hel', 'lo'] })
    const events = await run(
      envWith({ AWS_BEARER_TOKEN_BEDROCK: 'not-used' }),
      profile({ api_key: 'brk-key' }),
    )
    deepStrictEqual(last(events), { type: 'done', stop_reason: 'stop' })
    strictEqual(textOf(events), 'Hello')
    const sent = fake.requests[0]
    strictEqual(sent.path, '/anthropic/v1/messages')
    strictEqual(sent.headers['x-api-key'], 'brk-key')
    strictEqual(sent.headers.authorization, undefined)
    strictEqual(sent.headers['anthropic-version'], undefined)
    strictEqual(sent.body.anthropic_version, RUNTIME_ANTHROPIC_VERSION)
    strictEqual(sent.body.model, MODEL)
    strictEqual(sent.body.stream, true)
  })

  test('AWS_BEARER_TOKEN_BEDROCK is sent as a bearer token before any AWS key', async () => {
    fake.gate = bedrockGate({
      region: 'us-east-1',
      service: 'bedrock',
      bearerTokens: ['bedrock-api-key-abc'],
    })
    const env = envWith({
      AWS_BEARER_TOKEN_BEDROCK: 'bedrock-api-key-abc',
      AWS_ACCESS_KEY_ID: 'AKIDTEST',
      AWS_SECRET_ACCESS_KEY: 'test-secret',
    })
    const events = await run(env)
    strictEqual(last(events).type, 'done', JSON.stringify(last(events)))
    strictEqual(fake.requests[0].headers.authorization, 'Bearer bedrock-api-key-abc')
    strictEqual(fake.requests[0].headers['x-amz-date'], undefined)
  })

  test('environment keys sign with SigV4: service bedrock, the region of AWS_REGION', async () => {
    fake.gate = bedrockGate({ region: 'eu-central-1', service: 'bedrock', keys: KEYS })
    const env = envWith({
      AWS_REGION: 'eu-central-1',
      AWS_DEFAULT_REGION: 'us-west-2',
      AWS_ACCESS_KEY_ID: 'AKIDTEST',
      AWS_SECRET_ACCESS_KEY: 'test-secret',
      AWS_SESSION_TOKEN: 'test-token',
    })
    const events = await run(env)
    strictEqual(last(events).type, 'done', JSON.stringify(last(events)))
    const h = fake.requests[0].headers
    strictEqual(h['x-amz-security-token'], 'test-token')
    strictEqual(
      /^AWS4-HMAC-SHA256 Credential=AKIDTEST\/\d{8}\/eu-central-1\/bedrock\/aws4_request/.test(
        String(h.authorization),
      ),
      true,
    )
  })

  test('a mantle profile behind the hook signs as bedrock-mantle in its own region and sends the version header', async () => {
    fake.gate = bedrockGate({ region: 'ap-southeast-2', service: 'bedrock-mantle', keys: KEYS })
    const env = envWith({
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'AKIDTEST',
      AWS_SECRET_ACCESS_KEY: 'test-secret',
      AWS_SESSION_TOKEN: 'test-token',
    })
    const events = await run(env, profile({ endpoint: 'https://bedrock-mantle.ap-southeast-2.api.aws' }))
    strictEqual(last(events).type, 'done', JSON.stringify(last(events)))
    const sent = fake.requests[0]
    strictEqual(sent.path, '/anthropic/v1/messages')
    strictEqual(sent.headers['anthropic-version'], '2023-06-01')
    strictEqual(sent.body.anthropic_version, undefined)
  })

  test('a refused signature is upstream_unauthorized, says where the keys came from, never the secret', async () => {
    fake.gate = bedrockGate({
      region: 'us-east-1',
      service: 'bedrock',
      keys: { AKIDTEST: { secret: 'other' } },
    })
    const env = envWith({
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'AKIDTEST',
      AWS_SECRET_ACCESS_KEY: 'test-secret',
    })
    const events = await run(env)
    const e = last(events)
    strictEqual(e.code, 'upstream_unauthorized')
    strictEqual(e.status, 403)
    strictEqual(/signature we calculated does not match/.test(e.message), true, e.message)
    strictEqual(e.message.endsWith('(credentials: the environment)'), true, e.message)
    strictEqual(e.message.includes('test-secret'), false)
    strictEqual(fake.requests.length, 1, 'a 403 is not retried')
  })

  test('the AWS profile: credential_process runs on every step, and changed files apply at once', async () => {
    fake.gate = bedrockGate({
      region: 'us-west-2',
      service: 'bedrock',
      keys: { 'AKID PROCESS': { secret: 'process-secret' }, AKIDFILE: { secret: 'file-secret' } },
    })
    const env = envWith({ AWS_PROFILE: 'dev' })
    const log = join(env.HOME as string, 'runs.jsonl')
    env.FAKE_PROCESS_LOG = log
    const config = join(env.HOME as string, '.aws', 'config')
    writeFileSync(
      config,
      `[profile dev]\nregion = us-west-2\ncredential_process = ${fakeProcessCommand(['--key', 'AKID PROCESS'])}\n`,
    )
    strictEqual(last(await run(env)).type, 'done')
    strictEqual(last(await run(env)).type, 'done')
    strictEqual(readFileSync(log, 'utf8').trim().split('\n').length, 2)
    writeFileSync(
      join(env.HOME as string, '.aws', 'credentials'),
      '[dev]\naws_access_key_id = AKIDFILE\naws_secret_access_key = file-secret\n',
    )
    strictEqual(last(await run(env)).type, 'done')
    strictEqual(readFileSync(log, 'utf8').trim().split('\n').length, 2, 'the credentials file now wins')
    strictEqual(/Credential=AKIDFILE\//.test(String(fake.requests[2].headers.authorization)), true)
  })

  test('hostile endpoints are refused before any credential is read', async () => {
    const env = envWith({ AWS_REGION: 'us-east-1' })
    const log = join(env.HOME as string, 'runs.jsonl')
    env.FAKE_PROCESS_LOG = log
    writeFileSync(
      join(env.HOME as string, '.aws', 'config'),
      `[default]\ncredential_process = ${fakeProcessCommand()}\n`,
    )
    for (const endpoint of [
      'https://user:pw@bedrock-runtime.us-east-1.amazonaws.com',
      'https://bedrock-runtime.us-east-1.amazonaws.com:8443',
      'https://bedrock-runtime.us-east-1.amazonaws.com/anthropic',
      'https://bedrock-runtime.us-east-1.amazonaws.com/?a=b',
      'https://bedrock-runtime.us-east-1.amazonaws.com/#x',
      'https://attacker.example',
      'http://bedrock-runtime.us-east-1.amazonaws.com',
    ]) {
      const events = await run(env, profile({ endpoint }))
      deepStrictEqual(events.length, 1)
      strictEqual(last(events).code, 'upstream_rejected', endpoint)
      strictEqual(last(events).message.includes('pw@'), false)
    }
    strictEqual(fake.requests.length, 0)
    strictEqual(readFileSync(log, { encoding: 'utf8', flag: 'a+' }), '', 'credential_process never ran')
  })

  test('without the hook: the region of the environment or the AWS profile picks the runtime host', async () => {
    const urls: string[] = []
    const fetch = (async (url: string) => {
      urls.push(String(url))
      return new Response('{"type":"error","error":{"type":"not_found_error","message":"no"}}', {
        status: 404,
        headers: { 'content-type': 'application/json' },
      })
    }) as unknown as typeof globalThis.fetch
    const base = { HOME: envWith().HOME as string, AWS_BEARER_TOKEN_BEDROCK: 't' }
    writeFileSync(
      join(base.HOME, '.aws', 'config'),
      '[default]\nregion = sa-east-1\n[profile other]\nregion = ca-central-1\n',
    )
    await run(
      { ...base, AWS_REGION: 'eu-west-3', AWS_DEFAULT_REGION: 'us-east-2' },
      profile(),
      request(),
      opts({ fetch }),
    )
    await run({ ...base, AWS_DEFAULT_REGION: 'us-east-2' }, profile(), request(), opts({ fetch }))
    await run(base, profile(), request(), opts({ fetch }))
    await run({ ...base, AWS_PROFILE: 'other' }, profile(), request(), opts({ fetch }))
    await run(
      base,
      profile({ endpoint: 'https://bedrock-mantle.us-east-1.api.aws/' }),
      request(),
      opts({ fetch }),
    )
    deepStrictEqual(urls, [
      'https://bedrock-runtime.eu-west-3.amazonaws.com/anthropic/v1/messages',
      'https://bedrock-runtime.us-east-2.amazonaws.com/anthropic/v1/messages',
      'https://bedrock-runtime.sa-east-1.amazonaws.com/anthropic/v1/messages',
      'https://bedrock-runtime.ca-central-1.amazonaws.com/anthropic/v1/messages',
      'https://bedrock-mantle.us-east-1.api.aws/anthropic/v1/messages',
    ])
    const none = await run(
      { HOME: base.HOME, AWS_PROFILE: 'missing', AWS_BEARER_TOKEN_BEDROCK: 't' },
      profile(),
      request(),
      opts({ fetch }),
    )
    strictEqual(last(none).code, 'upstream_rejected')
    strictEqual(/no AWS region/.test(last(none).message), true)
    const bad = await run({ ...base, AWS_REGION: 'evil.example/x' }, profile(), request(), opts({ fetch }))
    strictEqual(/not an AWS region/.test(last(bad).message), true)
    strictEqual(urls.length, 5)
  })

  test('no credential anywhere fails the step credentials_not_found before anything is sent', async () => {
    const events = await run(envWith({ AWS_REGION: 'us-east-1' }))
    strictEqual(last(events).code, 'credentials_not_found')
    strictEqual(/no AWS credentials found/.test(last(events).message), true)
    strictEqual(fake.requests.length, 0)
  })

  test('replay keeps assistant text and tool calls only: signed thinking is dropped', async () => {
    fake.gate = bedrockGate({ region: 'us-east-1', service: 'bedrock', apiKeys: ['k'] })
    const req = request({
      effort: 'high',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'read it' }] },
        {
          role: 'assistant',
          content: [
            {
              type: 'encrypted_reasoning',
              summary: ['I should read'],
              encrypted_content: 'sig==',
              model: MODEL,
            },
            { type: 'reasoning', text: 'I should read' },
            { type: 'text', text: 'Reading.' },
            { type: 'tool_call', id: 'toolu_1', name: 'read', arguments: '{"path":"a.txt"}' },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: 'contents' },
      ],
    })
    strictEqual(last(await run(envWith(), profile({ api_key: 'k' }), req)).type, 'done')
    const assistant = fake.requests[0].body.messages[1]
    deepStrictEqual(
      assistant.content.map((b: any) => b.type),
      ['text', 'tool_use'],
    )
  })

  test('a tool round: the call streamed in pieces, its result sent back in the Messages wire', async () => {
    fake.gate = bedrockGate({ region: 'us-east-1', service: 'bedrock', apiKeys: ['k'] })
    fake.enqueue(callTools({ name: 'read', arguments: { path: 'notes.txt' }, id: 'toolu_7' }), (r) =>
      answer(`It says: ${toolResultsOf(r.body)[0]?.output}`),
    )
    const tools = [
      { name: 'read', description: 'Reads a file', parameters: { type: 'object', properties: {} } },
    ]
    const first = await run(envWith(), profile({ api_key: 'k' }), request({ tools }))
    const call = first.find((e) => e.type === 'tool_call')
    deepStrictEqual(call, {
      type: 'tool_call',
      index: 0,
      id: 'toolu_7',
      name: 'read',
      arguments: '{"path":"notes.txt"}',
    })
    deepStrictEqual(last(first), { type: 'done', stop_reason: 'tool_calls' })
    const second = await run(
      envWith(),
      profile({ api_key: 'k' }),
      request({
        tools,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'hi' }] },
          {
            role: 'assistant',
            content: [{ type: 'tool_call', id: 'toolu_7', name: 'read', arguments: '{"path":"notes.txt"}' }],
          },
          { role: 'tool', tool_call_id: 'toolu_7', content: 'buy milk' },
        ],
      }),
    )
    strictEqual(textOf(second).trim(), 'It says: buy milk')
    deepStrictEqual(toolCallsOf(fake.requests[1].body), [
      { call_id: 'toolu_7', name: 'read', arguments: '{"path":"notes.txt"}' },
    ])
  })

  test('an MCP schema with top-level oneOf/anyOf/allOf reaches Bedrock flattened, so the request is accepted', async () => {
    fake.gate = bedrockGate({ region: 'us-east-1', service: 'bedrock', apiKeys: ['k'] })
    const lookup = {
      type: 'object',
      properties: { verbose: { type: 'boolean' } },
      oneOf: [
        { properties: { id: { type: 'string' } }, required: ['id'] },
        { properties: { path: { type: 'string' } }, required: ['path'] },
      ],
    }
    const tools = [
      { name: 'mcp__docs__lookup', description: 'Looks a page up', parameters: lookup },
      { name: 'mcp__docs__both', description: 'x', parameters: { allOf: [{ properties: { a: {} } }] } },
      { name: 'mcp__docs__any', description: 'x', parameters: { anyOf: [{ properties: { b: {} } }] } },
      { name: 'mcp__docs__untyped', description: 'x', parameters: { properties: { c: {} } } },
    ]
    fake.enqueue({ text: ['ok'] })
    const events = await run(envWith(), profile({ api_key: 'k' }), request({ tools }))
    deepStrictEqual(last(events), { type: 'done', stop_reason: 'stop' })
    const sent = fake.requests[0].body.tools
    deepStrictEqual(sent[0].input_schema, {
      type: 'object',
      properties: { verbose: { type: 'boolean' }, id: { type: 'string' }, path: { type: 'string' } },
    })
    deepStrictEqual(
      sent.slice(1).map((t: any) => t.input_schema),
      [
        { type: 'object', properties: { a: {} } },
        { type: 'object', properties: { b: {} } },
        { type: 'object', properties: { c: {} } },
      ],
    )
  })

  test('aborting while credential_process runs ends the step as aborted', async () => {
    const started = join(tempHome('hearth-process-log-'), 'runs')
    const env = envWith({ FAKE_PROCESS_MODE: 'hang', FAKE_PROCESS_LOG: started, AWS_REGION: 'us-east-1' })
    writeFileSync(
      join(env.HOME as string, '.aws', 'config'),
      `[default]\ncredential_process = ${fakeProcessCommand()}\n`,
    )
    const abort = new AbortController()
    // Aborted once the process has started (it logs its run), as it hangs.
    void until('the process started', () => existsSync(started)).then(() => abort.abort())
    const events = await run(env, profile(), request(), opts({ signal: abort.signal }))
    deepStrictEqual(events, [
      { type: 'error', code: 'aborted', message: 'the request was aborted', status: null },
    ])
  })
})
