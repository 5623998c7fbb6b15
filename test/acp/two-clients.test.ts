// Two `hearth acp` processes on one session, as two editors (or an editor opened twice): each
// sees the other's messages, answers and tool calls live; a prompt sent while the other's run
// is going is queued by the daemon and answered when its own run ends; closing one editor
// leaves the session to the other.
import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { methods } from '@agentclientprotocol/sdk'
import { answer, callTools } from '../fakes/tool-script.ts'
import type { Editor } from './editor.ts'
import { agentAcpFixture } from './fixture.ts'

describe('two ACP processes on one session', () => {
  const acp = agentAcpFixture()
  let a: Editor
  let b: Editor
  let sessionId: string
  before(async () => {
    a = acp.editor
    b = await acp.openEditor()
    sessionId = (await acp.editorSession()).sessionId
    await b.agent.request(methods.agent.session.load, { sessionId, cwd: acp.workspace, mcpServers: [] })
  })

  it("each sees the other's message, answer and tool calls", async () => {
    acp.s.upstream.enqueue(
      callTools({ name: 'list', arguments: { path: '.' } }),
      answer('Nothing much here.'),
    )
    const done = await acp.prompt(sessionId, 'what is in here?', a)
    assert.equal(done.stopReason, 'end_turn')
    await b.waitFor("A's answer in B", () =>
      b.text(sessionId, 'agent_message_chunk').endsWith('Nothing much here.'),
    )
    assert.equal(b.text(sessionId, 'user_message_chunk'), 'what is in here?')
    const call = b.of(sessionId, 'tool_call')[0]
    assert.equal(call?.kind, 'search')
    await b.waitFor('the call ended in B', () =>
      b
        .of(sessionId, 'tool_call_update')
        .find((u) => u.toolCallId === call.toolCallId && u.status === 'completed'),
    )
    assert.equal(a.text(sessionId, 'user_message_chunk'), '', 'A is not sent its own message back')

    acp.s.upstream.enqueue(answer('B asked, B gets.'))
    assert.equal((await acp.prompt(sessionId, 'and now?', b)).stopReason, 'end_turn')
    await a.waitFor("B's answer in A", () =>
      a.text(sessionId, 'agent_message_chunk').endsWith('B asked, B gets.'),
    )
    assert.equal(a.text(sessionId, 'user_message_chunk'), 'and now?')
  })

  it("a prompt during the other's run is queued and answered when its own run ends", async () => {
    acp.s.upstream.enqueue(
      answer('a slow and careful answer for A', { delayMs: 60 }),
      answer('The answer for B.'),
    )
    const first = acp.prompt(sessionId, 'take your time', a)
    await a.waitFor('A’s run streaming', () => a.text(sessionId, 'agent_message_chunk').includes('a slow'))
    const second = acp.prompt(sessionId, 'me next', b)
    const [ra, rb] = await Promise.all([first, second])
    assert.equal(ra.stopReason, 'end_turn')
    assert.equal(rb.stopReason, 'end_turn')
    const text = b.text(sessionId, 'agent_message_chunk')
    assert.ok(
      text.indexOf('a slow and careful answer for A') < text.indexOf('The answer for B.'),
      'the runs ran one after the other',
    )
    assert.equal(acp.s.upstream.requests.length >= 2, true)
  })

  it('closing one editor leaves the session to the other', async () => {
    await a.close()
    acp.s.upstream.enqueue(answer('Still here.'))
    assert.equal((await acp.prompt(sessionId, 'anyone left?', b)).stopReason, 'end_turn')
    assert.ok(b.text(sessionId, 'agent_message_chunk').endsWith('Still here.'))
  })
})
