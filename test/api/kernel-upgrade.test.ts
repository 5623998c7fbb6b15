// POST /sessions/{id}/kernel/upgrade against the real daemon, told through HEARTH_KERNEL_BUNDLE
// to fork its kernels from a copy of dist/kernel.mjs in a temp folder, which the tests replace
// as an update would: a session's kernel turns stale, an upgrade moves it onto a kernel of the
// new bundle (its background job reported stopped), a bundle that exits at once or speaks
// another protocol or answers no ping fails the upgrade and the session keeps its kernel; a busy session is 409;
// the reserve kernel process is replaced by one of the new bundle.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { pathToFileURL } from 'node:url'
import { upgradeText } from '../../src/client/kernel-view.ts'
import { KERNEL_PROTOCOL } from '../../src/kernel/protocol.ts'
import { parseCommand } from '../../src/tui/commands.ts'
import { statusLine } from '../../src/tui/status-line.ts'
import { makeTheme } from '../../src/tui/theme.ts'
import { answer, callTools } from '../fakes/tool-script.ts'
import { logLines, ROOT, startCli, until } from '../helpers/daemon.ts'
import { idle, message, post, putInput, waitSession } from '../inputs/helpers.ts'
import { change } from '../settings/helpers.ts'
import { openSse } from '../streams/sse-client.ts'
import { type AgentSetup, getSession, newSession, runMessage, startAgent } from '../tools/agent-helpers.ts'
import { processesWith } from '../tools/exec/helpers.ts'
import { assertProblem } from './hostile.ts'
import { DIST, tempBundle } from './kernel-bundle.ts'

const bundle = tempBundle()
const BUNDLE = bundle.path
const replaceBundle = bundle.replace

/** A real MCP server over stdio (test/fakes/mcp/). */
const stdioServer = {
  command: process.execPath,
  args: [join(ROOT, 'test/fakes/mcp/stdio-server.ts')],
  startup_timeout_ms: 30_000,
}

/** A kernel that says it is ready in another protocol version, and answers nothing else. */
const OTHER_PROTOCOL = `
process.send({ type: 'ready', instance_id: 'x', build: '9.9.9+other', protocol: 999, warm_turns: 0, warm_ms: 0,
  tools: [], sandbox: { available: false, kind: null, reason: 'none' } })
process.on('message', (m) => { if (m.type === 'shutdown') process.exit(0) })
process.on('disconnect', () => process.exit(0))
`

/** A kernel that says it is ready in this daemon's protocol but answers no ping. */
const SILENT = OTHER_PROTOCOL.replace('protocol: 999', `protocol: ${KERNEL_PROTOCOL}`)

const tag = `${process.pid % 1000}${Date.now() % 1000}`

