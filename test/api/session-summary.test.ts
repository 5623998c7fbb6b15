// The live parts of a session summary, through the real daemon and a scripted model:
// current_progress shows the tool calls that run now with the end of their output, and
// latest_input and latest_answer say what was asked and how the run ended. Reads and list
// items match the schemas the OpenAPI document publishes.
import assert from 'node:assert/strict'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Compile } from 'typebox/compile'
import { SessionRead, SessionSummary } from '../../src/schemas/session-read.ts'
import { answer, callTools } from '../fakes/tool-script.ts'
import { idle, message, putInput, waitSession } from '../inputs/helpers.ts'
import { type AgentSetup, getSession, newSession, startAgent } from '../tools/agent-helpers.ts'

const RUN_MS = 40_000
const readCheck = Compile(SessionRead)
const summaryCheck = Compile(SessionSummary)

function assertShapes(read: unknown, listed: unknown): void {
  assert.ok(readCheck.Check(read), JSON.stringify([...readCheck.Errors(read)].slice(0, 3)))
  assert.ok(summaryCheck.Check(listed), JSON.stringify([...summaryCheck.Errors(listed)].slice(0, 3)))
}

async function listed(s: AgentSetup, sid: string): Promise<any> {
  const page = await s.d.request({ path: '/sessions?scope=all' })
  return page.json().items.find((x: any) => x.id === sid)
}

describe('session summary: current_progress, latest_input, latest_answer', () => {
  let s: AgentSetup
  before(async () => {
    s = await startAgent({ tools: { approval_policy: 'auto' } })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  it('a running command shows in current_progress with its last lines, and leaves it when it ends', async () => {
    const sid = await newSession(s)
    const fresh = await getSession(s.d, sid)
    assert.deepEqual(fresh.current_progress, [])
    assert.equal(fresh.latest_input, null)
    assert.equal(fresh.latest_answer, null)
    assertShapes(fresh, await listed(s, sid))

    // The command prints, then waits for a file the test writes once it has seen the lines.
    const go = join(s.workspace, 'go')
    const command = `printf 'first\\nsecond\\nthird\\nfourth\\n'; while [ ! -e go ]; do sleep 0.05; done; echo done`
    s.upstream.enqueue(callTools({ name: 'shell', arguments: { command } }), answer('The command ran.'))
    assert.equal((await putInput(s.d, sid, message('run the command'))).status, 202)
    const running = await waitSession(
      s.d,
      sid,
      (x) => x.current_progress.length === 1 && x.current_progress[0].lines.includes('fourth'),
      RUN_MS,
    )
    const [call] = running.current_progress
    assert.equal(call.name, 'shell')
    assert.equal(call.effect, 'exec')
    assert.equal(call.run_id, running.status.run_id)
    assert.match(call.summary, /printf/)
    assert.deepEqual(call.lines, ['second', 'third', 'fourth'], 'the last three lines')
    assert.ok(call.output_utf8_bytes >= 'first\nsecond\nthird\nfourth\n'.length)
    assert.ok(Date.parse(call.started_at) <= Date.now())
    const item = await listed(s, sid)
    assert.equal(item.current_progress[0]?.call_id, call.call_id, 'lists show it too')
    assertShapes(running, item)
    assert.equal(existsSync(go), false)
    writeFileSync(go, '')

    const done = await waitSession(s.d, sid, idle, RUN_MS)
    assert.deepEqual(done.current_progress, [])
    assert.equal(done.latest_input.text, 'run the command')
    assert.equal(done.latest_answer.outcome, 'completed')
    assert.equal(done.latest_answer.text, 'The command ran.')
    assert.equal(done.latest_answer.run_id, running.status.run_id)
    assertShapes(done, await listed(s, sid))
  })
})
