// Approvals: under `ask` a write or a command waits for an input of kind approval, applied at
// once and exactly once; deny gives the model a denial; remember lets the same tool run for
// the rest of the session; an unknown or decided request is a 409; a restart or an interrupt
// while a call waits expires the request, and nothing runs without a recorded decision.
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, beforeEach, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import { v7 as uuidv7 } from 'uuid'
import { assertProblem } from '../api/hostile.ts'
import { answer, callTools, toolResultsOf } from '../fakes/tool-script.ts'
import { startDaemon } from '../helpers/daemon.ts'
import { idle, message, post, putInput, waitSession } from '../inputs/helpers.ts'
import { openSse } from '../streams/sse-client.ts'
import {
  type AgentSetup,
  approve,
  getSession,
  historyOf,
  newSession,
  runMessage,
  startAgent,
  waitBlocked,
} from './agent-helpers.ts'

function approvalRows(home: string, sid: string): any[] {
  const db = new Database(join(home, 'state.db'), { readonly: true })
  try {
    return db.prepare('SELECT * FROM approvals WHERE session_id = ? ORDER BY created_at').all(sid)
  } finally {
    db.close()
  }
}

const writeCall = (path: string, content: string, id?: string) =>
  callTools({ name: 'write', arguments: { path, content }, ...(id ? { id } : {}) })

