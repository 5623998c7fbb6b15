// A vertex profile through the real daemon: a service-account key file (GOOGLE_APPLICATION_
// CREDENTIALS) exchanged at the fake token endpoint by the kernel, HEARTH_VERTEX_BASE_URL
// pointing at the fake Vertex endpoint. A full turn with tools: the model reads a file, the
// result goes back as a functionResponse, the answer ends the run; the next turn replays it.
import assert from 'node:assert/strict'
import { mkdtempSync, realpathSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { FakeGeminiUpstream, functionCallsOf, functionResponsesOf } from '../../fakes/gemini-upstream.ts'
import { FakeGoogleToken } from '../../fakes/google-token.ts'
import { startDaemon, type TestDaemon, tempHome } from '../../helpers/daemon.ts'
import { idle, message, post, putInput, waitSession } from '../../inputs/helpers.ts'
import { patchGroup, readGroup } from '../../settings/helpers.ts'
import { createSession } from '../../streams/sse-client.ts'
import { historyOf } from '../../tools/agent-helpers.ts'

describe('vertex through the daemon', () => {
  let upstream: FakeGeminiUpstream
  let tokens: FakeGoogleToken
  let d: TestDaemon
  let keyFile: string
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-ws-')))

  before(async () => {
    upstream = await FakeGeminiUpstream.start()
    tokens = await FakeGoogleToken.start()
    const home = tempHome()
    keyFile = join(home, 'key.json')
    writeFileSync(keyFile, JSON.stringify(tokens.serviceAccount()))
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        providers: {
          default_profile: 'v',
          profiles: {
            v: {
              extension: 'vertex',
              model: 'gemini-3-flash-preview',
              project: 'proj-d',
              location: 'global',
            },
          },
        },
        tools: { approval_policy: 'auto' },
      }),
    )
    d = await startDaemon({
      home,
      env: { HEARTH_VERTEX_BASE_URL: upstream.url, GOOGLE_APPLICATION_CREDENTIALS: keyFile },
    })
    // Only tokens the fake endpoint issued are accepted upstream.
    tokens.issued.add = ((add) =>
      function (this: Set<string>, value: string) {
        upstream.tokens.add(value)
        return add.call(this, value)
      })(tokens.issued.add)
  })
  after(async () => {
    await d.stop()
    await upstream.close()
    await tokens.close()
  })

  it('a read call, its result as a functionResponse, the answer; the next turn replays the exchange', async () => {
    writeFileSync(join(workspace, 'plan.txt'), 'step one\n')
    const sid = await createSession(d, { kind: 'new', workspace })
    upstream.enqueue(
      { thoughts: ['I should read the plan.'], calls: [{ name: 'read', args: { path: 'plan.txt' } }] },
      (r) => ({ text: [`It says: ${functionResponsesOf(r.body)[0]?.response?.output?.trim()}`] }),
    )
    await putInput(d, sid, message('what is the plan?'))
    const read = await waitSession(d, sid, idle)
    assert.equal(read.latest_answer.outcome, 'completed', JSON.stringify(read.history?.items?.at(-1)))
    assert.equal(upstream.requests.length, 2)
    const [first, second] = upstream.requests
    assert.equal(
      first.path,
      '/v1/projects/proj-d/locations/global/publishers/google/models/gemini-3-flash-preview:streamGenerateContent',
    )
    assert.equal(first.query, '?alt=sse')
    assert.ok(
      first.body.tools[0].functionDeclarations.some((f: any) => f.name === 'read' && f.parametersJsonSchema),
    )
    assert.equal(tokens.requests.length, 2)
    assert.equal(tokens.requests[0].jwt?.claims.iss, 'hearth-test@proj-1.iam.gserviceaccount.com')
    assert.deepEqual(
      functionCallsOf(second.body).map((c) => [c.name, c.args, c.thoughtSignature]),
      [['read', { path: 'plan.txt' }, 'skip_thought_signature_validator']],
    )
    assert.match(String(functionResponsesOf(second.body)[0].response.output), /step one/)
    const history = await historyOf(d, sid)
    assert.deepEqual(
      history.map((e: any) => e.kind),
      ['user', 'reasoning', 'assistant', 'tool_call', 'tool_result', 'assistant'],
    )
    // The thinking text goes back with the call while the tool loop runs.
    assert.deepEqual(second.body.contents[1].parts[0], { text: 'I should read the plan.', thought: true })
    assert.match(JSON.stringify(history.at(-1)), /It says: /)

    upstream.enqueue({ text: ['Still one step.'] })
    await putInput(d, sid, message('and now?'))
    await waitSession(d, sid, idle)
    const third = upstream.requests[2].body
    assert.deepEqual(
      third.contents.map((c: any) => c.role),
      ['user', 'model', 'user', 'model', 'user'],
    )
    assert.equal(functionResponsesOf(third).length, 1)
  })

  it("a failed call's functionResponse carries its text as error, a good one as output", async () => {
    writeFileSync(join(workspace, 'there.txt'), 'here I am\n')
    const sid = await createSession(d, { kind: 'new', workspace })
    upstream.enqueue(
      {
        calls: [
          { name: 'read', args: { path: 'not-there.txt' } },
          { name: 'read', args: { path: 'there.txt' } },
        ],
      },
      { text: ['One is missing.'] },
    )
    await putInput(d, sid, message('read both'))
    const s = await waitSession(d, sid, idle)
    assert.equal(s.latest_answer.outcome, 'completed', JSON.stringify(s.latest_answer))
    const responses = functionResponsesOf(upstream.requests.at(-1)?.body).map((r) => r.response)
    assert.deepEqual(
      responses.map((r) => Object.keys(r)),
      [['error'], ['output']],
    )
    assert.match(String(responses[1].output), /here I am/)
  })

  it('an effort the model does not take fails the run with effort_unsupported; nothing is sent', async () => {
    const before = upstream.requests.length
    const sid = await createSession(d, { kind: 'new', workspace, effort: 'xhigh' })
    await putInput(d, sid, message('think hard'))
    const s = await waitSession(d, sid, idle)
    assert.equal(s.latest_answer.outcome, 'failed', JSON.stringify(s.latest_answer))
    const history = await historyOf(d, sid)
    assert.match(JSON.stringify(history.at(-1)), /effort_unsupported/)
    assert.equal(upstream.requests.length, before)
  })

  it('a MALFORMED_FUNCTION_CALL answer fails the run with upstream_tool_call_invalid; its call never runs', async () => {
    writeFileSync(join(workspace, 'secret-plan.txt'), 'do not read\n')
    const sid = await createSession(d, { kind: 'new', workspace })
    const before = upstream.requests.length
    upstream.enqueue({
      text: ['Reading it.'],
      calls: [{ name: 'read', args: { path: 'secret-plan.txt' } }],
      finishReason: 'MALFORMED_FUNCTION_CALL',
      finishMessage: 'Malformed function call: read(path=',
    })
    await putInput(d, sid, message('read the plan'))
    const s = await waitSession(d, sid, idle)
    assert.equal(s.latest_answer.outcome, 'failed', JSON.stringify(s.latest_answer))
    const history = await historyOf(d, sid)
    const error = history.find((e: any) => e.kind === 'error')
    assert.equal(error?.content?.problem?.code, 'upstream_tool_call_invalid', JSON.stringify(history))
    assert.match(
      error.content.problem.detail,
      /MALFORMED_FUNCTION_CALL.*no call was run: Malformed function call/,
    )
    assert.ok(!history.some((e: any) => e.kind === 'tool_call' || e.kind === 'tool_result'))
    assert.equal(upstream.requests.length, before + 1, 'no second step: nothing ran')
  })

  it('a blocked prompt (promptFeedback.blockReason, no candidates) fails the run with upstream_blocked', async () => {
    const sid = await createSession(d, { kind: 'new', workspace })
    upstream.enqueue({ blockReason: 'PROHIBITED_CONTENT' })
    await putInput(d, sid, message('something prohibited'))
    const s = await waitSession(d, sid, idle)
    assert.equal(s.latest_answer.outcome, 'failed', JSON.stringify(s.latest_answer))
    const history = await historyOf(d, sid)
    const error = history.find((e: any) => e.kind === 'error')
    assert.equal(error?.content?.problem?.code, 'upstream_blocked', JSON.stringify(history))
    assert.match(error.content.problem.detail, /blocked the prompt \(PROHIBITED_CONTENT\)/)
  })

  it('no credentials file fails the run credentials_not_found, naming the file; nothing is sent', async () => {
    const before = { upstream: upstream.requests.length, tokens: tokens.requests.length }
    renameSync(keyFile, `${keyFile}.away`)
    try {
      const sid = await createSession(d, { kind: 'new', workspace })
      await putInput(d, sid, message('hi'))
      const s = await waitSession(d, sid, idle)
      assert.equal(s.latest_answer.outcome, 'failed')
      const error = (await historyOf(d, sid)).find((e: any) => e.kind === 'error')
      assert.equal(error?.content?.problem?.code, 'credentials_not_found', JSON.stringify(error))
      assert.ok(error.content.problem.detail.includes(`no application default credentials at ${keyFile}`))
      assert.deepEqual(
        { upstream: upstream.requests.length, tokens: tokens.requests.length },
        before,
        'neither Google nor Vertex was asked',
      )
    } finally {
      renameSync(`${keyFile}.away`, keyFile)
    }
  })

  it("a compaction's summary takes generateContent (one JSON answer), the turns stream", async () => {
    const sid = await createSession(d, { kind: 'new', workspace })
    for (const n of [1, 2, 3]) {
      upstream.enqueue({ text: [`Answer ${n}.`] })
      await putInput(d, sid, message(`question ${n}`))
      await waitSession(d, sid, (x) => idle(x) && x.input_order === n)
    }
    const sent = upstream.requests.length
    upstream.enqueue({ text: ['Three questions,', ' three answers.'] })
    const r = await post(d, `/sessions/${sid}/compaction`, { strategy: 'summarize', keep_turns: 1 })
    assert.equal(r.status, 200, r.text())
    assert.equal(r.json().compaction.outcome, 'completed', r.text())
    assert.equal(upstream.requests.length, sent + 1)
    const summary = upstream.requests.at(-1)
    assert.equal(summary?.method_name, 'generateContent')
    assert.equal(summary?.query, '')
    assert.ok(upstream.requests.slice(sent - 3, sent).every((q) => q.method_name === 'streamGenerateContent'))
    const history = await historyOf(d, sid)
    assert.match(JSON.stringify(history), /Three questions, three answers\./)
  })

  it('GET /models covers the vertex profile (google-vertex catalogue)', async () => {
    const res = await d.request({ path: '/models?provider_profile=v' })
    assert.equal(res.status, 200, res.text())
    const body = res.json()
    assert.equal(body.extension, 'vertex')
    assert.ok(body.items.some((m: any) => m.id === 'gemini-3-flash-preview'))
    assert.ok(body.items.some((m: any) => /^gemini-2\.5/.test(m.id)))
  })

  it('settings save a vertex profile with its project and location; a model is required', async () => {
    let { etag } = await readGroup(d, 'providers')
    const profile = { extension: 'vertex', model: 'gemini-2.5-pro', project: 'p2', location: 'europe-west4' }
    const saved = await patchGroup(d, 'providers', { profiles: { v2: profile } }, etag)
    assert.equal(saved.status, 200, saved.text())
    const read = await readGroup(d, 'providers')
    assert.deepEqual(read.settings.profiles.v2, { ...profile, api_key: null })
    etag = read.etag
    const noModel = await patchGroup(d, 'providers', { profiles: { v3: { extension: 'vertex' } } }, etag)
    assert.equal(noModel.status, 400, noModel.text())
    assert.match(noModel.text(), /profile v3: a vertex profile needs a model/)
  })
})
