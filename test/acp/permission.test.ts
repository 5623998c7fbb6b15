// Approvals through the editor: a call that waits for approval becomes
// session/request_permission whose options mean exactly hearth's answers (allow once, allow
// for the session, deny), whichever client started its run; a cancelled request and an
// editor that quits leave the approval pending in the daemon, answerable from any other
// client.
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { methods } from '@agentclientprotocol/sdk'
import { answer, callTools } from '../fakes/tool-script.ts'
import { putInput, waitSession } from '../inputs/helpers.ts'
import { acpFixture } from './fixture.ts'
import { choose, initialized } from './helpers.ts'

describe('hearth acp: permission requests', () => {
  const acp = acpFixture('perm')
  const { newSession, prompt } = acp
  const asked = (sid: string) => acp.editor.permissions.filter((p) => p.sessionId === sid)
  /** Answers the approval the session's run waits for, as another client does. */
  const answerElsewhere = async (sid: string, decision: 'allow' | 'deny') => {
    const blocked = await waitSession(acp.s.d, sid, (x) => x.status.blocking_reason?.kind === 'approval')
    const r = await putInput(acp.s.d, sid, {
      kind: 'approval',
      request_id: blocked.status.blocking_reason.request_id,
      decision,
      remember: 'once',
      client_id: 'other',
    })
    return { blocked, r }
  }

  it('allow once runs the call and asks again next time; the request shows the diff', async () => {
    const sid = await newSession()
    acp.editor.onPermission = choose('allow_once')
    acp.s.upstream.enqueue(
      callTools({ name: 'write', arguments: { path: 'once.txt', content: 'first\n' } }),
      answer('Wrote it.'),
      callTools({ name: 'write', arguments: { path: 'once.txt', content: 'second\n' } }),
      answer('Wrote it again.'),
    )
    assert.equal((await prompt(sid, 'write')).stopReason, 'end_turn')
    assert.equal(readFileSync(join(acp.workspace, 'once.txt'), 'utf8'), 'first\n')
    const [request] = asked(sid)
    assert.deepEqual(
      request.options.map((o) => [o.optionId, o.kind]),
      [
        ['allow_once', 'allow_once'],
        ['allow_always', 'allow_always'],
        ['reject_once', 'reject_once'],
      ],
    )
    assert.equal(request.options[1].name, 'Always allow write in this session')
    assert.equal(request.toolCall.kind, 'edit')
    assert.match(request.toolCall.title ?? '', /once\.txt/)
    assert.deepEqual(request.toolCall.content, [
      { type: 'diff', path: join(acp.workspace, 'once.txt'), oldText: null, newText: 'first\n' },
    ])
    assert.equal((await prompt(sid, 'again')).stopReason, 'end_turn')
    assert.equal(asked(sid).length, 2)
    assert.equal(readFileSync(join(acp.workspace, 'once.txt'), 'utf8'), 'second\n')
  })

  it('allow always remembers that exact command line for the session', async () => {
    const sid = await newSession()
    acp.editor.onPermission = choose('allow_always')
    acp.s.upstream.enqueue(
      callTools({ name: 'shell', arguments: { command: 'echo always' } }),
      answer('Ran.'),
      callTools({ name: 'shell', arguments: { command: 'echo always' } }),
      answer('Ran again.'),
    )
    assert.equal((await prompt(sid, 'run')).stopReason, 'end_turn')
    const [request] = asked(sid)
    assert.equal(request.options[1].name, 'Always allow `echo always` in this session')
    assert.equal(request.toolCall.kind, 'execute')
    assert.equal((await prompt(sid, 'run again')).stopReason, 'end_turn')
    assert.equal(asked(sid).length, 1, 'the same command is not asked again')
    const ends = acp.editor.of(sid, 'tool_call_update').filter((u) => u.status === 'completed')
    assert.equal(ends.length, 2)
  })

  it('reject denies the call: nothing written, the call failed, the model goes on', async () => {
    const sid = await newSession()
    acp.editor.onPermission = choose('reject_once')
    acp.s.upstream.enqueue(
      callTools({ name: 'write', arguments: { path: 'denied.txt', content: 'x' } }),
      answer('Understood.'),
    )
    assert.equal((await prompt(sid, 'write')).stopReason, 'end_turn')
    assert.ok(!existsSync(join(acp.workspace, 'denied.txt')))
    const end = acp.editor.of(sid, 'tool_call_update').findLast((u) => u.status)
    assert.equal(end.status, 'failed')
    assert.equal(end.rawOutput.outcome, 'denied')
    assert.equal(acp.editor.text(sid), 'Understood.')
  })

  it('a cancelled request is no answer: the approval stays pending, another client answers it', async () => {
    const sid = await newSession()
    acp.editor.onPermission = async () => ({ outcome: { outcome: 'cancelled' } })
    acp.s.upstream.enqueue(
      callTools({ name: 'write', arguments: { path: 'later.txt', content: 'later\n' } }),
      answer('Finally.'),
    )
    const turn = prompt(sid, 'write')
    await acp.editor.until(() => asked(sid).length === 1, 30_000, 'the permission request')
    const { r } = await answerElsewhere(sid, 'allow')
    assert.equal(r.status, 202, r.text())
    assert.equal((await turn).stopReason, 'end_turn')
    assert.equal(readFileSync(join(acp.workspace, 'later.txt'), 'utf8'), 'later\n')
  })

  it('an editor that quits leaves the approval pending in the daemon', async () => {
    const sid = await newSession()
    const leaving = await initialized({ home: acp.s.d.home })
    acp.s.upstream.enqueue(
      callTools({ name: 'write', arguments: { path: 'orphan.txt', content: 'kept\n' } }),
      answer('Done after all.'),
    )
    void prompt(sid, 'write', leaving).catch(() => {})
    await leaving.until(() => leaving.permissions.length === 1, 30_000, 'the permission request')
    assert.equal(await leaving.close(), 0)
    const { blocked, r } = await answerElsewhere(sid, 'allow')
    assert.equal(blocked.status.phase, 'blocked')
    assert.equal(r.status, 202, r.text())
    await waitSession(acp.s.d, sid, (x) => x.status.phase === 'idle')
    assert.equal(readFileSync(join(acp.workspace, 'orphan.txt'), 'utf8'), 'kept\n')
    leaving.assertStdoutIsProtocol()
  })

  it('a run another client started asks the editor too, and the editor’s answer runs the call', async () => {
    const sid = await newSession()
    acp.editor.onPermission = choose('allow_once')
    // The editor follows the session from its own first prompt on.
    acp.s.upstream.enqueue(answer('Hello.'))
    assert.equal((await prompt(sid, 'hello')).stopReason, 'end_turn')
    acp.s.upstream.enqueue(
      callTools({ name: 'write', arguments: { path: 'theirs.txt', content: 'theirs\n' } }),
      answer('Written.'),
    )
    await putInput(acp.s.d, sid, { kind: 'message', text: 'write it', client_id: 'terminal' })
    await acp.editor.until(() => asked(sid).length === 1, 30_000, 'the permission request')
    const [request] = asked(sid)
    assert.match(request.toolCall.title ?? '', /theirs\.txt/)
    assert.ok(
      acp.editor.of(sid, 'tool_call').some((u) => u.toolCallId === request.toolCall.toolCallId),
      'the editor was shown the call it is asked about',
    )
    await waitSession(
      acp.s.d,
      sid,
      (x) => x.status.phase === 'idle' && x.latest_answer?.outcome === 'completed',
    )
    assert.equal(readFileSync(join(acp.workspace, 'theirs.txt'), 'utf8'), 'theirs\n')
  })

  it('a session that already waits for an approval asks the editor that loads it', async () => {
    const sid = await newSession()
    acp.s.upstream.enqueue(
      callTools({ name: 'write', arguments: { path: 'waiting.txt', content: 'waited\n' } }),
      answer('Written at last.'),
    )
    await putInput(acp.s.d, sid, { kind: 'message', text: 'write it', client_id: 'terminal' })
    const blocked = await waitSession(acp.s.d, sid, (x) => x.status.blocking_reason?.kind === 'approval')
    const reason = blocked.status.blocking_reason
    assert.equal(reason.run_id, blocked.status.run_id)
    const editor = await acp.openEditor()
    editor.onPermission = choose('allow_once')
    await editor.agent.request(methods.agent.session.load, {
      sessionId: sid,
      cwd: acp.workspace,
      mcpServers: [],
    })
    await editor.until(() => editor.permissions.length === 1, 30_000, 'the permission request')
    const [request] = editor.permissions
    assert.equal(request.toolCall.toolCallId, reason.call_id)
    assert.deepEqual(request.toolCall.content, [
      { type: 'diff', path: join(acp.workspace, 'waiting.txt'), oldText: null, newText: 'waited\n' },
    ])
    await waitSession(
      acp.s.d,
      sid,
      (x) => x.status.phase === 'idle' && x.latest_answer?.outcome === 'completed',
    )
    assert.equal(readFileSync(join(acp.workspace, 'waiting.txt'), 'utf8'), 'waited\n')
  })

  it('a question answered elsewhere is withdrawn from the editor', async () => {
    const sid = await newSession()
    let withdrawn = false
    acp.editor.onPermission = () => new Promise(() => {}) // never answers
    acp.s.upstream.enqueue(
      callTools({ name: 'write', arguments: { path: 'elsewhere.txt', content: 'e\n' } }),
      answer('OK.'),
    )
    const turn = prompt(sid, 'write')
    await acp.editor.until(() => asked(sid).length === 1, 30_000, 'the permission request')
    await answerElsewhere(sid, 'deny')
    assert.equal((await turn).stopReason, 'end_turn')
    withdrawn = acp.editor.stdoutLines.some((l) => l.includes('"$/cancel_request"'))
    assert.ok(withdrawn, 'a $/cancel_request withdrew the question')
  })
})
