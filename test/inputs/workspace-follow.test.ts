// A workspace move committed while a descendant runs a turn: the descendant waits with
// workspace_change `waiting_for_idle`, then follows once its turn ends, also when the turn
// ends because the daemon restarted.
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { startDaemon, type TestDaemon } from '../helpers/daemon.ts'
import { createSession } from '../streams/sse-client.ts'
import {
  getSession,
  idle,
  message,
  post,
  putInput,
  type Setup,
  startWithUpstream,
  waitSession,
} from './helpers.ts'

async function moveFamily(d: TestDaemon, rootId: string, workspace: string): Promise<any> {
  const conf = (await d.request({ path: `/sessions/${rootId}?view=configuration` })).json()
  const res = await d.request({
    method: 'PATCH',
    path: `/sessions/${rootId}?view=configuration`,
    headers: { 'content-type': 'application/merge-patch+json', 'if-match': conf.etag },
    body: JSON.stringify({ workspace, family_revision: conf.value.family_revision }),
  })
  assert.equal(res.status, 200, res.text())
  return res.json()
}

/** A root with one child whose turn stalls upstream; the child is running when it returns. */
async function familyWithBusyChild(s: Setup): Promise<{ root: string; child: string; runId: string }> {
  const root = await createSession(s.d)
  const child = await createSession(s.d, { kind: 'child', parent_id: root })
  s.upstream.enqueue({ text: ['working', 'never'], mode: 'stall', after: 1 })
  assert.equal((await putInput(s.d, child, message('long task'))).status, 202)
  const running = await waitSession(
    s.d,
    child,
    (x) => x.status.phase === 'running' && x.activity.lines.length > 0,
  )
  return { root, child, runId: running.status.run_id }
}

describe('busy descendants follow a committed workspace move', () => {
  const daemons: TestDaemon[] = []
  const closers: (() => Promise<void>)[] = []
  after(async () => {
    for (const d of daemons) await d.stop('SIGKILL')
    for (const close of closers) await close()
  })

  it('once their turn ends', async () => {
    const s = await startWithUpstream()
    daemons.push(s.d)
    closers.push(() => s.upstream.close())
    const target = mkdtempSync(join(s.d.home, 'moved-'))
    const { root, child, runId } = await familyWithBusyChild(s)

    const change = await moveFamily(s.d, root, target)
    assert.deepEqual(change.followers, [child])
    assert.equal(change.resource.value.workspace, target)
    const waiting = await getSession(s.d, child)
    assert.equal(waiting.configuration_resource.value.workspace_change.state, 'waiting_for_idle')
    assert.notEqual(waiting.workspace, target, 'a busy member does not move mid-turn')

    const stop = await post(s.d, `/sessions/${child}/interrupt`, { run_id: runId, through_input_order: 1 })
    assert.equal(stop.status, 200, stop.text())
    const moved = await waitSession(s.d, child, (x) => idle(x) && x.workspace === target)
    assert.equal(moved.configuration_resource.value.workspace_change, null)
    assert.equal(moved.location.path, target)
  })

  it('once a restarted daemon has ended the turn the previous one left open', async () => {
    const s = await startWithUpstream()
    daemons.push(s.d)
    closers.push(() => s.upstream.close())
    const target = mkdtempSync(join(s.d.home, 'moved-'))
    const { root, child } = await familyWithBusyChild(s)
    assert.deepEqual((await moveFamily(s.d, root, target)).followers, [child])
    await s.d.stop('SIGKILL')

    const again = await startDaemon({ home: s.d.home })
    daemons.push(again)
    const moved = await waitSession(again, child, (x) => idle(x) && x.workspace === target)
    assert.equal(moved.configuration_resource.value.workspace_change, null)
    assert.equal((await getSession(again, root)).workspace, target)
  })
})
