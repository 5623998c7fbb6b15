// kill -9 at any moment loses nothing acknowledged: inputs that got a 202 are there after a
// restart with their order, none twice, and unanswered ones can be retried with their id.
// A run cut by kill -9 ends as interrupted on the next start, keeping the output it logged.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import Database from 'better-sqlite3'
import { v7 as uuidv7 } from 'uuid'
import { startDaemon, type TestDaemon, until } from '../helpers/daemon.ts'
import { createSession } from '../streams/sse-client.ts'
import { childrenOf, idle, message, putInput, running, startWithUpstream, waitSession } from './helpers.ts'

interface Sent {
  session: string
  id: string
  body: unknown
  order?: number
}

describe('durability of inputs', () => {
  it('keeps every acknowledged input across kill -9 during 1,000 concurrent PUTs', async () => {
    let d: TestDaemon = await startDaemon({ env: { HEARTH_KERNEL_SPARE: '0' } })
    const sessions = await Promise.all(Array.from({ length: 40 }, () => createSession(d)))
    const all: Sent[] = sessions.flatMap((session) =>
      Array.from({ length: 25 }, (_, i) => ({ session, id: uuidv7(), body: message(`m${i}`) })),
    )
    let answered = 0
    const killAt = 300
    const pending = all.map(async (s) => {
      try {
        const r = await putInput(d, s.session, s.body, s.id)
        if (r.status === 202) s.order = r.json().acceptance_order
        answered++
        if (answered === killAt) d.proc.kill('SIGKILL')
      } catch {
        // the connection died with the daemon: no answer, retried below
      }
    })
    await Promise.all(pending)
    await d.exited
    const acknowledged = all.filter((s) => s.order !== undefined)
    assert.ok(acknowledged.length >= killAt, `${acknowledged.length} acknowledged`)
    d = await startDaemon({ home: d.home, env: { HEARTH_KERNEL_SPARE: '0' } })
    try {
      for (const s of acknowledged) {
        const r = await d.request({ path: `/sessions/${s.session}/inputs/${s.id}` })
        assert.equal(r.status, 200, r.text())
        assert.equal(r.json().acceptance_order, s.order)
      }
      // Retry everything with the same ids: the acknowledged ones answer their decision,
      // the others are admitted now, once.
      for (const s of all) {
        const r = await putInput(d, s.session, s.body, s.id)
        assert.equal(r.status, 202, r.text())
        if (s.order !== undefined) assert.equal(r.json().acceptance_order, s.order)
        s.order = r.json().acceptance_order
      }
      for (const session of sessions) {
        const orders = all.filter((s) => s.session === session).map((s) => s.order)
        assert.equal(new Set(orders).size, 25, 'no order is given twice')
        const read = await d.request({ path: `/sessions/${session}` })
        assert.equal(read.json().input_order, 25, 'no input was admitted twice')
      }
    } finally {
      await d.stop()
    }
  })

  it('ends a run cut by kill -9 as interrupted, keeps its logged output, then runs what waits', async () => {
    const first = await startWithUpstream()
    const sid = await createSession(first.d)
    first.upstream.enqueue({ text: ['half ', 'of it'], mode: 'stall', after: 1 })
    const cut = await putInput(first.d, sid, message('will be cut'))
    await waitSession(first.d, sid, (x) => x.activity.output_utf8_bytes > 0)
    // Once the log events carrying the output have committed, queue one more input and kill.
    const db = new Database(join(first.d.home, 'state.db'), { readonly: true })
    try {
      const logged = db.prepare("SELECT 1 FROM events WHERE session_id = ? AND payload LIKE '%half %'")
      await until('the output logged', () => logged.get(sid) !== undefined)
    } finally {
      db.close()
    }
    const waiting = await putInput(first.d, sid, message('waits'))
    assert.equal(waiting.status, 202)
    const kernels = childrenOf(first.d.proc.pid as number)
    assert.ok(kernels.length > 0)
    first.d.proc.kill('SIGKILL')
    await first.d.exited
    // A kernel never outlives its daemon, even one stalled mid-stream.
    const deadline = Date.now() + 5_000
    while (kernels.some(running) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    assert.deepEqual(kernels.filter(running), [])
    const second = await startWithUpstream({ home: first.d.home, upstream: first.upstream })
    try {
      const s = await waitSession(second.d, sid, (x) => idle(x) && x.latest_answer?.text === 'Hello, world!')
      const items = s.history.items.map((e: any) => [
        e.kind,
        e.content.text ?? e.content.problem.code,
        e.content.status,
      ])
      assert.deepEqual(items, [
        ['user', 'will be cut', undefined],
        ['assistant', 'half ', 'interrupted'],
        ['error', 'daemon_restarted', undefined],
        ['user', 'waits', undefined],
        ['assistant', 'Hello, world!', 'complete'],
      ])
      const input = await second.d.request({ path: `/sessions/${sid}/inputs/${cut.inputId}` })
      assert.equal(input.json().delivery, 'interrupted')
    } finally {
      await second.d.stop()
      await first.upstream.close()
    }
  })

  it('keeps an input killed with -9 right after its 202, and recovery ends the run it started', async () => {
    // The admission's sync runs beside the run's start: the 202 still comes after it.
    const first = await startWithUpstream()
    const sid = await createSession(first.d)
    const sent = await putInput(first.d, sid, message('right after'))
    first.d.proc.kill('SIGKILL')
    assert.equal(sent.status, 202)
    await first.d.exited
    const second = await startWithUpstream({ home: first.d.home, upstream: first.upstream })
    try {
      const input = await second.d.request({ path: `/sessions/${sid}/inputs/${sent.inputId}` })
      assert.equal(input.status, 200, input.text())
      assert.equal(input.json().acceptance_order, sent.json().acceptance_order)
      const s = await waitSession(second.d, sid, (x) => idle(x) && x.history.items.length > 0)
      assert.equal(s.history.items[0].kind, 'user')
      assert.equal(s.history.items[0].content.text, 'right after')
      const after = await second.d.request({ path: `/sessions/${sid}/inputs/${sent.inputId}` })
      assert.ok(['interrupted', 'completed'].includes(after.json().delivery), after.text())
      // The session goes on: the next input runs.
      const next = await putInput(second.d, sid, message('next'))
      await waitSession(
        second.d,
        sid,
        (x) => idle(x) && x.history.items.some((e: any) => e.content.text === 'next'),
      )
      const ran = await second.d.request({ path: `/sessions/${sid}/inputs/${next.inputId}` })
      assert.equal(ran.json().delivery, 'completed', ran.text())
    } finally {
      await second.d.stop()
      await first.upstream.close()
    }
  })

  it('prunes decisions that became terminal more than seven days ago, at start', async () => {
    let d = await startDaemon({ env: { HEARTH_KERNEL_SPARE: '0' } })
    const sid = await createSession(d)
    const old = await putInput(d, sid, message('old'))
    const recent = await putInput(d, sid, message('recent'))
    await waitSession(d, sid, idle)
    assert.equal(await d.stop(), 0)
    const db = new Database(join(d.home, 'state.db'))
    db.prepare('UPDATE inputs SET decided_ms = ? WHERE id = ?').run(
      Date.now() - 8 * 24 * 3600 * 1000,
      old.inputId,
    )
    db.close()
    d = await startDaemon({ home: d.home, env: { HEARTH_KERNEL_SPARE: '0' } })
    try {
      const gone = await d.request({ path: `/sessions/${sid}/inputs/${old.inputId}` })
      assert.equal(gone.status, 404, gone.text())
      assert.equal(gone.json().code, 'input_not_found')
      assert.equal((await d.request({ path: `/sessions/${sid}/inputs/${recent.inputId}` })).status, 200)
    } finally {
      await d.stop()
    }
  })
})
