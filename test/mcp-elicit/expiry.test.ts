// A question an MCP server asks expires with its run: an interrupt, a drain (SIGTERM) or a
// crash (kill -9, then a new start) leaves the request `expired`, the session unblocked and
// any later answer a 409; the server gets `cancel` while its kernel lives. A question the
// server withdraws expires at once, its call going on; one whose call returned expires with
// it. While the question waits, the call's timeout does not run.
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { after, describe, it } from 'node:test'
import { assertProblem } from '../api/hostile.ts'
import { answer, callTools, toolResultsOf } from '../fakes/tool-script.ts'
import { startDaemon } from '../helpers/daemon.ts'
import { getSession, idle, message, post, putInput, waitSession } from '../inputs/helpers.ts'
import { openSse } from '../streams/sse-client.ts'
import { historyOf, newSession } from '../tools/agent-helpers.ts'
import { type AskSetup, answerReached, elicitationRows, reply, startAsking, waitAsked } from './helpers.ts'

const RUN_MS = 40_000

async function askForm(s: AskSetup) {
  const sid = await newSession(s)
  s.upstream.enqueue(callTools({ name: 'mcp__asker__ask_form', arguments: {} }), (req) =>
    answer(`the tool said ${toolResultsOf(req.body)[0]?.output}`),
  )
  await putInput(s.d, sid, message('ask me'))
  return { sid, reason: await waitAsked(s.d, sid) }
}

