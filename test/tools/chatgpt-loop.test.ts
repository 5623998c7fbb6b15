// The agent loop through the chatgpt provider: a signed-in account, a read call from the
// backend, its result sent back in the backend's Responses dialect, then the answer; the
// next turn replays the exchange.
import assert from 'node:assert/strict'
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { FakeChatgptBackend, type FakeSeat } from '../fakes/chatgpt-backend.ts'
import { answer, callTools, toolCallsOf, toolResultsOf } from '../fakes/tool-script.ts'
import { signInChatgpt, startChatgptDaemon } from '../helpers/chatgpt-signin.ts'
import type { TestDaemon } from '../helpers/daemon.ts'
import { idle, message, putInput, waitSession } from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'
import { historyOf } from './agent-helpers.ts'

const SEAT: FakeSeat = { accountId: 'ws-tools', userId: 'u-tools', email: 'tools@example.test', plan: 'pro' }

describe('agent loop (chatgpt)', () => {
  let fake: FakeChatgptBackend
  let d: TestDaemon
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hearth-ws-')))

  before(async () => {
    fake = await FakeChatgptBackend.start()
    d = await startChatgptDaemon(fake, { config: { tools: { approval_policy: 'auto' } } })
    await signInChatgpt(d, fake, SEAT)
  })
  after(async () => {
    await d.stop()
    await fake.close()
  })

  it('a read call, its result in the backend dialect, the answer, and the replay on the next turn', async () => {
    writeFileSync(join(workspace, 'plan.txt'), 'step one\n')
    const sid = await createSession(d, { kind: 'new', workspace })
    fake.enqueue(
      callTools({ name: 'read', arguments: { path: 'plan.txt' }, id: 'call_plan' }),
      answer('It has one step.'),
    )
    await putInput(d, sid, message('what is the plan?'))
    const read = await waitSession(d, sid, idle)
    assert.equal(read.latest_answer.outcome, 'completed', JSON.stringify(read.history.items.at(-1)))
    assert.equal(fake.requests.length, 2)
    const second = fake.requests[1].body
    assert.deepEqual(
      toolCallsOf(second).map((c) => c.call_id),
      ['call_plan'],
    )
    assert.match(toolResultsOf(second)[0].output, /step one/)
    const history = await historyOf(d, sid)
    assert.deepEqual(
      history.map((e: any) => e.kind),
      ['user', 'assistant', 'tool_call', 'tool_result', 'assistant'],
    )
    fake.enqueue(answer('Still one.'))
    await putInput(d, sid, message('and now?'))
    await waitSession(d, sid, idle)
    const third = fake.requests[2].body
    assert.deepEqual(
      toolResultsOf(third).map((r) => r.call_id),
      ['call_plan'],
    )
  })
})
