// session/cancel: an interrupt of the run the prompt captured (mid-stream, or while a call
// waits for approval), or the cancel of its input while it still waits behind another run,
// which goes on untouched.
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { methods } from '@agentclientprotocol/sdk'
import { answer, callTools } from '../fakes/tool-script.ts'
import {
  getSession,
  message,
  putInput,
  type Setup,
  startWithUpstream,
  waitSession,
} from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'
import { type Editor, initialized } from './helpers.ts'

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i} `).join('')

describe('hearth acp: session/cancel', () => {
  let s: Setup
  let workspace: string
  let editor: Editor
  before(async () => {
    s = await startWithUpstream()
    workspace = mkdtempSync(join(tmpdir(), 'hearth-acp-cancel-'))
    editor = await initialized({ home: s.d.home })
  })
  after(async () => {
    await editor?.close()
    await s.d.stop()
    await s.upstream.close()
  })

  const newSession = () => createSession(s.d, { kind: 'new', workspace })
  const prompt = (sessionId: string, text: string) =>
    editor.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] })
  const cancel = (sessionId: string) => editor.agent.notify(methods.agent.session.cancel, { sessionId })

  it('interrupts the run mid-stream and ends the prompt cancelled', async () => {
    const sid = await newSession()
    s.upstream.enqueue(answer(words(400), { delayMs: 20 }))
    const turn = prompt(sid, 'talk for a while')
    await editor.until(() => editor.text(sid).length > 0, 30_000, 'the first chunk')
    await cancel(sid)
    assert.equal((await turn).stopReason, 'cancelled')
    const read = await waitSession(s.d, sid, (x) => x.status.phase === 'idle')
    assert.equal(read.latest_answer.outcome, 'interrupted')
    assert.ok(editor.text(sid).length < words(400).length)
  })

  it('cancels a prompt queued behind another client’s run, which goes on', async () => {
    const sid = await newSession()
    s.upstream.enqueue(answer(words(150), { delayMs: 20 }))
    const other = await putInput(s.d, sid, message('the other client'))
    assert.equal(other.status, 202)
    await waitSession(s.d, sid, (x) => x.status.phase === 'running')
    const turn = prompt(sid, 'me too')
    await waitSession(s.d, sid, (x) => x.pending_inputs.length === 1)
    await cancel(sid)
    assert.equal((await turn).stopReason, 'cancelled')
    const read = await waitSession(s.d, sid, (x) => x.status.phase === 'idle')
    assert.equal(read.latest_answer.outcome, 'completed')
    assert.equal(s.upstream.requests.filter((r) => JSON.stringify(r.body).includes('me too')).length, 0)
    // The other client's run was streamed to the editor as the session's activity (its last
    // delta may reach the editor just after the daemon reads idle).
    await editor.until(() => /word149/.test(editor.text(sid)), 30_000, "the other run's last words")
  })

  it('interrupts a run whose call waits for the editor’s answer; the approval expires', async () => {
    const sid = await newSession()
    let cancelled: () => void = () => {}
    editor.onPermission = () =>
      new Promise((resolve) => {
        cancelled = () => resolve({ outcome: { outcome: 'cancelled' } })
      })
    s.upstream.enqueue(callTools({ name: 'write', arguments: { path: 'never.txt', content: 'x' } }))
    const turn = prompt(sid, 'write')
    await editor.until(() => editor.permissions.some((p) => p.sessionId === sid), 30_000, 'the question')
    await cancel(sid)
    cancelled() // what an editor does with its open questions on cancel
    assert.equal((await turn).stopReason, 'cancelled')
    const read = await getSession(s.d, sid)
    assert.equal(read.status.blocking_reason, null)
  })
})
