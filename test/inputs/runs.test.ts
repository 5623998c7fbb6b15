// Runs: the session stream shows a turn live, cancel and interrupt touch only what they
// name, upstream failures and a kernel crash fail the run (never the daemon).
import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'node:test'
import { assertProblem } from '../api/hostile.ts'
import { createSession, openSse } from '../streams/sse-client.ts'
import {
  getSession,
  idle,
  killChildren,
  message,
  post,
  putInput,
  type Setup,
  startWithUpstream,
  waitSession,
} from './helpers.ts'

describe('runs', () => {
  let s: Setup
  before(async () => {
    s = await startWithUpstream()
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })
  // Each test scripts the upstream for itself: a script a test queued but did not use
  // (a turn interrupted before it reached the upstream) must not leak into the next.
  beforeEach(() => {
    s.upstream.reset()
  })

  it('streams a turn live: run.started, entries, output deltas, run.ended', async () => {
    const sid = await createSession(s.d)
    const stream = openSse(s.d, `/sessions/${sid}?tail=0`)
    try {
      assert.equal((await stream.next())?.event, 'snapshot')
      s.upstream.enqueue({ text: ['one ', 'two ', 'three'], reasoning: ['thinking'], delayMs: 5 })
      await putInput(s.d, sid, message('count'))
      const seen: { event: string; data: any }[] = []
      for (;;) {
        const f = await stream.next()
        assert.ok(f, 'the stream ended early')
        seen.push({ event: f.event as string, data: JSON.parse(f.data) })
        if (f.event === 'run.ended') break
      }
      const kinds = seen.map((f) => f.event)
      assert.deepEqual(kinds.slice(0, 3), ['input.accepted', 'run.started', 'entry.added'])
      const text: Record<string, string> = {}
      for (const f of seen.filter((f) => f.event === 'output.delta'))
        text[f.data.payload.content_id] = (text[f.data.payload.content_id] ?? '') + f.data.payload.delta
      const started = seen.filter((f) => f.event === 'output.started').map((f) => f.data.payload)
      assert.deepEqual(started.map((p: any) => p.kind).sort(), ['reasoning', 'text'])
      const textId = started.find((p: any) => p.kind === 'text').content_id
      assert.equal(text[textId], 'one two three')
      const ended = seen.at(-1)?.data.payload
      assert.equal(ended.outcome, 'completed')
      assert.equal(ended.problem, null)
      const added = seen.filter((f) => f.event === 'entry.added').map((f) => f.data.payload.entry.kind)
      assert.deepEqual(added, ['user', 'reasoning', 'assistant'])
    } finally {
      stream.destroy()
    }
  })

  it('shows active output while running and pages it under a snapshot; 410 once ended', async () => {
    const sid = await createSession(s.d)
    s.upstream.enqueue({ text: ['é'.repeat(10), 'tail', 'never'], mode: 'stall', after: 2 })
    await putInput(s.d, sid, message('go'))
    const running = await waitSession(s.d, sid, (x) => x.active_output.some((o: any) => o.utf8_bytes >= 24))
    const out = running.active_output.find((o: any) => o.kind === 'text')
    assert.equal(running.status.phase, 'running')
    assert.equal(running.kernel.state, 'running')
    assert.match(running.kernel.instance_id, /^[0-9a-f-]{36}$/)
    const page = await s.d.request({ path: `${out.url}?snapshot=${encodeURIComponent(out.snapshot)}` })
    assert.equal(page.status, 200, page.text())
    assert.equal(page.json().text, `${'é'.repeat(10)}tail`)
    assert.equal(page.json().next, null)
    assertProblem(
      await s.d.request({ path: `${out.url}?snapshot=forged.token` }),
      400,
      'invalid_continuation',
    )
    const stop = await post(s.d, `/sessions/${sid}/interrupt`, {
      run_id: running.status.run_id,
      through_input_order: 1,
    })
    assert.equal(stop.json().run_outcome, 'interrupted')
    assertProblem(
      await s.d.request({ path: `${out.url}?snapshot=${encodeURIComponent(out.snapshot)}` }),
      410,
      'snapshot_stale',
    )
  })

  it('interrupts only the run the client saw; partial output is kept; a retry touches nothing new', async () => {
    const sid = await createSession(s.d)
    s.upstream.enqueue({ text: ['partial ', 'answer'], mode: 'stall', after: 1 })
    const first = await putInput(s.d, sid, message('long task'))
    const running = await waitSession(s.d, sid, (x) => x.activity.output_utf8_bytes > 0)
    const later = await putInput(s.d, sid, message('queued after'))
    assert.equal(later.json().acceptance_order, 2)
    const req = { run_id: running.status.run_id, through_input_order: running.input_order }
    const stop = await post(s.d, `/sessions/${sid}/interrupt`, req)
    assert.equal(stop.status, 200, stop.text())
    assert.deepEqual(stop.json(), { ...req, run_outcome: 'interrupted', cancelled_inputs: [] })
    const done = await waitSession(s.d, sid, idle)
    const entries = done.history.items.map((e: any) => [e.kind, e.content.text, e.content.status])
    assert.deepEqual(entries.slice(0, 2), [
      ['user', 'long task', undefined],
      ['assistant', 'partial ', 'interrupted'],
    ])
    // The queued input ran as its own turn after the interrupt.
    assert.deepEqual(entries.slice(2, 4), [
      ['user', 'queued after', undefined],
      ['assistant', 'Hello, world!', 'complete'],
    ])
    assert.equal(
      (await s.d.request({ path: `/sessions/${sid}/inputs/${first.inputId}` })).json().delivery,
      'interrupted',
    )
    assert.equal(
      (await s.d.request({ path: `/sessions/${sid}/inputs/${later.inputId}` })).json().delivery,
      'completed',
    )
    // The same request again: its run has ended; nothing else is touched.
    s.upstream.enqueue({ text: ['a', 'b'], mode: 'stall', after: 1 })
    await putInput(s.d, sid, message('third'))
    const third = await waitSession(s.d, sid, (x) => x.activity.output_utf8_bytes > 0)
    const retry = await post(s.d, `/sessions/${sid}/interrupt`, req)
    assert.equal(retry.json().run_outcome, 'already_ended')
    assert.deepEqual(retry.json().cancelled_inputs, [])
    assert.equal((await getSession(s.d, sid)).status.run_id, third.status.run_id)
    await post(s.d, `/sessions/${sid}/interrupt`, { run_id: third.status.run_id, through_input_order: 3 })
    await waitSession(s.d, sid, idle)
  })

  it('cancel: a waiting input is cancelled, a shared turn keeps running, a lone turn stops', async () => {
    const sid = await createSession(s.d)
    s.upstream.enqueue({ text: ['x', 'y'], mode: 'stall', after: 1 })
    const lone = await putInput(s.d, sid, message('alone'))
    await waitSession(s.d, sid, (x) => x.activity.output_utf8_bytes > 0)
    const a = await putInput(s.d, sid, message('a'))
    const b = await putInput(s.d, sid, message('b'))
    const c = await putInput(s.d, sid, message('c'))
    const cancelC = await post(s.d, `/sessions/${sid}/inputs/${c.inputId}/cancel`, {})
    assert.equal(cancelC.json().outcome, 'cancelled')
    assert.equal(cancelC.json().input.delivery, 'cancelled')
    // a and b will share the next turn; stall it too.
    s.upstream.enqueue({ text: ['p', 'q'], mode: 'stall', after: 1 })
    const cancelLone = await post(s.d, `/sessions/${sid}/inputs/${lone.inputId}/cancel`, {})
    assert.equal(cancelLone.json().outcome, 'interrupted')
    const shared = await waitSession(
      s.d,
      sid,
      (x) => x.status.phase === 'running' && x.pending_inputs.length === 0,
    )
    const cancelA = await post(s.d, `/sessions/${sid}/inputs/${a.inputId}/cancel`, {})
    assert.equal(cancelA.json().outcome, 'shared_running')
    assert.equal(
      (await getSession(s.d, sid)).status.run_id,
      shared.status.run_id,
      'the shared turn continues',
    )
    await post(s.d, `/sessions/${sid}/interrupt`, { run_id: shared.status.run_id, through_input_order: 4 })
    await waitSession(s.d, sid, idle)
    const again = await post(s.d, `/sessions/${sid}/inputs/${b.inputId}/cancel`, {})
    assert.equal(again.json().outcome, 'already_finished')
  })

  it('fails the turn with a clear problem on an upstream 401, and the session stays usable', async () => {
    const sid = await createSession(s.d)
    s.upstream.failTimes(1, 401, { message: 'Incorrect API key provided' })
    await putInput(s.d, sid, message('hi'))
    const failed = await waitSession(s.d, sid, idle)
    assert.equal(failed.latest_answer.outcome, 'failed')
    const error = failed.history.items.find((e: any) => e.kind === 'error')
    assert.equal(error.content.problem.code, 'upstream_unauthorized')
    assert.match(error.content.problem.detail, /Incorrect API key/)
    await putInput(s.d, sid, message('again'))
    const ok = await waitSession(s.d, sid, (x) => idle(x) && x.input_order === 2)
    assert.equal(ok.latest_answer.outcome, 'completed')
  })

  it('a kernel crash fails the run with kernel_crashed; the daemon keeps serving', async () => {
    const sid = await createSession(s.d)
    s.upstream.enqueue({ text: ['a', 'b'], mode: 'stall', after: 1 })
    await putInput(s.d, sid, message('crash me'))
    await waitSession(s.d, sid, (x) => x.activity.output_utf8_bytes > 0)
    killChildren(s.d.proc.pid as number)
    const failed = await waitSession(s.d, sid, idle).catch((err) => {
      // Seen once in a full run under load (the daemon gone right after the kill) and not
      // reproduced since: keep what the daemon said.
      throw new Error(
        `${err.message}; daemon exit ${s.d.proc.exitCode}/${s.d.proc.signalCode}: ${s.d.stderr}`,
      )
    })
    assert.equal(failed.latest_answer.outcome, 'failed')
    const error = failed.history.items.find((e: any) => e.kind === 'error')
    assert.equal(error.content.problem.code, 'kernel_crashed')
    assert.equal((await s.d.request({ path: '/server' })).status, 200)
    await putInput(s.d, sid, message('after the crash'))
    assert.equal(
      (await waitSession(s.d, sid, (x) => idle(x) && x.input_order === 2)).latest_answer.outcome,
      'completed',
    )
  })

  it('fails a run whose profile is not configured with provider_not_configured', async () => {
    const sid = await createSession(s.d, { kind: 'new', workspace: s.d.home, provider_profile: 'nowhere' })
    await putInput(s.d, sid, message('hi'))
    const failed = await waitSession(s.d, sid, idle)
    const error = failed.history.items.find((e: any) => e.kind === 'error')
    assert.equal(error.content.problem.code, 'provider_not_configured')
  })
})
