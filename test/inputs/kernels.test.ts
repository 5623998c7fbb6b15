// Kernel processes: the reserve process warms itself before a session gets it, sessions
// share processes (up to a capacity), idle kernels and processes are released, and a
// session whose kernel was released runs again on a new one. Real daemon, fake upstream;
// processes are read from /proc and the pool's reports from HOME/logs/hearth.log.
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { logLines as daemonLog, until } from '../helpers/daemon.ts'
import { createSession } from '../streams/sse-client.ts'
import {
  childrenOf,
  getSession,
  idle,
  message,
  putInput,
  running,
  type Setup,
  startWithUpstream,
  waitSession,
} from './helpers.ts'

/** The daemon's log lines with this message. */
const logLines = (s: Setup, msg: string): any[] => daemonLog(s.d.home, msg)

const kernelsOf = (s: Setup) => childrenOf(s.d.proc.pid as number).filter(running)

async function stop(s: Setup): Promise<void> {
  await s.d.stop()
  await s.upstream.close()
}

describe('kernel processes', () => {
  it('the reserve process has run its warm-up turns before it says ready, and the first turn runs on it', async () => {
    const s = await startWithUpstream()
    try {
      const ready = await until('the reserve kernel', () => logLines(s, 'kernel process ready')[0])
      // One warm-up turn per wire format (Responses, Chat Completions, ChatGPT, Bedrock's
      // signed Messages, claude's Messages, Gemini), all done, against the kernel's own
      // loopback server: the configured upstream saw nothing.
      assert.equal(ready.warm_turns, 6)
      assert.equal(s.upstream.requests.length, 0)
      assert.deepEqual(kernelsOf(s), [ready.pid])
      const sid = await createSession(s.d)
      await putInput(s.d, sid, message('hello'))
      const done = await waitSession(s.d, sid, (x) => idle(x) && x.input_order === 1)
      assert.equal(done.latest_answer.outcome, 'completed')
      // The turn ran on the warmed process: nothing else was forked for it.
      assert.deepEqual(kernelsOf(s), [ready.pid])
      assert.equal(logLines(s, 'kernel process ready').length, 1)
      assert.equal(s.upstream.requests.length, 1)
    } finally {
      await stop(s)
    }
  })

  it('without a reserve, a first turn waits for its new process to warm up before it reaches the upstream', async () => {
    const s = await startWithUpstream({ env: { HEARTH_KERNEL_SPARE: '0' } })
    try {
      // The log is open (it opens just after start), so its lines carry their own time.
      await until('the log', () => existsSync(join(s.d.home, 'logs', 'hearth.log')))
      assert.deepEqual(kernelsOf(s), [])
      const sid = await createSession(s.d)
      const sent = Date.now()
      await putInput(s.d, sid, message('hello'))
      const reached = await until(
        'the upstream request',
        () => s.upstream.requests.length > 0 && Date.now(),
        10_000,
      )
      const ready = await until('the process ready', () => logLines(s, 'kernel process ready')[0])
      assert.equal(ready.warm_turns, 6)
      assert.ok(ready.time <= reached, `ready at ${ready.time}, the upstream reached at ${reached}`)
      // No process was there before: the one that ran the turn warmed up after it was sent.
      assert.ok(ready.time >= sent, `ready at ${ready.time}, the input sent at ${sent}`)
      assert.equal(logLines(s, 'kernel process ready').length, 1)
      const done = await waitSession(s.d, sid, (x) => idle(x) && x.input_order === 1)
      assert.equal(done.latest_answer.outcome, 'completed')
      assert.deepEqual(kernelsOf(s), [ready.pid])
    } finally {
      await stop(s)
    }
  })

  it('busy sessions share a kernel process up to its capacity; each keeps its own kernel instance', async () => {
    const s = await startWithUpstream({ env: { HEARTH_KERNEL_CAPACITY: '4' } })
    try {
      await until('the reserve kernel', () => logLines(s, 'kernel process ready')[0])
      const sids = await Promise.all(Array.from({ length: 5 }, () => createSession(s.d)))
      for (let i = 0; i < sids.length; i++) s.upstream.enqueue({ text: ['a', 'b', 'c', 'd'], delayMs: 250 })
      await Promise.all(sids.map((sid) => putInput(s.d, sid, message('go'))))
      const busy = await Promise.all(
        sids.map((sid) => waitSession(s.d, sid, (x) => x.kernel.state === 'running')),
      )
      assert.equal(new Set(busy.map((x) => x.kernel.instance_id)).size, 5)
      assert.equal(kernelsOf(s).length, 2, 'five busy sessions on two processes of four')
      const done = await Promise.all(
        sids.map((sid) => waitSession(s.d, sid, (x) => idle(x) && x.input_order === 1)),
      )
      for (const x of done) assert.equal(x.latest_answer.outcome, 'completed')
      // The idle session keeps its kernel (ready) until the linger ends.
      assert.deepEqual(
        done.map((x) => [x.kernel.state, x.kernel.instance_id]),
        busy.map((x) => ['ready', x.kernel.instance_id]),
      )
      // Idle sessions take no room: more sessions, one after another, need no new process.
      for (let i = 0; i < 5; i++) {
        const sid = await createSession(s.d)
        await putInput(s.d, sid, message('one more'))
        await waitSession(s.d, sid, (x) => idle(x) && x.input_order === 1)
      }
      assert.equal(kernelsOf(s).length, 2)
    } finally {
      await stop(s)
    }
  })

  it('idle kernels are released, then the reserve process; a released session runs again', async () => {
    const s = await startWithUpstream({
      // Long enough that a loaded machine still sees the states in between.
      env: { HEARTH_KERNEL_IDLE_MS: '1000', HEARTH_KERNEL_SPARE_IDLE_MS: '2000' },
    })
    try {
      const sid = await createSession(s.d)
      await putInput(s.d, sid, message('one'))
      const first = await waitSession(s.d, sid, (x) => idle(x) && x.input_order === 1)
      assert.equal(first.latest_answer.outcome, 'completed')
      // The processes that ran, from the log: a snapshot of /proc could come after the linger.
      const readyPids = () => logLines(s, 'kernel process ready').map((l) => l.pid)
      const firstPids = await until('the first process ready', () => readyPids().length > 0 && readyPids())
      assert.equal(firstPids.length, 1)
      const released = await waitSession(s.d, sid, (x) => x.kernel.state === 'none')
      assert.equal(released.kernel.instance_id, null)
      assert.equal(released.kernel.build, null)
      await until('no kernel process left', () => kernelsOf(s).length === 0)
      await until('the stop logged', () =>
        logLines(s, 'kernel process stopped').find((l) => l.reason === 'spare_idle'),
      )
      // Needed again: a new process, a new instance, and the turn completes.
      await putInput(s.d, sid, message('two'))
      const second = await waitSession(s.d, sid, (x) => idle(x) && x.input_order === 2)
      assert.equal(second.latest_answer.outcome, 'completed')
      assert.equal(second.kernel.state, 'ready')
      assert.notEqual(second.kernel.instance_id, first.kernel.instance_id)
      const again = await until(
        'the new process ready',
        () => readyPids().length > firstPids.length && readyPids().slice(firstPids.length),
      )
      assert.equal(again.length, 1)
      assert.ok(!firstPids.includes(again[0]), 'a new process')
      // A new session after idling brings the reserve back before its first input.
      await until('everything released again', () => kernelsOf(s).length === 0)
      const readyBefore = logLines(s, 'kernel process ready').length
      await createSession(s.d)
      await until('the reserve warmed again', () => logLines(s, 'kernel process ready').length > readyBefore)
      assert.deepEqual(kernelsOf(s), readyPids().slice(readyBefore))
    } finally {
      await stop(s)
    }
  })

  it('a crashed process fails the runs of every session on it; each runs again', async () => {
    const s = await startWithUpstream()
    try {
      const sids = [await createSession(s.d), await createSession(s.d)]
      s.upstream.enqueue(
        { text: ['a', 'b'], mode: 'stall', after: 1 },
        { text: ['a', 'b'], mode: 'stall', after: 1 },
      )
      for (const sid of sids) await putInput(s.d, sid, message('stall'))
      for (const sid of sids) await waitSession(s.d, sid, (x) => x.activity.output_utf8_bytes > 0)
      const [pid] = kernelsOf(s)
      assert.equal(kernelsOf(s).length, 1)
      process.kill(pid, 'SIGKILL')
      for (const sid of sids) {
        const failed = await waitSession(s.d, sid, idle)
        const error = failed.history.items.find((e: any) => e.kind === 'error')
        assert.equal(error.content.problem.code, 'kernel_crashed')
        assert.equal(failed.kernel.state, 'none')
      }
      for (const sid of sids) await putInput(s.d, sid, message('after'))
      for (const sid of sids) {
        const ok = await waitSession(s.d, sid, (x) => idle(x) && x.input_order === 2)
        assert.equal(ok.latest_answer.outcome, 'completed')
      }
      assert.equal((await getSession(s.d, sids[0])).kernel.state, 'ready')
    } finally {
      await stop(s)
    }
  })
})
