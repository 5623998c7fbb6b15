// A bedrock profile end to end: the real daemon with HEARTH_BEDROCK_BASE_URL pointing at
// the fake Messages upstream, whose Bedrock front door verifies SigV4 signed with keys a
// fake credential_process prints for the AWS profile in a temp HOME. A turn with a tool
// call, the session's model upstream, hostile endpoints refused when saved, and the
// model catalogue's Claude rows.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { assertProblem } from '../../api/hostile.ts'
import { bedrockGate } from '../../fakes/bedrock-auth.ts'
import { fakeProcessCommand } from '../../fakes/credential-process.ts'
import { FakeOpenAIUpstream } from '../../fakes/openai-upstream.ts'
import { answer, callTools, toolCallsOf, toolResultsOf } from '../../fakes/tool-script.ts'
import { startDaemon, type TestDaemon, tempHome } from '../../helpers/daemon.ts'
import { idle, message, putInput, waitSession } from '../../inputs/helpers.ts'
import { fileJson, patchGroup, readGroup } from '../../settings/helpers.ts'
import { createSession } from '../../streams/sse-client.ts'
import { historyOf } from '../../tools/agent-helpers.ts'

const MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0'

describe('bedrock through the daemon', () => {
  let fake: FakeOpenAIUpstream
  let d: TestDaemon
  let userHome: string
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-ws-')))

  before(async () => {
    fake = await FakeOpenAIUpstream.start()
    // The AWS profile `dev` names its region and a credential_process; nothing else is set.
    userHome = tempHome('hearth-user-')
    mkdirSync(join(userHome, '.aws'))
    writeFileSync(
      join(userHome, '.aws', 'config'),
      `[profile dev]\nregion = eu-west-1\ncredential_process = ${fakeProcessCommand(['--key', 'AKIDDAEMON'])}\n`,
    )
    const home = tempHome()
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        providers: { default_profile: 'aws', profiles: { aws: { extension: 'bedrock', model: MODEL } } },
        tools: { approval_policy: 'auto' },
      }),
    )
    d = await startDaemon({
      home,
      env: {
        HOME: userHome,
        AWS_PROFILE: 'dev',
        AWS_ACCESS_KEY_ID: '',
        AWS_SECRET_ACCESS_KEY: '',
        AWS_BEARER_TOKEN_BEDROCK: '',
        AWS_REGION: '',
        AWS_DEFAULT_REGION: '',
        HEARTH_BEDROCK_BASE_URL: fake.url,
        FAKE_PROCESS_TOKEN: 'daemon-session-token',
        FAKE_PROCESS_LOG: join(userHome, 'runs.jsonl'),
      },
    })
  })
  after(async () => {
    await d?.stop()
    await fake?.close()
  })

  it('a turn with a tool call: each model step signed with fresh keys, the session model upstream', async () => {
    fake.gate = bedrockGate({
      region: 'eu-west-1',
      service: 'bedrock',
      keys: { AKIDDAEMON: { secret: 'process-secret', token: 'daemon-session-token' } },
    })
    writeFileSync(join(workspace, 'notes.txt'), 'buy milk\n')
    const sid = await createSession(d, { kind: 'new', workspace })
    fake.enqueue(callTools({ name: 'read', arguments: { path: 'notes.txt' }, id: 'toolu_notes' }), (r) =>
      answer(`It says: ${toolResultsOf(r.body)[0]?.output.trim()}`),
    )
    await putInput(d, sid, message('what do my notes say?'))
    const read = await waitSession(d, sid, idle, 20_000)
    assert.equal(read.latest_answer.outcome, 'completed', JSON.stringify(read.history.items.at(-1)))
    assert.equal(fake.requests.length, 2)
    for (const r of fake.requests) {
      assert.equal(r.path, '/anthropic/v1/messages')
      assert.equal(r.body.model, MODEL)
      assert.match(String(r.headers.authorization), /Credential=AKIDDAEMON\/\d{8}\/eu-west-1\/bedrock\//)
    }
    assert.deepEqual(
      toolCallsOf(fake.requests[1].body).map((c) => c.call_id),
      ['toolu_notes'],
    )
    assert.match(toolResultsOf(fake.requests[1].body)[0]?.output ?? '', /buy milk/)
    // Nothing cached: the helper ran once per model step.
    const runs = readFileSync(join(userHome, 'runs.jsonl'), 'utf8').trim().split('\n')
    assert.equal(runs.length, 2)
    const history = await historyOf(d, sid)
    assert.deepEqual(
      history.map((e: any) => e.kind),
      ['user', 'assistant', 'tool_call', 'tool_result', 'assistant'],
    )
  })

  it('no local credential fails the run credentials_not_found, naming the places looked; nothing is sent', async () => {
    fake.reset()
    const config = join(userHome, '.aws', 'config')
    const kept = readFileSync(config, 'utf8')
    writeFileSync(config, '[profile dev]\nregion = eu-west-1\n')
    try {
      const sid = await createSession(d, { kind: 'new', workspace })
      await putInput(d, sid, message('hi'))
      const read = await waitSession(d, sid, idle, 20_000)
      assert.equal(read.latest_answer.outcome, 'failed')
      const error = (await historyOf(d, sid)).find((e: any) => e.kind === 'error')
      assert.equal(error?.content.problem.code, 'credentials_not_found', JSON.stringify(error))
      assert.match(
        error.content.problem.detail,
        /no AWS credentials found: .*AWS_BEARER_TOKEN_BEDROCK.*profile dev/,
      )
      assert.equal(fake.requests.length, 0)
    } finally {
      writeFileSync(config, kept)
    }
  })

  it("a failed tool's result goes back as a tool_result with is_error: true; a good one without it", async () => {
    fake.reset()
    fake.gate = bedrockGate({
      region: 'eu-west-1',
      service: 'bedrock',
      keys: { AKIDDAEMON: { secret: 'process-secret', token: 'daemon-session-token' } },
    })
    writeFileSync(join(workspace, 'here.txt'), 'present\n')
    const sid = await createSession(d, { kind: 'new', workspace })
    fake.enqueue(
      callTools(
        { name: 'read', arguments: { path: 'missing.txt' }, id: 'toolu_missing' },
        { name: 'read', arguments: { path: 'here.txt' }, id: 'toolu_here' },
      ),
      answer('One was missing.'),
    )
    await putInput(d, sid, message('read both'))
    const read = await waitSession(d, sid, idle, 20_000)
    assert.equal(read.latest_answer.outcome, 'completed', JSON.stringify(read.history.items.at(-1)))
    const results = fake.requests[1].body.messages
      .flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
      .filter((b: any) => b.type === 'tool_result')
    assert.deepEqual(
      results.map((b: any) => [b.tool_use_id, b.is_error]),
      [
        ['toolu_missing', true],
        ['toolu_here', undefined],
      ],
    )
  })

  it("usage's cache_ttl_seconds and cache_fade follow the explicit cache policy of bedrock (300 s)", async () => {
    fake.reset()
    fake.gate = bedrockGate({
      region: 'eu-west-1',
      service: 'bedrock',
      keys: { AKIDDAEMON: { secret: 'process-secret', token: 'daemon-session-token' } },
    })
    const sid = await createSession(d, { kind: 'new', workspace })
    fake.enqueue({ text: ['cached'], usage: { input: 40, output: 3, cached: 30 } })
    await putInput(d, sid, message('hi'))
    const read = await waitSession(d, sid, idle, 20_000)
    const u = read.usage
    assert.equal(u.cached_prompt_tokens, 30, JSON.stringify(u))
    assert.equal(u.cache_ttl_seconds, 300)
    assert.deepEqual(u.cache_fade, [
      { tokens: 30, expires_at: new Date(Date.parse(u.observed_at) + 300_000).toISOString() },
    ])
    // A turn that read and wrote nothing cached claims no cache.
    fake.enqueue({ text: ['cold'], usage: { input: 40, output: 3, cached: 0 } })
    await putInput(d, sid, message('again'))
    const cold = await waitSession(d, sid, (x) => idle(x) && x.input_order === 2, 20_000)
    assert.deepEqual([cold.usage.cache_ttl_seconds, cold.usage.cache_fade], [null, []])
  })

  it("the request's model is the session's model", async () => {
    fake.reset()
    fake.gate = bedrockGate({
      region: 'eu-west-1',
      service: 'bedrock',
      keys: { AKIDDAEMON: { secret: 'process-secret', token: 'daemon-session-token' } },
    })
    const other = 'global.anthropic.claude-opus-4-5-20251101-v1:0'
    const sid = await createSession(d, { kind: 'new', workspace, model: other })
    await putInput(d, sid, message('hi'))
    const read = await waitSession(d, sid, idle, 20_000)
    assert.equal(read.latest_answer.outcome, 'completed', JSON.stringify(read.history.items.at(-1)))
    assert.equal(read.model, other)
    assert.equal(fake.requests[0]?.body.model, other)
  })

  it('a refused signature fails the turn with upstream_unauthorized and its source', async () => {
    fake.reset()
    fake.gate = bedrockGate({ region: 'eu-west-1', service: 'bedrock', keys: {} })
    const sid = await createSession(d, { kind: 'new', workspace })
    await putInput(d, sid, message('hi'))
    const read = await waitSession(d, sid, idle, 20_000)
    const error = read.history.items.find((e: any) => e.kind === 'error')
    assert.equal(error?.content.problem.code, 'upstream_unauthorized', JSON.stringify(read.history.items))
    assert.match(error.content.problem.detail, /credentials: profile dev \(credential_process\)/)
    assert.doesNotMatch(JSON.stringify(read), /process-secret/)
  })

  it('a bedrock profile with a hostile endpoint is not saved; a Bedrock host is', async () => {
    const before = readFileSync(join(d.home, 'config.json'), 'utf8')
    for (const endpoint of [
      'https://user:pass@bedrock-runtime.us-east-1.amazonaws.com',
      'https://bedrock-runtime.us-east-1.amazonaws.com:444',
      'https://bedrock-runtime.us-east-1.amazonaws.com/anthropic',
      'https://bedrock-runtime.us-east-1.amazonaws.com/?x=1',
      'https://bedrock-runtime.us-east-1.amazonaws.com/#frag',
      'https://example.com',
      'http://bedrock-runtime.us-east-1.amazonaws.com',
    ]) {
      const { etag } = await readGroup(d, 'providers')
      const r = await patchGroup(
        d,
        'providers',
        { profiles: { bad: { extension: 'bedrock', endpoint } } },
        etag,
      )
      const p = assertProblem(r, 400, 'invalid_settings', endpoint)
      assert.doesNotMatch(String(p.detail), /pass@/)
    }
    assert.equal(readFileSync(join(d.home, 'config.json'), 'utf8'), before)
    const { etag } = await readGroup(d, 'providers')
    const ok = await patchGroup(
      d,
      'providers',
      {
        profiles: {
          mantle: {
            extension: 'bedrock',
            endpoint: 'https://bedrock-mantle.us-east-1.api.aws',
            model: 'anthropic.claude-haiku-4-5',
          },
        },
      },
      etag,
    )
    assert.equal(ok.status, 200, ok.text())
    assert.equal(fileJson(d.home, 'config.json').providers.profiles.mantle.extension, 'bedrock')
  })

  it('GET /models lists the Claude models Bedrock serves, with their facts', async () => {
    const r = await d.request({ path: '/models?provider_profile=aws&limit=200' })
    assert.equal(r.status, 200, r.text())
    const body = r.json()
    assert.equal(body.provider, 'amazon-bedrock')
    const ids: string[] = body.items.map((m: any) => m.id)
    assert.ok(ids.length > 5)
    assert.ok(
      ids.every((id) => id.includes('anthropic.claude')),
      ids.join(', '),
    )
    const one = await d.request({ path: `/models?provider_profile=aws&model=${encodeURIComponent(MODEL)}` })
    const row = one.json().items[0]
    assert.equal(row.id, MODEL)
    assert.equal(row.listed, true, JSON.stringify(row))
    assert.equal(typeof row.context_window, 'number')
  })
})
