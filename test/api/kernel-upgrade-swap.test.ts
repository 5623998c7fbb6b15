// A kernel upgrade that fails at its last stage, after the session's background jobs were
// stopped: the new kernel passes validation, then exits while the jobs stop. The result says
// `failed` at `swapping`, lists the stopped job (stopped, not restored), and the session
// keeps its old kernel, which still answers. A delete while an upgrade runs is refused.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { pathToFileURL } from 'node:url'
import { KERNEL_PROTOCOL } from '../../src/kernel/protocol.ts'
import { answer, callTools } from '../fakes/tool-script.ts'
import { post, waitSession } from '../inputs/helpers.ts'
import { type AgentSetup, newSession, runMessage, startAgent } from '../tools/agent-helpers.ts'
import { processesWith } from '../tools/exec/helpers.ts'
import { DIST, tempBundle } from './kernel-bundle.ts'

const bundle = tempBundle()
const BUNDLE = bundle.path
const replaceBundle = bundle.replace

/** A kernel that passes validation (ready and pong in this daemon's protocol), then exits. */
const GONE_AFTER_PONG = `
process.send({ type: 'ready', instance_id: 'gone', build: '9.9.9+gone', protocol: ${KERNEL_PROTOCOL}, warm_turns: 0, warm_ms: 0,
  tools: [], sandbox: { available: false, kind: null, reason: 'none' } })
process.on('message', (m) => {
  if (m.type === 'ping') process.send({ type: 'pong', id: m.id, build: '9.9.9+gone', protocol: ${KERNEL_PROTOCOL} }, () => process.exit(0))
  if (m.type === 'shutdown') process.exit(0)
})
process.on('disconnect', () => process.exit(0))
`

describe('kernel upgrade: a failure while swapping', { timeout: 120_000 }, () => {
  let s: AgentSetup

  before(async () => {
    replaceBundle()
    s = await startAgent({ protocol: 'chat_completions', env: { HEARTH_KERNEL_BUNDLE: BUNDLE } })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  it('reports the jobs it stopped, not restored, and the session keeps its kernel', async () => {
    // The job ignores SIGTERM, so stopping it takes the kernel's 2 s grace: the new kernel
    // has long exited when the swap would happen.
    const marker = `sleep 300.${process.pid % 1000}${Date.now() % 1000}7`
    const command = `trap '' TERM; ${marker}`
    const sid = await newSession(s)
    s.upstream.enqueue(callTools({ name: 'job_start', arguments: { command } }), answer('started'))
    await runMessage(s, sid, 'start a job')
    const running = await waitSession(s.d, sid, (x) => x.kernel.live_job_count === 1)
    const [job] = running.kernel.running_jobs
    const before = running.kernel.instance_id
    replaceBundle(GONE_AFTER_PONG)
    await waitSession(s.d, sid, (x) => x.kernel.stale === true)

    const r = await post(s.d, `/sessions/${sid}/kernel/upgrade`, {})
    assert.equal(r.status, 200, r.text())
    const result = r.json()
    assert.equal(result.outcome, 'failed', r.text())
    assert.equal(result.failed_stage, 'swapping')
    assert.equal(result.problem?.code, 'kernel_upgrade_failed')
    assert.equal(result.instance_id, before, 'the session keeps its kernel')
    assert.deepEqual(result.stopped_jobs, [
      { id: job.id, command, started_at: job.started_at, run_id: job.run_id },
    ])

    const read = await waitSession(s.d, sid, (x) => x.kernel.live_job_count === 0 && x.kernel.stage === null)
    assert.equal(read.kernel.instance_id, before)
    const deadline = Date.now() + 10_000
    while (processesWith(marker).length > 0 && Date.now() < deadline) await sleep(25)
    assert.deepEqual(processesWith(marker), [], 'the job is gone and was not started again')

    // The old kernel still runs the session's turns.
    replaceBundle()
    s.upstream.enqueue(answer('still here'))
    const after = await runMessage(s, sid, 'are you there?')
    assert.equal(after.kernel.instance_id, before)
  })

  it('a session is not deleted while its kernel is being upgraded (409), and is once it is done', async () => {
    replaceBundle()
    const sid = await newSession(s)
    s.upstream.enqueue(answer('first'))
    await runMessage(s, sid, 'hello')
    // The built kernel, a second and a half late: the upgrade waits in `staging`.
    replaceBundle(
      `await new Promise((r) => setTimeout(r, 1500))\nawait import(${JSON.stringify(pathToFileURL(join(DIST, 'kernel.mjs')).href)})\n`,
    )
    await waitSession(s.d, sid, (x) => x.kernel.stale === true)
    const upgrading = post(s.d, `/sessions/${sid}/kernel/upgrade`, {})
    await waitSession(s.d, sid, (x) => x.kernel.stage === 'staging')
    const removal = async () => {
      const config = (await s.d.request({ path: `/sessions/${sid}?view=configuration` })).json()
      return s.d.request({
        method: 'DELETE',
        path: `/sessions/${sid}?view=configuration`,
        headers: { 'if-match': config.etag },
      })
    }
    const refused = await removal()
    assert.equal(refused.status, 409, refused.text())
    assert.equal(refused.json().code, 'session_busy')
    const result = (await upgrading).json()
    assert.equal(result.outcome, 'upgraded', JSON.stringify(result))
    const deleted = await removal()
    assert.equal(deleted.status, 200, deleted.text())
    replaceBundle()
  })
})