describe('approvals', () => {
  let s: AgentSetup
  before(async () => {
    s = await startAgent({ tools: { approval_policy: 'ask' } })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })
  beforeEach(() => {
    s.upstream.reset()
  })

  it('ask: a write waits; allow applies it, and the session shows what it waited for', async () => {
    const sid = await newSession(s)
    const live = openSse(s.d, `/sessions/${sid}?tail=0`)
    await live.next()
    s.upstream.enqueue(writeCall('allowed.txt', 'yes\n'), answer('done'))
    await putInput(s.d, sid, message('write it'))
    const reason = await waitBlocked(s.d, sid)
    assert.equal(reason.kind, 'approval')
    assert.equal(reason.tool, 'write')
    assert.equal(reason.effect, 'write')
    assert.match(reason.summary, /allowed\.txt/)
    const blocked = await getSession(s.d, sid)
    assert.equal(blocked.status.phase, 'blocked')
    assert.equal(existsSync(join(s.workspace, 'allowed.txt')), false, 'nothing runs before the decision')
    const r = await approve(s.d, sid, reason.request_id, 'allow')
    assert.equal(r.status, 202)
    assert.equal(r.json().kind, 'approval')
    assert.equal(r.json().delivery, 'completed')
    assert.deepEqual(r.json().approval, {
      request_id: reason.request_id,
      decision: 'allow',
      remember: 'once',
    })
    const done = await waitSession(s.d, sid, idle)
    assert.equal(done.status.blocking_reason, null)
    assert.equal(readFileSync(join(s.workspace, 'allowed.txt'), 'utf8'), 'yes\n')
    const frames = await live.collect((f) => f.event === 'run.ended')
    live.destroy()
    const kinds = frames.map((f) => f.event)
    assert.ok(kinds.indexOf('approval.requested') < kinds.indexOf('approval.decided'))
    assert.ok(kinds.indexOf('approval.decided') < kinds.indexOf('tool.started'))
    const [row] = approvalRows(s.home, sid)
    assert.equal(row.state, 'allowed')
    assert.equal(row.decided_by, r.inputId)
  })

  it('deny: the file stays untouched and the model gets the denial, then answers', async () => {
    const sid = await newSession(s)
    s.upstream.enqueue(writeCall('denied.txt', 'no\n'), answer('understood'))
    await putInput(s.d, sid, message('write it'))
    const reason = await waitBlocked(s.d, sid)
    assert.equal((await approve(s.d, sid, reason.request_id, 'deny')).status, 202)
    const done = await waitSession(s.d, sid, idle)
    assert.equal(done.latest_answer.outcome, 'completed')
    assert.equal(existsSync(join(s.workspace, 'denied.txt')), false)
    const [result] = toolResultsOf(s.upstream.requests[1].body)
    assert.match(result.output, /Denied/)
    const history = await historyOf(s.d, sid)
    assert.equal(history.find((e: any) => e.kind === 'tool_result').content.outcome, 'denied')
    assert.equal(approvalRows(s.home, sid)[0].state, 'denied')
  })

  it('remember session: a later call of the same tool runs without asking', async () => {
    const sid = await newSession(s)
    s.upstream.enqueue(writeCall('one.txt', '1'), answer('first'))
    await putInput(s.d, sid, message('first'))
    const reason = await waitBlocked(s.d, sid)
    await approve(s.d, sid, reason.request_id, 'allow', 'session')
    await waitSession(s.d, sid, idle)
    s.upstream.enqueue(writeCall('two.txt', '2'), answer('second'))
    const read = await runMessage(s, sid, 'second')
    assert.equal(read.latest_answer.outcome, 'completed')
    assert.equal(readFileSync(join(s.workspace, 'two.txt'), 'utf8'), '2')
    assert.equal(approvalRows(s.home, sid).length, 1, 'the second write asked nobody')
    // Commands are remembered by their exact command line: another one asks again.
    s.upstream.enqueue(callTools({ name: 'shell', arguments: { command: 'echo a' } }), answer('ran'))
    await putInput(s.d, sid, message('third'))
    const shell = await waitBlocked(s.d, sid)
    assert.equal(shell.tool, 'shell')
    await approve(s.d, sid, shell.request_id, 'allow', 'session')
    await waitSession(s.d, sid, idle)
    s.upstream.enqueue(callTools({ name: 'shell', arguments: { command: 'echo a' } }), answer('again'))
    await runMessage(s, sid, 'fourth')
    s.upstream.enqueue(callTools({ name: 'shell', arguments: { command: 'echo b' } }), answer('other'))
    await putInput(s.d, sid, message('fifth'))
    const other = await waitBlocked(s.d, sid)
    assert.match(other.summary, /echo b/)
    await approve(s.d, sid, other.request_id, 'deny')
    await waitSession(s.d, sid, idle)
    assert.equal(approvalRows(s.home, sid).length, 3)
  })

  it('a repeated approval PUT answers the same and decides once; a changed body under its id is a conflict', async () => {
    const sid = await newSession(s)
    s.upstream.enqueue(writeCall('twice.txt', 'x'), answer('ok'))
    await putInput(s.d, sid, message('go'))
    const reason = await waitBlocked(s.d, sid)
    const inputId = uuidv7()
    const [a, b] = await Promise.all([
      approve(s.d, sid, reason.request_id, 'allow', 'once', inputId),
      approve(s.d, sid, reason.request_id, 'allow', 'once', inputId),
    ])
    assert.equal(a.status, 202)
    assert.equal(b.status, 202)
    assert.deepEqual(a.json(), b.json())
    await waitSession(s.d, sid, idle)
    const again = await approve(s.d, sid, reason.request_id, 'allow', 'once', inputId)
    assert.equal(again.status, 202)
    assert.deepEqual(again.json(), a.json())
    assertProblem(await approve(s.d, sid, reason.request_id, 'deny', 'once', inputId), 409, 'input_conflict')
    // A new input for the decided request: its own code.
    assertProblem(await approve(s.d, sid, reason.request_id, 'deny'), 409, 'approval_not_pending')
    const r = await s.d.request({ path: `/sessions/${sid}?tail=0` })
    assert.equal(r.status, 200)
    const db = new Database(join(s.home, 'state.db'), { readonly: true })
    const decided = db
      .prepare("SELECT COUNT(*) AS n FROM events WHERE session_id = ? AND kind = 'approval.decided'")
      .get(sid) as { n: number }
    db.close()
    assert.equal(decided.n, 1)
  })

  it('an approval for an unknown request is a 409 approval_not_pending, and stores nothing', async () => {
    const sid = await newSession(s)
    const inputId = uuidv7()
    const r = await approve(s.d, sid, uuidv7(), 'allow', 'once', inputId)
    assertProblem(r, 409, 'approval_not_pending')
    assert.equal((await s.d.request({ path: `/sessions/${sid}/inputs/${inputId}` })).status, 404)
    // Approvals never count toward the queue: the session has no waiting input.
    assert.deepEqual((await getSession(s.d, sid)).pending_inputs, [])
  })

  it('a malformed approval is a 400 with its code, stores nothing and leaves the request waiting', async () => {
    const sid = await newSession(s)
    s.upstream.enqueue(writeCall('bad-input.txt', 'x'), answer('done'))
    await putInput(s.d, sid, message('write it'))
    const reason = await waitBlocked(s.d, sid)
    const base = {
      kind: 'approval',
      request_id: reason.request_id,
      decision: 'allow',
      remember: 'once',
      client_id: 't',
    }
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, decision: 'maybe' }, 'invalid_request'],
      [{ ...base, remember: 'forever' }, 'invalid_request'],
      [{ ...base, extra: 1 }, 'unknown_field'],
      [{ ...base, request_id: 42 }, 'invalid_request'],
    ]
    for (const [body, code] of cases) {
      const inputId = uuidv7()
      assertProblem(await putInput(s.d, sid, body, inputId), 400, code)
      assert.equal((await s.d.request({ path: `/sessions/${sid}/inputs/${inputId}` })).status, 404)
    }
    assert.equal((await getSession(s.d, sid)).status.blocking_reason.request_id, reason.request_id)
    assert.ok(!existsSync(join(s.workspace, 'bad-input.txt')))
    // The request still takes a well-formed answer.
    assert.equal((await approve(s.d, sid, reason.request_id, 'deny')).status, 202)
    await waitSession(s.d, sid, idle)
  })

  it('policy read-only offers no write or command tools, and refuses one called anyway', async () => {
    const sid = await newSession(s)
    const cur = await s.d.request({ path: `/sessions/${sid}?view=configuration` })
    const patch = await s.d.request({
      method: 'PATCH',
      path: `/sessions/${sid}?view=configuration`,
      headers: { 'content-type': 'application/merge-patch+json', 'if-match': String(cur.headers.etag) },
      body: JSON.stringify({ approval_policy: 'read-only' }),
    })
    assert.equal(patch.status, 200)
    assert.equal(patch.json().resource.value.approval_policy, 'read-only')
    assert.notEqual(patch.headers.etag, cur.headers.etag)
    s.upstream.enqueue(writeCall('ro.txt', 'no'), answer('fine'))
    await runMessage(s, sid, 'try')
    const offered = s.upstream.requests[0].body.tools.map((t: any) => t.name ?? t.function?.name)
    assert.ok(offered.includes('read'))
    assert.ok(offered.includes('grep'))
    for (const name of ['write', 'edit', 'shell', 'job_start'])
      assert.equal(offered.includes(name), false, name)
    assert.equal(existsSync(join(s.workspace, 'ro.txt')), false)
    assert.match(toolResultsOf(s.upstream.requests[1].body)[0].output, /read-only/)
    assert.equal(approvalRows(s.home, sid).length, 0)
  })

  it('an interrupt while a call waits expires the request and ends the run', async () => {
    const sid = await newSession(s)
    s.upstream.enqueue(writeCall('interrupted.txt', 'no'))
    await putInput(s.d, sid, message('go'))
    const reason = await waitBlocked(s.d, sid)
    const before = await getSession(s.d, sid)
    const r = await post(s.d, `/sessions/${sid}/interrupt`, {
      run_id: before.status.run_id,
      through_input_order: before.input_order,
    })
    assert.equal(r.status, 200)
    assert.equal(r.json().run_outcome, 'interrupted')
    const done = await waitSession(s.d, sid, idle)
    assert.equal(done.status.blocking_reason, null)
    assert.equal(done.latest_answer.outcome, 'interrupted')
    assert.equal(approvalRows(s.home, sid)[0].state, 'expired')
    assertProblem(await approve(s.d, sid, reason.request_id, 'allow'), 409, 'approval_not_pending')
    assert.equal(existsSync(join(s.workspace, 'interrupted.txt')), false)
    const history = await historyOf(s.d, sid)
    const result = history.find((e: any) => e.kind === 'tool_result')
    assert.match(result.content.output, /waited for approval/)
  })
})

