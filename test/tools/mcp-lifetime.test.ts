// The lifetime of a session's MCP servers, through the real daemon and real stdio servers
// (test/fakes/mcp/): a settings change between runs keeps unchanged servers, restarts
// changed ones and stops removed ones; servers stop when the session gives its kernel up
// and when it is deleted, end with a kernel killed outright, and start again with its next
// run; a call past its timeout is a `timeout` and an interrupt cancels a call.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, beforeEach, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { answer, callTools, toolResultsOf } from '../fakes/tool-script.ts'
import { ROOT } from '../helpers/daemon.ts'
import { idle, message, post, putInput, running, waitSession } from '../inputs/helpers.ts'
import { change } from '../settings/helpers.ts'
import { deleteLeaf, openSse } from '../streams/sse-client.ts'
import {
  type AgentSetup,
  getSession,
  historyOf,
  newSession,
  runMessage,
  startAgent,
} from './agent-helpers.ts'

const STDIO_SERVER = join(ROOT, 'test/fakes/mcp/stdio-server.ts')
const RUN_MS = 40_000
const stdioServer = (extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [STDIO_SERVER],
  startup_timeout_ms: 30_000,
  ...extra,
})
const offeredNames = (body: any): string[] => (body.tools ?? []).map((t: any) => t.name ?? t.function?.name)

/** The parent process id (/proc/PID/stat, the field after the state). */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

/** Runs a step calling `pid` on each server, returns their pids by server. */
async function pidsOf(s: AgentSetup, sid: string, servers: string[]): Promise<Record<string, number>> {
  const first = s.upstream.requests.length
  s.upstream.enqueue(
    callTools(...servers.map((n) => ({ name: `mcp__${n}__pid`, arguments: {} }))),
    answer('ok'),
  )
  await runMessage(s, sid, 'pids', RUN_MS)
  const results = toolResultsOf(s.upstream.requests[first + 1].body).slice(-servers.length)
  return Object.fromEntries(servers.map((n, i) => [n, Number(results[i].output)]))
}

describe('MCP servers across runs', () => {
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

  it('a settings change: an unchanged server is kept, a changed one restarts, a removed one stops', async () => {
    await change(s.d, 'mcp', { servers: { keep: stdioServer(), rotate: stdioServer(), drop: stdioServer() } })
    const sid = await newSession(s)
    const before = await pidsOf(s, sid, ['keep', 'rotate', 'drop'])
    for (const pid of Object.values(before)) assert.ok(running(pid))
    // A secret changes (rotate) and a server goes (drop).
    await change(s.d, 'mcp', {
      servers: { rotate: { env: { FAKE_MCP_TOKEN: 'rotated-value' } }, drop: null },
    })
    const later = await pidsOf(s, sid, ['keep', 'rotate'])
    assert.equal(later.keep, before.keep, 'the unchanged server kept running')
    assert.notEqual(later.rotate, before.rotate, 'the changed server was started again')
    await until('the old servers to stop', () => !running(before.rotate) && !running(before.drop))
    assert.ok(!offeredNames(s.upstream.requests.at(-1)?.body).some((n) => n.startsWith('mcp__drop__')))
    const read = await getSession(s.d, sid)
    assert.deepEqual(Object.keys(read.composition.availability).sort(), ['mcp:keep', 'mcp:rotate'])
    // Deleting the session stops its servers.
    await deleteLeaf(s.d, sid)
    await until(
      'the servers of the deleted session to stop',
      () => !running(later.keep) && !running(later.rotate),
    )
  })

  it('a call past tool_timeout_ms is a timeout; an interrupt cancels the call it runs', async () => {
    await change(s.d, 'mcp', {
      servers: { keep: null, rotate: null, slow: stdioServer({ tool_timeout_ms: 300 }) },
    })
    const sid = await newSession(s)
    s.upstream.enqueue(callTools({ name: 'mcp__slow__sleep', arguments: { ms: 5000 } }), answer('too slow'))
    await runMessage(s, sid, 'sleep', RUN_MS)
    const [timedOut] = toolResultsOf(s.upstream.requests[1].body)
    assert.match(timedOut.output, /did not answer within 300 ms/)
    let history = await historyOf(s.d, sid)
    assert.equal(history.find((e: any) => e.kind === 'tool_result').content.outcome, 'timeout')

    await change(s.d, 'mcp', { servers: { slow: { tool_timeout_ms: 60_000 } } })
    const live = openSse(s.d, `/sessions/${sid}?tail=0`)
    await live.next()
    s.upstream.enqueue(callTools({ name: 'mcp__slow__sleep', arguments: { ms: 30_000 } }), answer('unused'))
    await putInput(s.d, sid, message('sleep long'))
    await live.collect((f) => f.event === 'tool.started', RUN_MS)
    live.destroy()
    const busy = await getSession(s.d, sid)
    const t = Date.now()
    const r = await post(s.d, `/sessions/${sid}/interrupt`, {
      run_id: busy.status.run_id,
      through_input_order: busy.input_order,
    })
    assert.equal(r.json().run_outcome, 'interrupted')
    const done = await waitSession(s.d, sid, idle, RUN_MS)
    assert.ok(Date.now() - t < 10_000)
    assert.equal(done.latest_answer.outcome, 'interrupted')
    history = await historyOf(s.d, sid)
    assert.equal(history.filter((e: any) => e.kind === 'tool_result').at(-1).content.outcome, 'interrupted')
    // The server is still there for the next run.
    assert.equal(done.composition.availability['mcp:slow'].state, 'ready')
  })

  it('a kernel killed outright: its stdio servers see their input close and end; the next run starts them again', async () => {
    await change(s.d, 'mcp', { servers: { slow: null, local: stdioServer() } })
    const sid = await newSession(s)
    const { local } = await pidsOf(s, sid, ['local'])
    const kernel = parentOf(local)
    process.kill(kernel, 'SIGKILL')
    await until('the orphaned server to end', () => !running(local))
    await until('the composition to empty', async () => {
      const read = await getSession(s.d, sid)
      return Object.keys(read.composition.availability).length === 0
    })
    const again = await pidsOf(s, sid, ['local'])
    assert.ok(running(again.local))
  })
})

describe('MCP servers and the kernel', () => {
  let s: AgentSetup
  before(async () => {
    s = await startAgent({ tools: { approval_policy: 'auto' }, env: { HEARTH_KERNEL_IDLE_MS: '300' } })
    await change(s.d, 'mcp', { servers: { local: stdioServer() } })
  })
  after(async () => {
    await s.d.stop()
    await s.upstream.close()
  })

  it('the servers stop when the session gives its kernel up, and start again with its next run', async () => {
    const sid = await newSession(s)
    const first = await pidsOf(s, sid, ['local'])
    await until('the idle release', async () => (await getSession(s.d, sid)).kernel.state === 'none')
    await until('the server to stop', () => !running(first.local))
    const idleRead = await getSession(s.d, sid)
    assert.deepEqual(idleRead.composition.availability, {})
    const second = await pidsOf(s, sid, ['local'])
    assert.notEqual(second.local, first.local)
    assert.ok(running(second.local))
  })
})
