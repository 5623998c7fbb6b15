// The daemon restarting underneath `hearth acp`: the live follower resumes by cursor on the
// new daemon (a new port, read from the home), another client's run after the restart
// reaches the editor, the next prompt works; a run a killed daemon left open ends at the
// next start, and its prompt is answered with the run's problem.
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { methods } from '@agentclientprotocol/sdk'
import { answer } from '../fakes/tool-script.ts'
import {
  killChildren,
  message,
  putInput,
  type Setup,
  startWithUpstream,
  waitSession,
} from '../inputs/helpers.ts'
import { createSession } from '../streams/sse-client.ts'
import { type Editor, initialized } from './helpers.ts'

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i} `).join('')

describe('hearth acp: the daemon restarting underneath', () => {
  let s: Setup
  let workspace: string
  let editor: Editor
  before(async () => {
    s = await startWithUpstream()
    workspace = mkdtempSync(join(tmpdir(), 'hearth-acp-restart-'))
    editor = await initialized({ home: s.d.home })
  })
  after(async () => {
    await editor?.close()
    await s.d.stop()
    await s.upstream.close()
  })

  const prompt = (sessionId: string, text: string) =>
    editor.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] })
  const restart = async (signal: NodeJS.Signals) => {
    if (signal === 'SIGKILL') killChildren(s.d.proc.pid!)
    await s.d.stop(signal)
    s = await startWithUpstream({ home: s.d.home, upstream: s.upstream })
  }

  it('follows the session on the new daemon and serves the next prompt', async () => {
    const sid = await createSession(s.d, { kind: 'new', workspace })
    s.upstream.enqueue(answer('Before the restart.'))
    assert.equal((await prompt(sid, 'one')).stopReason, 'end_turn')
    const oldUrl = s.d.url
    await restart('SIGTERM')
    assert.notEqual(s.d.url, oldUrl)
    // Another client's message on the new daemon reaches the editor through the follower.
    s.upstream.enqueue(answer('Said to another client.'))
    assert.equal((await putInput(s.d, sid, message('from elsewhere'))).status, 202)
    await editor.until(() => /Said to another client\./.test(editor.text(sid)), 30_000, 'the resumed stream')
    assert.equal(editor.of(sid, 'user_message_chunk').at(-1)?.content.text, 'from elsewhere')
    s.upstream.enqueue(answer('After the restart.'))
    assert.equal((await prompt(sid, 'two')).stopReason, 'end_turn')
    assert.match(editor.text(sid), /Before the restart\.Said to another client\.After the restart\.$/)
    editor.assertStdoutIsProtocol()
  })

  it('answers a prompt whose run a killed daemon left open with the run’s problem', async () => {
    const sid = await createSession(s.d, { kind: 'new', workspace })
    s.upstream.enqueue(answer(words(2000), { delayMs: 20 }))
    const turn = prompt(sid, 'a long one')
    await editor.until(() => editor.text(sid).length > 0, 30_000, 'the first chunk')
    await restart('SIGKILL')
    await assert.rejects(turn, (err: any) => {
      assert.equal(err.data?.code, 'daemon_restarted')
      return true
    })
    await waitSession(s.d, sid, (x) => x.status.phase === 'idle')
    s.upstream.enqueue(answer('Back again.'))
    assert.equal((await prompt(sid, 'still there?')).stopReason, 'end_turn')
  })

  it('says, when no daemon comes back, that none answers and how to start one', async () => {
    const sid = await createSession(s.d, { kind: 'new', workspace })
    await s.d.stop()
    await assert.rejects(prompt(sid, 'anyone?'), (err: any) => {
      assert.equal(err.code, -32603)
      assert.match(err.message, /does not answer.*hearth daemon --home/)
      return true
    })
    editor.assertStdoutIsProtocol()
  })
})