describe('POST /sessions/{id}/kernel/upgrade', { timeout: 300_000 }, () => {
  let s: AgentSetup
  const upgrade = (sid: string, body: unknown = {}) => post(s.d, `/sessions/${sid}/kernel/upgrade`, body)

  before(async () => {
    replaceBundle()
    s = await startAgent({ protocol: 'chat_completions', env: { HEARTH_KERNEL_BUNDLE: BUNDLE } })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  it('a session without a kernel: not_running, nothing swapped', async () => {
    const sid = await newSession(s)
    const r = await upgrade(sid)
    assert.equal(r.status, 200, r.text())
    assert.deepEqual(r.json(), {
      outcome: 'not_running',
      failed_stage: null,
      problem: null,
      previous_instance_id: null,
      instance_id: null,
      from_build: null,
      to_build: null,
      stopped_jobs: [],
    })
    const read = await getSession(s.d, sid)
    assert.equal(read.kernel.state, 'none')
    assert.equal(read.kernel.stale, false)
  })

  it('after an update: stale, then upgraded onto a new instance with its stages streamed; a turn still runs', async () => {
    const sid = await newSession(s)
    s.upstream.enqueue(answer('first'))
    await runMessage(s, sid, 'hello')
    const before = await getSession(s.d, sid)
    assert.notEqual(before.kernel.instance_id, null)
    assert.equal(before.kernel.stale, false)
    assert.deepEqual(before.kernel.staleness_reasons, [])
    // Current already: nothing to do.
    assert.equal((await upgrade(sid)).json().outcome, 'current')
    replaceBundle()
    const stale = await waitSession(s.d, sid, (x) => x.kernel.stale === true)
    assert.deepEqual(stale.kernel.staleness_reasons, ['build_changed'])
    assert.equal(stale.kernel.stage, null)
    assert.match(statusLine(stale, 500, makeTheme(false)), / · kernel stale/)
    const live = openSse(s.d, `/sessions/${sid}?tail=0`)
    await live.next()
    const r = await upgrade(sid)
    assert.equal(r.status, 200, r.text())
    const result = r.json()
    assert.equal(result.outcome, 'upgraded', r.text())
    assert.equal(result.previous_instance_id, before.kernel.instance_id)
    assert.notEqual(result.instance_id, before.kernel.instance_id)
    assert.equal(result.from_build, before.kernel.build)
    assert.equal(typeof result.to_build, 'string')
    assert.deepEqual(result.stopped_jobs, [])
    assert.equal(result.problem, null)
    const stages = await live.collect(
      (f) => f.event === 'kernel.stage_changed' && JSON.parse(f.data).payload.stage === null,
    )
    live.destroy()
    assert.deepEqual(
      stages.filter((f) => f.event === 'kernel.stage_changed').map((f) => JSON.parse(f.data).payload),
      [
        { stage: 'staging', outcome: null, instance_id: before.kernel.instance_id },
        { stage: 'validating', outcome: null, instance_id: before.kernel.instance_id },
        { stage: 'swapping', outcome: null, instance_id: before.kernel.instance_id },
        { stage: null, outcome: 'upgraded', instance_id: result.instance_id },
      ],
    )
    const afterRead = await getSession(s.d, sid)
    assert.equal(afterRead.kernel.stale, false)
    assert.deepEqual(afterRead.kernel.staleness_reasons, [])
    assert.equal(afterRead.kernel.instance_id, result.instance_id)
    assert.equal(afterRead.kernel.stage, null)
    assert.doesNotMatch(statusLine(afterRead, 500, makeTheme(false)), /kernel stale/)
    s.upstream.enqueue(answer('second'))
    const done = await runMessage(s, sid, 'again')
    assert.equal(done.latest_answer.outcome, 'completed')
    assert.equal(done.kernel.instance_id, result.instance_id)
  })

  it("an update is heard on the session's stream with nobody reading", async () => {
    const sid = await newSession(s)
    s.upstream.enqueue(answer('first'))
    await runMessage(s, sid, 'hello')
    const live = openSse(s.d, `/sessions/${sid}?tail=0`)
    await live.next()
    replaceBundle()
    const frames = await live.collect((f) => f.event === 'kernel.staleness_changed')
    live.destroy()
    assert.deepEqual(JSON.parse(frames.at(-1)?.data ?? '{}').payload, {
      stale: true,
      staleness_reasons: ['build_changed'],
    })
  })

  it('kernel.stage shows the stage while an upgrade waits for a slow new kernel', async () => {
    const sid = await newSession(s)
    s.upstream.enqueue(answer('first'))
    await runMessage(s, sid, 'hello')
    // The built kernel, a second and a half late.
    replaceBundle(
      `await new Promise((r) => setTimeout(r, 1500))\nawait import(${JSON.stringify(pathToFileURL(join(DIST, 'kernel.mjs')).href)})\n`,
    )
    await waitSession(s.d, sid, (x) => x.kernel.stale === true)
    const pending = upgrade(sid)
    const staging = await waitSession(s.d, sid, (x) => x.kernel.stage !== null)
    assert.equal(staging.kernel.stage, 'staging')
    const result = (await pending).json()
    assert.equal(result.outcome, 'upgraded')
    const read = await getSession(s.d, sid)
    assert.equal(read.kernel.stage, null)
    assert.equal(read.kernel.instance_id, result.instance_id)
    replaceBundle()
  })

  it('after an update, new sessions start on the new bundle while older ones stay stale', async () => {
    const older = await newSession(s)
    s.upstream.enqueue(answer('first'))
    await runMessage(s, older, 'hello')
    replaceBundle()
    await waitSession(s.d, older, (x) => x.kernel.stale === true)
    const newer = await newSession(s)
    s.upstream.enqueue(answer('second'))
    const read = await runMessage(s, newer, 'hello')
    assert.equal(read.kernel.stale, false)
    assert.notEqual(read.kernel.instance_id, null)
    assert.equal((await getSession(s.d, older)).kernel.stale, true)
  })

  it('a running background job is stopped by the swap and reported, not restarted', async () => {
    const marker = `sleep 300.${tag}1`
    const sid = await newSession(s)
    s.upstream.enqueue(callTools({ name: 'job_start', arguments: { command: marker } }), answer('started'))
    await runMessage(s, sid, 'start a job')
    const running = await waitSession(s.d, sid, (x) => x.kernel.live_job_count === 1)
    const [job] = running.kernel.running_jobs
    // The job counts once it is started; its command's process follows a moment later.
    await until("the job's process", () => processesWith(marker).length > 0)
    replaceBundle()
    await waitSession(s.d, sid, (x) => x.kernel.stale === true)
    const result = (await upgrade(sid)).json()
    assert.equal(result.outcome, 'upgraded')
    assert.deepEqual(result.stopped_jobs, [
      { id: job.id, command: marker, started_at: job.started_at, run_id: job.run_id },
    ])
    assert.equal(
      upgradeText(result),
      `kernel upgraded: ${result.from_build} → ${result.to_build}\nstopped jobs (not restarted): ${marker} [${job.id}]`,
    )
    const read = await waitSession(s.d, sid, (x) => x.kernel.live_job_count === 0)
    assert.equal(read.kernel.instance_id, result.instance_id)
    const deadline = Date.now() + 10_000
    while (processesWith(marker).length > 0 && Date.now() < deadline) await sleep(25)
    assert.deepEqual(processesWith(marker), [], 'the job stopped')
  })

  it('a job that ignores SIGTERM is gone when the swap answers', async () => {
    // The command ignores TERM (an ignored signal stays ignored across exec). Unsandboxed,
    // only the SIGKILL that follows the 2 s grace ends it; in a sandbox the TERM ends the
    // sandbox's first process, and its PID namespace with it. Either way inside the swap's
    // 5 s wait, so the answer comes with the job already gone.
    const marker = `sleep 300.${tag}2`
    const sid = await newSession(s)
    s.upstream.enqueue(
      callTools({ name: 'job_start', arguments: { command: `trap '' TERM; ${marker}` } }),
      answer('started'),
    )
    await runMessage(s, sid, 'start a stubborn job')
    await waitSession(s.d, sid, (x) => x.kernel.live_job_count === 1)
    // The job counts once it is started; its command's process follows a moment later.
    await until("the job's process", () => processesWith(marker).length > 0)
    replaceBundle()
    await waitSession(s.d, sid, (x) => x.kernel.stale === true)
    // Timed from the swap on: staging forks and warms a kernel, slow on a loaded machine.
    const live = openSse(s.d, `/sessions/${sid}?tail=0`)
    await live.next()
    const answered = upgrade(sid)
    const swapping = (f: { event: string; data: string }) =>
      f.event === 'kernel.stage_changed' && JSON.parse(f.data).payload.stage === 'swapping'
    await live.collect(swapping, 60_000)
    const t0 = Date.now()
    const result = (await answered).json()
    const took = Date.now() - t0
    live.destroy()
    assert.equal(result.outcome, 'upgraded', JSON.stringify(result))
    assert.equal(result.stopped_jobs.length, 1)
    assert.ok(took < 5_000, `the swap answered within its wait for the jobs (${took} ms)`)
    assert.deepEqual(processesWith(marker), [], 'the job ended before the swap answered')
    const read = await getSession(s.d, sid)
    assert.equal(read.kernel.instance_id, result.instance_id)
    assert.equal(read.kernel.live_job_count, 0)
  })

  it('a bundle that exits at once, or speaks another protocol: failed, and the session keeps its kernel', async () => {
    const sid = await newSession(s)
    s.upstream.enqueue(answer('first'))
    await runMessage(s, sid, 'hello')
    const before = await getSession(s.d, sid)
    try {
      replaceBundle('process.exit(3)\n')
      await waitSession(s.d, sid, (x) => x.kernel.stale === true)
      const exited = (await upgrade(sid)).json()
      assert.equal(exited.outcome, 'failed')
      assert.equal(exited.failed_stage, 'staging')
      assert.equal(exited.problem.code, 'kernel_upgrade_failed')
      assert.match(exited.problem.detail, /exited with code 3/)
      assert.equal(exited.instance_id, before.kernel.instance_id)
      assert.equal(exited.to_build, before.kernel.build)
      assert.deepEqual(exited.stopped_jobs, [])
      assert.equal(
        upgradeText(exited),
        'kernel not upgraded (staging): The new kernel did not start: it exited with code 3; the session keeps its kernel',
      )

      // The session is stale already; an upgrade stats the bundle afresh when it stages.
      replaceBundle(OTHER_PROTOCOL)
      const other = (await upgrade(sid)).json()
      assert.equal(other.outcome, 'failed')
      assert.equal(other.failed_stage, 'validating')
      assert.match(other.problem.detail, /protocol 999/)
      assert.equal(other.instance_id, before.kernel.instance_id)

      replaceBundle(SILENT)
      const silent = (await upgrade(sid)).json()
      assert.equal(silent.outcome, 'failed')
      assert.equal(silent.failed_stage, 'validating')
      assert.match(silent.problem.detail, /did not answer a ping/)
      assert.equal(silent.instance_id, before.kernel.instance_id)

      const read = await getSession(s.d, sid)
      assert.equal(read.kernel.instance_id, before.kernel.instance_id)
      assert.equal(read.kernel.stale, true)
      assert.equal(read.kernel.stage, null)
      // The old kernel still answers.
      s.upstream.enqueue(answer('still here'))
      const done = await runMessage(s, sid, 'are you there')
      assert.equal(done.latest_answer.outcome, 'completed')
      assert.equal(done.kernel.instance_id, before.kernel.instance_id)
    } finally {
      // A new session's kernel goes to a process of the bundle on disk, which is stat'd
      // afresh for that choice: none goes to a process of the fakes.
      replaceBundle()
    }
  })

  it('the MCP servers the old kernel had loaded are loaded on the new one', async () => {
    await change(s.d, 'mcp', { servers: { fine: stdioServer } })
    try {
      const sid = await newSession(s)
      const reload = await post(s.d, `/sessions/${sid}/reload`, { targets: ['composition'] })
      assert.equal(reload.json().composition.outcome, 'reloaded', reload.text())
      assert.equal((await getSession(s.d, sid)).composition.availability['mcp:fine'].state, 'ready')
      replaceBundle()
      await waitSession(s.d, sid, (x) => x.kernel.stale === true)
      const result = (await upgrade(sid)).json()
      assert.equal(result.outcome, 'upgraded')
      const read = await getSession(s.d, sid)
      assert.equal(read.kernel.instance_id, result.instance_id)
      assert.equal(read.composition.availability['mcp:fine'].state, 'ready')
      assert.deepEqual(read.composition.quarantine, [])
    } finally {
      await change(s.d, 'mcp', { servers: { fine: null } })
    }
  })

  it('hearth chat: /upgrade says what it did', async () => {
    const chat = startCli(['chat', '--home', s.home, '--workspace', s.workspace], {}, { timeoutMs: 30_000 })
    s.upstream.enqueue(answer('hello there'))
    chat.child.stdin?.write('hello\n')
    const deadline = Date.now() + 15_000
    while (!chat.stdout().includes('hello there') && Date.now() < deadline) await sleep(25)
    replaceBundle()
    // The daemon has seen the update when the chat's session (the newest) reads stale.
    const list = (await s.d.request({ path: '/sessions?scope=all&limit=200' })).json()
    const newest = list.items
      .map((x: { id: string }) => x.id)
      .sort()
      .at(-1)
    await waitSession(s.d, newest, (x) => x.kernel.stale === true)
    chat.child.stdin?.end('/upgrade\n/upgrade\n')
    const { code, stdout, stderr } = await chat.done
    assert.equal(code, 0, stderr)
    assert.match(stdout, /kernel upgraded: \S+ → \S+\n> kernel already runs the build on disk \(\S+\)\n/)
    assert.equal(parseCommand('/upgrade')?.command?.name, 'upgrade')
  })

  it('is 409 session_busy while a turn runs', async () => {
    const sid = await newSession(s)
    s.upstream.enqueue({ text: ['slow', ' answer'], delayMs: 600 })
    await putInput(s.d, sid, message('a slow one'))
    await waitSession(s.d, sid, (x) => x.status.phase === 'running')
    assertProblem(await upgrade(sid), 409, 'session_busy')
    const read = await waitSession(s.d, sid, idle)
    assert.equal(read.latest_answer.outcome, 'completed')
  })

  it('refuses a body with fields, and an unknown session', async () => {
    const sid = await newSession(s)
    assertProblem(await upgrade(sid, { force: true }), 400, 'unknown_field')
    assertProblem(await upgrade('01900000-0000-7000-8000-000000000000'), 404, 'session_not_found')
  })
})

describe('the reserve kernel after an update', () => {
  it('is replaced by one of the new bundle, on which the next session runs', async () => {
    const reserveBundle = tempBundle()
    reserveBundle.replace()
    const s = await startAgent({
      protocol: 'chat_completions',
      env: { HEARTH_KERNEL_BUNDLE: reserveBundle.path },
    })
    const log = (msg: string) => logLines(s.home, msg)
    try {
      const first = await until('the reserve', () => log('kernel process ready')[0])
      reserveBundle.replace()
      // A new session is activity: the pool looks at its reserve again (the watch on the
      // bundle's folder may have had it looked at already).
      const sid = await newSession(s)
      const stopped = await until('the old reserve stopped', () =>
        log('kernel process stopped').find((l) => l.pid === first.pid),
      )
      assert.equal(stopped.reason, 'replaced')
      const second = await until('a new reserve', () =>
        log('kernel process ready').find((l) => l.pid !== first.pid),
      )
      s.upstream.enqueue(answer('hello'))
      const read = await runMessage(s, sid, 'hello')
      assert.equal(read.latest_answer.outcome, 'completed')
      assert.equal(read.kernel.stale, false)
      // The turn ran on the new reserve: nothing else was forked for it.
      assert.equal(log('kernel process ready').length, 2)
      assert.ok(second.pid)
    } finally {
      await s.d.stop()
      await s.upstream.close()
    }
  })
})
