// session/cancel: an interrupt of the run the prompt captured (mid-stream, or while a call
// waits for approval), or the cancel of its input while it still waits behind another run,
// which goes on untouched.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { answer, callTools } from '../fakes/tool-script.ts'
import { getSession, message, putInput, waitSession } from '../inputs/helpers.ts'
import { acpFixture } from './fixture.ts'
import { words } from './helpers.ts'

describe('hearth acp: session/cancel', () => {
  const acp = acpFixture('cancel')
  const { newSession, prompt, cancel } = acp

  it('interrupts the run mid-stream and ends the prompt cancelled', async () => {
    const sid = await newSession()
    acp.s.upstream.enqueue(answer(words(400), { delayMs: 20 }))
    const turn = prompt(sid, 'talk for a while')
    await acp.editor.until(() => acp.editor.text(sid).length > 0, 30_000, 'the first chunk')
    await cancel(sid)
    assert.equal((await turn).stopReason, 'cancelled')
    const read = await waitSession(acp.s.d, sid, (x) => x.status.phase === 'idle')
    assert.equal(read.latest_answer.outcome, 'interrupted')
    assert.ok(acp.editor.text(sid).length < words(400).length)
  })

  it('cancels a prompt queued behind another client’s run, which goes on', async () => {
    const sid = await newSession()
    acp.s.upstream.enqueue(answer(words(150), { delayMs: 20 }))
    const other = await putInput(acp.s.d, sid, message('the other client'))
    assert.equal(other.status, 202)
    await waitSession(acp.s.d, sid, (x) => x.status.phase === 'running')
    const turn = prompt(sid, 'me too')
    await waitSession(acp.s.d, sid, (x) => x.pending_inputs.length === 1)
    await cancel(sid)
    assert.equal((await turn).stopReason, 'cancelled')
    const read = await waitSession(acp.s.d, sid, (x) => x.status.phase === 'idle')
    assert.equal(read.latest_answer.outcome, 'completed')
    assert.equal(acp.s.upstream.requests.filter((r) => JSON.stringify(r.body).includes('me too')).length, 0)
    // The other client's run was streamed to the editor as the session's activity (its last
    // delta may reach the editor just after the daemon reads idle).
    await acp.editor.until(() => /word149/.test(acp.editor.text(sid)), 30_000, "the other run's last words")
  })

  it('interrupts a run whose call waits for the editor’s answer; the approval expires', async () => {
    const sid = await newSession()
    let cancelled: () => void = () => {}
    acp.editor.onPermission = () =>
      new Promise((resolve) => {
        cancelled = () => resolve({ outcome: { outcome: 'cancelled' } })
      })
    acp.s.upstream.enqueue(callTools({ name: 'write', arguments: { path: 'never.txt', content: 'x' } }))
    const turn = prompt(sid, 'write')
    await acp.editor.until(
      () => acp.editor.permissions.some((p) => p.sessionId === sid),
      30_000,
      'the question',
    )
    await cancel(sid)
    cancelled() // what an editor does with its open questions on cancel
    assert.equal((await turn).stopReason, 'cancelled')
    const read = await getSession(acp.s.d, sid)
    assert.equal(read.status.blocking_reason, null)
  })
})
