// Tool runs against real processes: the step limit, an interrupt during a 30-second command
// (its process group gone, its partial output kept), a background job that outlives its
// turn and is stopped by session delete, and kill -9 of the daemon during a call.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, beforeEach, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { answer, callTools, toolResultsOf } from '../fakes/tool-script.ts'
import { startDaemon } from '../helpers/daemon.ts'
import { idle, killChildren, message, post, putInput, waitSession } from '../inputs/helpers.ts'
import { deleteLeaf, openSse } from '../streams/sse-client.ts'
import {
  type AgentSetup,
  getSession,
  historyOf,
  newSession,
  runMessage,
  startAgent,
} from './agent-helpers.ts'
import { processesWith } from './exec/helpers.ts'

async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const v = await probe()
    if (v) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(25)
  }
}

/** A number unique to this test process, so commands can be found in /proc. */
const tag = `${process.pid % 1000}${Date.now() % 1000}`

describe('tool runs', () => {
  let s: AgentSetup
  before(async () => {
    s = await startAgent({
      tools: { approval_policy: 'auto', max_steps: 3 },
      env: { HEARTH_KERNEL_IDLE_MS: '200' },
    })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })
  beforeEach(() => {
    s.upstream.reset()
  })

  it('the step limit ends the run with step_limit_reached; the last calls are recorded as not run', async () => {
    writeFileSync(join(s.workspace, 'loop.txt'), 'again\n')
    const sid = await newSession(s)
    const read = () => callTools({ name: 'read', arguments: { path: 'loop.txt' } })
    s.upstream.enqueue(read(), read(), read(), answer('never asked'))
    const done = await runMessage(s, sid, 'loop')
    assert.equal(s.upstream.requests.length, 3, 'three model requests: max_steps')
    assert.equal(done.latest_answer.outcome, 'failed')
    const history = await historyOf(s.d, sid)
    const last = history.at(-1)
    assert.equal(last.kind, 'error')
    assert.equal(last.content.problem.code, 'step_limit_reached')
    const results = history.filter((e: any) => e.kind === 'tool_result')
    assert.equal(results.length, 3)
    assert.match(results[2].content.output, /step limit/)
    assert.equal(
      history.filter((e: any) => e.kind === 'assistant').length,
      3,
      "the model's last output is kept",
    )
    // The next message goes on from there: the unrun call carries its result to the model.
    s.upstream.enqueue(answer('ok'))
    await runMessage(s, sid, 'go on')
    const replayed = toolResultsOf(s.upstream.requests[3].body)
    assert.equal(replayed.length, 3)
    assert.match(replayed[2].output, /step limit/)
  })

  it('an interrupt during a 30-second command kills its process group and keeps its output', async () => {
    const marker = `sleep 30.${tag}1`
    const sid = await newSession(s)
    const live = openSse(s.d, `/sessions/${sid}?tail=0`)
    await live.next()
    s.upstream.enqueue(
      callTools({ name: 'shell', arguments: { command: `echo partial-output; ${marker}; echo never` } }),
      answer('unused'),
    )
    await putInput(s.d, sid, message('wait'))
    await live.collect(
      (f) => f.event === 'tool.progress' && /partial-output/.test(JSON.parse(f.data).payload.text),
    )
    const pids = await waitFor('the command', () => {
      const p = processesWith(marker)
      return p.length > 0 ? p : undefined
    })
    const running = await getSession(s.d, sid)
    assert.equal(running.status.phase, 'running')
    const t = Date.now()
    const r = await post(s.d, `/sessions/${sid}/interrupt`, {
      run_id: running.status.run_id,
      through_input_order: running.input_order,
    })
    assert.equal(r.json().run_outcome, 'interrupted')
    const done = await waitSession(s.d, sid, idle)
    assert.ok(Date.now() - t < 10_000)
    assert.equal(done.latest_answer.outcome, 'interrupted')
    await waitFor('the process group to go', () => processesWith(marker).length === 0, 5000)
    for (const pid of pids) assert.equal(processesWith(marker).includes(pid), false)
    const history = await historyOf(s.d, sid)
    const result = history.find((e: any) => e.kind === 'tool_result')
    assert.equal(result.content.outcome, 'interrupted')
    assert.match(result.content.output, /partial-output/)
    assert.doesNotMatch(result.content.output, /never/)
    assert.equal(s.upstream.requests.length, 1, 'the model was not asked again')
    live.destroy()
  })

  it('a background job outlives its turn, shows in kernel.running_jobs, and stops with its session', async () => {
    const marker = `sleep 300.${tag}2`
    const sid = await newSession(s)
    s.upstream.enqueue(callTools({ name: 'job_start', arguments: { command: marker } }), answer('started'))
    const done = await runMessage(s, sid, 'start a job')
    assert.equal(done.latest_answer.outcome, 'completed')
    // Past the kernel's idle linger (200 ms here): a session without a job whose turn ended
    // later has given its kernel up by then, while the job keeps this session's kernel.
    const later = await newSession(s)
    await runMessage(s, later, 'nothing to run')
    await waitSession(s.d, later, (x) => x.kernel.state === 'none')
    const read = await getSession(s.d, sid)
    assert.equal(read.kernel.live_job_count, 1)
    const [job] = read.kernel.running_jobs
    assert.equal(job.command, marker)
    assert.equal(typeof job.id, 'string')
    assert.ok(Date.parse(job.started_at) > 0)
    assert.equal(job.output_bytes, 0)
    assert.notEqual(read.kernel.instance_id, null)
    assert.equal(read.kernel.sandbox.isolated, true)
    assert.equal(processesWith(marker).length > 0, true)
    await deleteLeaf(s.d, sid)
    await waitFor('the job to stop', () => processesWith(marker).length === 0, 10_000)
  })
})

