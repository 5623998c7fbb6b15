// The agent loop through the claude provider: a read call that the model makes under Claude
// Code's name (`Read`), run as hearth's `read`, its result sent back as a `tool_result`
// answering that `tool_use` (the fake checks the pairing), the answer, and the replay on
// the next turn, with signed thinking sent back to the model that produced it.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { FAKE_SIGNATURE } from '../fakes/anthropic-frames.ts'
import { FakeOpenAIUpstream } from '../fakes/openai-upstream.ts'
import { answer, callTools, toolCallsOf, toolResultsOf } from '../fakes/tool-script.ts'
import { startDaemon, type TestDaemon, tempHome } from '../helpers/daemon.ts'
import { idle, message, putInput, waitSession } from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'
import { historyOf } from './agent-helpers.ts'

const MODEL = 'claude-sonnet-4-5-20250929'

describe('agent loop (claude)', () => {
  let upstream: FakeOpenAIUpstream
  let d: TestDaemon
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-ws-')))

  before(async () => {
    upstream = await FakeOpenAIUpstream.start()
    const home = tempHome()
    mkdirSync(home, { recursive: true })
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        providers: {
          default_profile: 'sub',
          profiles: {
            sub: { extension: 'claude', protocol: 'chat_completions', model: MODEL, effort: 'low' },
          },
        },
        tools: { approval_policy: 'auto' },
      }),
    )
    const account = { type: 'oauth', access: 'sk-ant-oat01-loop', expires: Date.now() + 3_600_000 }
    writeFileSync(join(home, 'creds.json'), JSON.stringify({ accounts: { claude: account } }), {
      mode: 0o600,
    })
    d = await startDaemon({ home, env: { HEARTH_CLAUDE_BASE_URL: upstream.url } })
  })
  after(async () => {
    await d.stop()
    await upstream.close()
  })

  it('Read → read → tool_result → answer; the next turn replays the pair and the thinking', async () => {
    writeFileSync(join(workspace, 'plan.txt'), 'step one\n')
    const sid = await createSession(d, { kind: 'new', workspace })
    upstream.enqueue(
      {
        ...callTools({ name: 'Read', arguments: { path: 'plan.txt' }, id: 'toolu_plan' }),
        reasoning: ['Look.'],
      },
      answer('It has one step.'),
    )
    await putInput(d, sid, message('what is the plan?'))
    const done = await waitSession(d, sid, idle)
    assert.equal(done.latest_answer.outcome, 'completed', JSON.stringify(done.history.items.at(-1)))
    assert.equal(upstream.requests.length, 2)
    const [first, second] = upstream.requests.map((r) => r.body)
    assert.ok(first.tools.some((t: any) => t.name === 'Read'))
    assert.ok(!first.tools.some((t: any) => t.name === 'read'))
    assert.deepEqual(toolCallsOf(second), [
      { call_id: 'toolu_plan', name: 'Read', arguments: '{"path":"plan.txt"}' },
    ])
    assert.match(toolResultsOf(second)[0].output, /step one/)
    assert.deepEqual(second.messages[1].content[0], {
      type: 'thinking',
      thinking: 'Look.',
      signature: FAKE_SIGNATURE,
    })
    const history = await historyOf(d, sid)
    assert.deepEqual(
      history.map((e: any) => e.kind),
      ['user', 'reasoning', 'assistant', 'tool_call', 'tool_result', 'assistant'],
    )
    const call = history.find((e: any) => e.kind === 'tool_call')
    assert.equal(call.content.name, 'read', JSON.stringify(call))

    upstream.enqueue(answer('Still one.'))
    await putInput(d, sid, message('and now?'))
    const again = await waitSession(d, sid, idle)
    assert.equal(again.latest_answer.outcome, 'completed', JSON.stringify(again.history.items.at(-1)))
    assert.deepEqual(
      toolResultsOf(upstream.requests[2].body).map((r) => r.call_id),
      ['toolu_plan'],
    )
  })
})
