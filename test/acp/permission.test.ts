// Approvals through the editor: a call that waits for approval becomes
// session/request_permission whose options mean exactly hearth's answers (allow once, allow
// for the session, deny); a cancelled request and an editor that quits leave the approval
// pending in the daemon, answerable from any other client.
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { methods } from '@agentclientprotocol/sdk'
import { answer, callTools } from '../fakes/tool-script.ts'
import { putInput, type Setup, startWithUpstream, waitSession } from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'
import { type Editor, initialized } from './helpers.ts'

const choose = (optionId: string) => async () => ({ outcome: { outcome: 'selected' as const, optionId } })

describe('hearth acp: permission requests', () => {
  let s: Setup
  let workspace: string
  let editor: Editor
  before(async () => {
    s = await startWithUpstream()
    workspace = mkdtempSync(join(tmpdir(), 'hearth-acp-perm-'))
    editor = await initialized({ home: s.d.home })
  })
  after(async () => {
    await editor?.close()
    await s.d.stop()
    await s.upstream.close()
  })

  const newSession = () => createSession(s.d, { kind: 'new', workspace })
  const prompt = (e: Editor, sessionId: string, text: string) =>
    e.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] })
  const asked = (sid: string) => editor.permissions.filter((p) => p.sessionId === sid)

  it('allow once runs the call and asks again next time; the request shows the diff', async () => {
    const sid = await newSession()
    editor.onPermission = choose('allow_once')
    s.upstream.enqueue(
      callTools({ name: 'write', arguments: { path: 'once.txt', content: 'first\n' } }),
      answer('Wrote it.'),
      callTools({ name: 'write', arguments: { path: 'once.txt', content: 'second\n' } }),
      answer('Wrote it again.'),
    )
    assert.equal((await prompt(editor, sid, 'write')).stopReason, 'end_turn')
    assert.equal(readFileSync(join(workspace, 'once.txt'), 'utf8'), 'first\n')
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
      { type: 'diff', path: join(workspace, 'once.txt'), oldText: null, newText: 'first\n' },
    ])
    assert.equal((await prompt(editor, sid, 'again')).stopReason, 'end_turn')
    assert.equal(asked(sid).length, 2)
    assert.equal(readFileSync(join(workspace, 'once.txt'), 'utf8'), 'second\n')
  })

  it('allow always remembers that exact command line for the session', async () => {
    const sid = await newSession()
    editor.onPermission = choose('allow_always')
    s.upstream.enqueue(
      callTools({ name: 'shell', arguments: { command: 'echo always' } }),
      answer('Ran.'),
      callTools({ name: 'shell', arguments: { command: 'echo always' } }),
      answer('Ran again.'),
    )
    assert.equal((await prompt(editor, sid, 'run')).stopReason, 'end_turn')
    const [request] = asked(sid)
    assert.equal(request.options[1].name, 'Always allow `echo always` in this session')
    assert.equal(request.toolCall.kind, 'execute')
    assert.equal((await prompt(editor, sid, 'run again')).stopReason, 'end_turn')
    assert.equal(asked(sid).length, 1, 'the same command is not asked again')
    const ends = editor.of(sid, 'tool_call_update').filter((u) => u.status === 'completed')
    assert.equal(ends.length, 2)
  })

  it('reject denies the call: nothing written, the call failed, the model goes on', async () => {
    const sid = await newSession()
    editor.onPermission = choose('reject_once')
    s.upstream.enqueue(
      callTools({ name: 'write', arguments: { path: 'denied.txt', content: 'x' } }),
      answer('Understood.'),
    )
    assert.equal((await prompt(editor, sid, 'write')).stopReason, 'end_turn')
    assert.ok(!existsSync(join(workspace, 'denied.txt')))
    const end = editor.of(sid, 'tool_call_update').findLast((u) => u.status)
    assert.equal(end.status, 'failed')
    assert.equal(end.rawOutput.outcome, 'denied')
    assert.equal(editor.text(sid), 'Understood.')
  })

  it('a cancelled request is no answer: the approval stays pending, another client answers it', async () => {
    const sid = await newSession()
    editor.onPermission = async () => ({ outcome: { outcome: 'cancelled' } })
    s.upstream.enqueue(
      callTools({ name: 'write', arguments: { path: 'later.txt', content: 'later\n' } }),
      answer('Finally.'),
    )
    const turn = prompt(editor, sid, 'write')
    await editor.until(() => asked(sid).length === 1, 30_000, 'the permission request')
    const blocked = await waitSession(s.d, sid, (x) => x.status.blocking_reason?.kind === 'approval')
    const r = await putInput(s.d, sid, {
      kind: 'approval',
      request_id: blocked.status.blocking_reason.request_id,
      decision: 'allow',
      remember: 'once',
      client_id: 'other',
    })
    assert.equal(r.status, 202, r.text())
    assert.equal((await turn).stopReason, 'end_turn')
    assert.equal(readFileSync(join(workspace, 'later.txt'), 'utf8'), 'later\n')
  })

  it('an editor that quits leaves the approval pending in the daemon', async () => {
    const sid = await newSession()
    const leaving = await initialized({ home: s.d.home })
    s.upstream.enqueue(
      callTools({ name: 'write', arguments: { path: 'orphan.txt', content: 'kept\n' } }),
      answer('Done after all.'),
    )
    void prompt(leaving, sid, 'write').catch(() => {})
    await leaving.until(() => leaving.permissions.length === 1, 30_000, 'the permission request')
    assert.equal(await leaving.close(), 0)
    const blocked = await waitSession(s.d, sid, (x) => x.status.blocking_reason?.kind === 'approval')
    assert.equal(blocked.status.phase, 'blocked')
    const r = await putInput(s.d, sid, {
      kind: 'approval',
      request_id: blocked.status.blocking_reason.request_id,
      decision: 'allow',
      remember: 'once',
      client_id: 'other',
    })
    assert.equal(r.status, 202, r.text())
    await waitSession(s.d, sid, (x) => x.status.phase === 'idle')
    assert.equal(readFileSync(join(workspace, 'orphan.txt'), 'utf8'), 'kept\n')
    leaving.assertStdoutIsProtocol()
  })

  it('a question answered elsewhere is withdrawn from the editor', async () => {
    const sid = await newSession()
    let withdrawn = false
    editor.onPermission = () => new Promise(() => {}) // never answers
    s.upstream.enqueue(
      callTools({ name: 'write', arguments: { path: 'elsewhere.txt', content: 'e\n' } }),
      answer('OK.'),
    )
    const turn = prompt(editor, sid, 'write')
    await editor.until(() => asked(sid).length === 1, 30_000, 'the permission request')
    const blocked = await waitSession(s.d, sid, (x) => x.status.blocking_reason?.kind === 'approval')
    await putInput(s.d, sid, {
      kind: 'approval',
      request_id: blocked.status.blocking_reason.request_id,
      decision: 'deny',
      remember: 'once',
      client_id: 'other',
    })
    assert.equal((await turn).stopReason, 'end_turn')
    withdrawn = editor.stdoutLines.some((l) => l.includes('"$/cancel_request"'))
    assert.ok(withdrawn, 'a $/cancel_request withdrew the question')
  })
})
