// The daemon restarting underneath `hearth acp`: the live follower resumes by cursor on the
// new daemon (a new port, read from the home), another client's run after the restart
// reaches the editor, the next prompt works; a run a killed daemon left open ends at the
// next start, and its prompt is answered with the run's problem.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { answer } from '../fakes/tool-script.ts'
import { killChildren, message, putInput, startWithUpstream, waitSession } from '../inputs/helpers.ts'
import { acpFixture } from './fixture.ts'
import { words } from './helpers.ts'

describe('hearth acp: the daemon restarting underneath', () => {
  const acp = acpFixture('restart')
  const { newSession, prompt } = acp
  /** Stops the daemon and starts another on the same home and upstream (a new port). */
  const restart = async (signal: NodeJS.Signals) => {
    const { s } = acp
    if (signal === 'SIGKILL') killChildren(s.d.proc.pid!)
    await s.d.stop(signal)
    s.d = (await startWithUpstream({ home: s.d.home, upstream: s.upstream })).d
  }

  it('follows the session on the new daemon and serves the next prompt', async () => {
    const sid = await newSession()
    acp.s.upstream.enqueue(answer('Before the restart.'))
    assert.equal((await prompt(sid, 'one')).stopReason, 'end_turn')
    const oldUrl = acp.s.d.url
    await restart('SIGTERM')
    assert.notEqual(acp.s.d.url, oldUrl)
    // Another client's message on the new daemon reaches the editor through the follower.
    acp.s.upstream.enqueue(answer('Said to another client.'))
    assert.equal((await putInput(acp.s.d, sid, message('from elsewhere'))).status, 202)
    await acp.editor.until(
      () => /Said to another client\./.test(acp.editor.text(sid)),
      30_000,
      'the resumed stream',
    )
    assert.equal(acp.editor.of(sid, 'user_message_chunk').at(-1)?.content.text, 'from elsewhere')
    acp.s.upstream.enqueue(answer('After the restart.'))
    assert.equal((await prompt(sid, 'two')).stopReason, 'end_turn')
    assert.match(acp.editor.text(sid), /Before the restart\.Said to another client\.After the restart\.$/)
    acp.editor.assertStdoutIsProtocol()
  })

  it('answers a prompt whose run a killed daemon left open with the run’s problem', async () => {
    const sid = await newSession()
    acp.s.upstream.enqueue(answer(words(2000), { delayMs: 20 }))
    const turn = prompt(sid, 'a long one')
    await acp.editor.until(() => acp.editor.text(sid).length > 0, 30_000, 'the first chunk')
    await restart('SIGKILL')
    await assert.rejects(turn, (err: any) => {
      assert.equal(err.data?.code, 'daemon_restarted')
      return true
    })
    await waitSession(acp.s.d, sid, (x) => x.status.phase === 'idle')
    acp.s.upstream.enqueue(answer('Back again.'))
    assert.equal((await prompt(sid, 'still there?')).stopReason, 'end_turn')
  })

  it('says, when no daemon comes back, that none answers and how to start one', async () => {
    const sid = await newSession()
    await acp.s.d.stop()
    await assert.rejects(prompt(sid, 'anyone?'), (err: any) => {
      assert.equal(err.code, -32603)
      assert.match(err.message, /does not answer.*hearth daemon --home/)
      return true
    })
    acp.editor.assertStdoutIsProtocol()
  })
})