describe('jobs and their ends', () => {
  let s: AgentSetup
  before(async () => {
    s = await startAgent({ tools: { approval_policy: 'auto' } })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })
  beforeEach(() => {
    s.upstream.reset()
  })

  /** Starts a job in a run that then answers; returns the session once the job shows. */
  async function withJob(marker: string): Promise<string> {
    const sid = await newSession(s)
    s.upstream.enqueue(callTools({ name: 'job_start', arguments: { command: marker } }), answer('started'))
    await runMessage(s, sid, 'start a job')
    await waitSession(s.d, sid, (x) => x.kernel.live_job_count === 1)
    // The job counts once it is started; its command's process follows a moment later.
    await waitFor("the job's process", () => processesWith(marker).length > 0)
    return sid
  }

  it('an interrupt stops the jobs its run started, with the call running now', async () => {
    const job = `sleep 300.${tag}4`
    const command = `sleep 30.${tag}5`
    const sid = await newSession(s)
    s.upstream.enqueue(
      callTools({ name: 'job_start', arguments: { command: job } }),
      callTools({ name: 'shell', arguments: { command } }),
    )
    await putInput(s.d, sid, message('start and wait'))
    await waitFor('both processes', () => processesWith(job).length > 0 && processesWith(command).length > 0)
    const running = await getSession(s.d, sid)
    assert.equal(running.kernel.live_job_count, 1)
    await post(s.d, `/sessions/${sid}/interrupt`, {
      run_id: running.status.run_id,
      through_input_order: running.input_order,
    })
    await waitSession(s.d, sid, idle)
    await waitFor(
      'the job and the command to stop',
      () => processesWith(job).length + processesWith(command).length === 0,
    )
    const after = await waitSession(s.d, sid, (x) => x.kernel.live_job_count === 0)
    assert.deepEqual(after.kernel.running_jobs, [])
  })

  it('a job of an earlier run is not stopped by an interrupt of a later one', async () => {
    const job = `sleep 300.${tag}6`
    const sid = await withJob(job)
    s.upstream.enqueue(callTools({ name: 'shell', arguments: { command: `sleep 30.${tag}7` } }))
    await putInput(s.d, sid, message('wait'))
    await waitFor('the command', () => processesWith(`sleep 30.${tag}7`).length > 0)
    const running = await getSession(s.d, sid)
    await post(s.d, `/sessions/${sid}/interrupt`, {
      run_id: running.status.run_id,
      through_input_order: running.input_order,
    })
    await waitSession(s.d, sid, idle)
    await waitFor('the command to stop', () => processesWith(`sleep 30.${tag}7`).length === 0)
    assert.ok(processesWith(job).length > 0, 'the earlier job runs on')
    assert.equal((await getSession(s.d, sid)).kernel.live_job_count, 1)
    await deleteLeaf(s.d, sid)
    await waitFor('the job to stop', () => processesWith(job).length === 0)
  })

  it('a kernel process that crashes: its jobs are killed and the session reports them gone', async () => {
    const job = `sleep 300.${tag}8`
    const sid = await withJob(job)
    const live = openSse(s.d, `/sessions/${sid}?tail=0`)
    await live.next()
    killChildren(s.d.proc.pid as number)
    const read = await waitSession(s.d, sid, (x) => x.kernel.live_job_count === 0)
    assert.deepEqual(read.kernel.running_jobs, [])
    // Other events may come first (the run's workspace.changed, recorded after its end).
    const frames = await live.collect((f) => f.event === 'kernel.jobs_changed')
    live.destroy()
    const changed = frames.find((f) => f.event === 'kernel.jobs_changed')
    assert.deepEqual(JSON.parse(String(changed?.data)).payload, { live_job_count: 0, running: [] })
    // Killed outright, the kernel could not stop its job (inside bubblewrap the command
    // outlives it): the daemon kills the process groups the kernel last reported.
    await waitFor('the job to be killed', () => processesWith(job).length === 0, 5000)
  })
})