describe('approvals across a restart', () => {
  for (const signal of ['SIGKILL', 'SIGTERM'] as const)
    it(`a daemon stopped (${signal}) while a call waits fails the run, expires the request, and writes nothing`, async () => {
      const s = await startAgent({ tools: { approval_policy: 'ask' } })
      try {
        const sid = await newSession(s)
        s.upstream.enqueue(writeCall('restart.txt', 'no'))
        await putInput(s.d, sid, message('go'))
        const reason = await waitBlocked(s.d, sid)
        await s.d.stop(signal)
        const d = await startDaemon({ home: s.home })
        try {
          const done = await waitSession(d, sid, idle)
          assert.equal(done.status.blocking_reason, null)
          assert.equal(done.latest_answer.outcome, 'failed')
          const [row] = approvalRows(s.home, sid)
          assert.equal(row.state, 'expired')
          assert.equal(row.decided_by, null)
          assertProblem(await approve(d, sid, reason.request_id, 'allow'), 409, 'approval_not_pending')
          assert.equal(existsSync(join(s.workspace, 'restart.txt')), false)
          const history = await historyOf(d, sid)
          assert.deepEqual(
            history.map((e: any) => e.kind),
            ['user', 'assistant', 'tool_call', 'tool_result', 'error'],
          )
          assert.equal(history[4].content.problem.code, 'daemon_restarted')
        } finally {
          await d.stop()
        }
      } finally {
        await s.upstream.close()
      }
    })
})