describe('elicitation expiry', () => {
  const setups: AskSetup[] = []
  after(async () => {
    for (const s of setups) {
      await s.d.stop()
      await s.upstream.close()
    }
  })

  it('an interrupt expires the request, the server gets cancel, and a later answer is a 409', async () => {
    const s = await startAsking()
    setups.push(s)
    const { sid, reason } = await askForm(s)
    const before = await getSession(s.d, sid)
    const r = await post(s.d, `/sessions/${sid}/interrupt`, {
      run_id: before.status.run_id,
      through_input_order: before.input_order,
    })
    assert.equal(r.status, 200)
    const done = await waitSession(s.d, sid, idle, RUN_MS)
    assert.equal(done.latest_answer.outcome, 'interrupted')
    assert.equal(done.status.blocking_reason, null)
    assert.equal((await answerReached(s.log, 'ask_form')).action, 'cancel')
    const [row] = elicitationRows(s.home, sid)
    assert.equal(row.state, 'expired')
    assert.equal(row.answered_by, null)
    // The log, replayed: the question expired with the run, in the run's last commit.
    const replay = openSse(s.d, `/sessions/${sid}?after_generation=1&after_seq=0`)
    const frames = await replay.collect((f) => f.event === 'run.ended', RUN_MS)
    replay.destroy()
    const expired = JSON.parse(frames.find((f) => f.event === 'elicitation.expired')?.data ?? '{}').payload
    assert.deepEqual(expired, {
      request_id: reason.request_id,
      run_id: before.status.run_id,
      call_id: row.call_id,
      server: 'asker',
      reason: 'run_ended',
    })
    const p = assertProblem(
      await reply(s.d, sid, reason.request_id, 'accept', { name: 'Ada' }),
      409,
      'elicitation_not_pending',
    )
    assert.match(String(p.detail), /already expired/)
  })

  it('a question the server gives up on expires as withdrawn before its call ends, and the session is no longer blocked', async () => {
    const s = await startAsking()
    setups.push(s)
    const sid = await newSession(s)
    const live = openSse(s.d, `/sessions/${sid}?tail=0`)
    await live.next()
    s.upstream.enqueue(callTools({ name: 'mcp__asker__ask_briefly', arguments: { ms: 1500 } }), (req) =>
      answer(`the tool said ${toolResultsOf(req.body)[0]?.output}`),
    )
    await putInput(s.d, sid, message('ask briefly'))
    const reason = await waitAsked(s.d, sid)
    const done = await waitSession(s.d, sid, idle, RUN_MS)
    assert.equal(done.latest_answer.outcome, 'completed')
    assert.match((await answerReached(s.log, 'ask_briefly')).action, /^gave up: .*timed out/i)
    assert.equal(elicitationRows(s.home, sid)[0].state, 'expired')
    const frames = await live.collect((f) => f.event === 'run.ended', RUN_MS)
    live.destroy()
    const kinds = frames.map((f) => f.event)
    const expired = JSON.parse(frames.find((f) => f.event === 'elicitation.expired')?.data ?? '{}').payload
    assert.equal(expired.request_id, reason.request_id)
    assert.equal(expired.reason, 'withdrawn')
    assert.ok(
      kinds.indexOf('elicitation.expired') < kinds.indexOf('tool.ended'),
      'unblocked before the call’s end',
    )
    assertProblem(
      await reply(s.d, sid, reason.request_id, 'accept', { name: 'Ada' }),
      409,
      'elicitation_not_pending',
    )
  })

  it('a withdrawn question stops blocking the session at once while its call works on', async () => {
    const s = await startAsking()
    setups.push(s)
    const sid = await newSession(s)
    const live = openSse(s.d, `/sessions/${sid}?tail=0`)
    await live.next()
    s.upstream.enqueue(callTools({ name: 'mcp__asker__withdraw_and_work', arguments: { ms: 300 } }), (req) =>
      answer(`the tool said ${toolResultsOf(req.body)[0]?.output}`),
    )
    await putInput(s.d, sid, message('ask, then work'))
    const reason = await waitAsked(s.d, sid)
    // Withdrawn: the question is gone from the session while the call still runs.
    const unblocked = await waitSession(s.d, sid, (x) => x.status.blocking_reason === null, RUN_MS)
    assert.equal(unblocked.status.phase, 'running')
    assert.equal(unblocked.current_progress.length, 1, 'the call works on')
    assert.match((await answerReached(s.log, 'withdraw_and_work')).action, /^withdrew: /)
    const frames = await live.collect((f) => f.event === 'elicitation.expired', RUN_MS)
    live.destroy()
    const expired = JSON.parse(frames.at(-1)?.data ?? '{}').payload
    assert.deepEqual(
      { request_id: expired.request_id, reason: expired.reason },
      { request_id: reason.request_id, reason: 'withdrawn' },
    )
    assert.ok(!frames.some((f) => f.event === 'tool.ended'), 'expired while the call runs')
    assert.equal(elicitationRows(s.home, sid)[0].state, 'expired')
    assertProblem(
      await reply(s.d, sid, reason.request_id, 'accept', { name: 'Ada' }),
      409,
      'elicitation_not_pending',
    )
    writeFileSync(s.trigger, '')
    const done = await waitSession(s.d, sid, idle, RUN_MS)
    assert.equal(done.latest_answer.outcome, 'completed')
    const result = (await historyOf(s.d, sid)).find((e: any) => e.kind === 'tool_result')
    assert.match(result.content.output, /^worked on after: withdrew: /)
  })

  it('a question whose call returned while it waited expires with the call, and the server gets cancel', async () => {
    const s = await startAsking()
    setups.push(s)
    const sid = await newSession(s)
    const live = openSse(s.d, `/sessions/${sid}?tail=0`)
    await live.next()
    s.upstream.enqueue(callTools({ name: 'mcp__asker__ask_and_return', arguments: {} }), () => answer('done'))
    await putInput(s.d, sid, message('ask and return'))
    const frames = await live.collect((f) => f.event === 'run.ended', RUN_MS)
    live.destroy()
    const kinds = frames.map((f) => f.event)
    // Asked before the call's end or not at all (the result may win the race to the daemon):
    // when asked, it expired with the call.
    if (kinds.includes('elicitation.requested')) {
      const expired = JSON.parse(frames.find((f) => f.event === 'elicitation.expired')?.data ?? '{}').payload
      assert.equal(expired.reason, 'call_ended')
    }
    assert.equal((await answerReached(s.log, 'ask_and_return')).action, 'cancel')
    const done = await getSession(s.d, sid)
    assert.equal(done.status.blocking_reason, null)
    assert.ok(elicitationRows(s.home, sid).every((r) => r.state !== 'pending'))
  })

  it('the call’s timeout waits while the person does: answered after three timeouts, the call still succeeds', async () => {
    const s = await startAsking({ tool_timeout_ms: 400 })
    setups.push(s)
    const { sid, reason } = await askForm(s)
    // Three timeouts' worth of the session still waiting on the person (no call ended meanwhile).
    const started = Date.now()
    while (Date.now() - started < 1200) {
      const read = await getSession(s.d, sid)
      assert.equal(read.status.blocking_reason?.request_id, reason.request_id, 'still waiting')
      assert.equal(read.current_progress.length, 1, 'the call runs on')
    }
    assert.equal((await reply(s.d, sid, reason.request_id, 'accept', { name: 'Ada' })).status, 202)
    const done = await waitSession(s.d, sid, idle, RUN_MS)
    assert.equal(done.latest_answer.outcome, 'completed')
    const history = await historyOf(s.d, sid)
    const result = history.find((e: any) => e.kind === 'tool_result')
    assert.equal(result.content.outcome, 'ok')
    assert.equal(result.content.output, 'accept: {"name":"Ada"}')
  })
})

describe('elicitation across a restart', () => {
  for (const signal of ['SIGKILL', 'SIGTERM'] as const)
    it(`a daemon stopped (${signal}) while a server waits fails the run and expires the request`, async () => {
      const s = await startAsking()
      try {
        const { sid, reason } = await askForm(s)
        await s.d.stop(signal)
        const d = await startDaemon({ home: s.home })
        try {
          const done = await waitSession(d, sid, idle, RUN_MS)
          assert.equal(done.status.blocking_reason, null)
          assert.equal(done.latest_answer.outcome, 'failed')
          const [row] = elicitationRows(s.home, sid)
          assert.equal(row.state, 'expired')
          assertProblem(
            await reply(d, sid, reason.request_id, 'accept', { name: 'Ada' }),
            409,
            'elicitation_not_pending',
          )
          const history = await historyOf(d, sid)
          const error = history.find((e: any) => e.kind === 'error')
          assert.equal(error.content.problem.code, 'daemon_restarted')
          assert.match(error.content.problem.detail, /MCP server .*waited for an answer/)
        } finally {
          await d.stop()
        }
      } finally {
        await s.upstream.close()
      }
    })
})