describe('tool runs across kill -9', () => {
  it('without a sandbox, a kernel killed outright leaves no command behind: the daemon kills its groups', async () => {
    // A PATH with node, bash and sleep but no bwrap: commands run unsandboxed, with nothing
    // (no --die-with-parent) to end them with their kernel.
    const bin = mkdtempSync(join(tmpdir(), 'hearth-bin-'))
    for (const tool of ['bash', 'sleep'])
      symlinkSync(
        execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim(),
        join(bin, tool),
      )
    symlinkSync(process.execPath, join(bin, 'node'))
    const job = `sleep 300.${tag}7`
    // HOME too: a login shell killed while it runs the user's profile (pyenv's rehash, say)
    // could leave that profile's lock files behind for every later shell on the machine.
    const s = await startAgent({ env: { PATH: bin, HOME: mkdtempSync(join(tmpdir(), 'hearth-home-')) } })
    try {
      const sid = await newSession(s)
      s.upstream.enqueue(callTools({ name: 'job_start', arguments: { command: job } }), answer('started'))
      await runMessage(s, sid, 'start a job')
      await waitFor('the job', () => processesWith(job).length > 0)
      const read = await getSession(s.d, sid)
      assert.equal(read.kernel.sandbox.isolated, false, 'the command runs without bubblewrap')
      killChildren(s.d.proc.pid as number)
      await waitFor('the job to be killed', () => processesWith(job).length === 0, 5000)
    } finally {
      for (const pid of processesWith(job)) process.kill(pid, 'SIGKILL')
      await s.d.stop()
      await s.upstream.close()
    }
  })

  it('a drain (SIGTERM) stops every job before the daemon exits', async () => {
    const job = `sleep 300.${tag}9`
    const s = await startAgent({ tools: { approval_policy: 'auto' } })
    try {
      const sid = await newSession(s)
      s.upstream.enqueue(callTools({ name: 'job_start', arguments: { command: job } }), answer('started'))
      await runMessage(s, sid, 'start a job')
      await waitFor('the job', () => processesWith(job).length > 0)
      assert.equal(await s.d.stop('SIGTERM'), 0)
      await waitFor('the job to stop', () => processesWith(job).length === 0, 10_000)
    } finally {
      await s.upstream.close()
    }
  })

  it('a daemon killed during a call leaves a history with no half call, and no command behind', async () => {
    const marker = `sleep 30.${tag}3`
    const s = await startAgent({ tools: { approval_policy: 'auto' } })
    try {
      const sid = await newSession(s)
      s.upstream.enqueue(callTools({ name: 'shell', arguments: { command: marker } }, { text: 'Running.' }))
      await putInput(s.d, sid, message('run it'))
      await waitFor('the command', () => processesWith(marker).length > 0)
      await s.d.stop('SIGKILL')
      // The kernel hears its channel close and stops what it ran.
      await waitFor('the command to go', () => processesWith(marker).length === 0, 10_000)
      const d = await startDaemon({ home: s.home })
      try {
        const done = await waitSession(d, sid, idle)
        assert.equal(done.latest_answer.outcome, 'interrupted')
        const history = await historyOf(d, sid)
        assert.deepEqual(
          history.map((e: any) => e.kind),
          ['user', 'assistant', 'tool_call', 'tool_result', 'error'],
        )
        const result = history[3].content
        assert.equal(result.call_id, history[2].content.call_id)
        assert.match(result.output, /daemon stopped/)
        assert.equal(history[4].content.problem.code, 'daemon_restarted')
        // The next turn replays the call with that result: the provider sees a whole exchange.
        s.upstream.enqueue(answer('fine'))
        const r = await putInput(d, sid, message('again'))
        assert.equal(r.status, 202)
        await waitSession(d, sid, idle)
        const results = toolResultsOf(s.upstream.requests.at(-1)!.body)
        assert.equal(results.length, 1)
        assert.match(results[0].output, /daemon stopped/)
      } finally {
        await d.stop()
      }
    } finally {
      await s.upstream.close()
    }
  })
})
