// Two `hearth acp` processes on one session, as two editors (or an editor opened twice): each
// sees the other's messages, answers and tool calls live; a prompt sent while the other's run
// is going is queued by the daemon and answered when its own run ends; closing one editor
// leaves the session to the other.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { methods } from '@agentclientprotocol/sdk'
import { answer, callTools } from '../fakes/tool-script.ts'
import { type AgentSetup, startAgent } from '../tools/agent-helpers.ts'
import { type Editor, startEditor } from './editor.ts'

const prompt = (e: Editor, sessionId: string, text: string) =>
  e.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] })

describe('two ACP processes on one session', () => {
  let s: AgentSetup
  let a: Editor
  let b: Editor
  let sessionId: string
  before(async () => {
    s = await startAgent()
    a = await startEditor(s.home)
    b = await startEditor(s.home)
    sessionId = (await a.agent.request(methods.agent.session.new, { cwd: s.workspace, mcpServers: [] }))
      .sessionId
    await b.agent.request(methods.agent.session.load, { sessionId, cwd: s.workspace, mcpServers: [] })
  })
  after(async () => {
    await a?.close()
    await b?.close()
    await s.d.stop()
    await s.upstream.close()
  })

  it("each sees the other's message, answer and tool calls", async () => {
    s.upstream.enqueue(callTools({ name: 'list', arguments: { path: '.' } }), answer('Nothing much here.'))
    const done = await prompt(a, sessionId, 'what is in here?')
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

    s.upstream.enqueue(answer('B asked, B gets.'))
    assert.equal((await prompt(b, sessionId, 'and now?')).stopReason, 'end_turn')
    await a.waitFor("B's answer in A", () =>
      a.text(sessionId, 'agent_message_chunk').endsWith('B asked, B gets.'),
    )
    assert.equal(a.text(sessionId, 'user_message_chunk'), 'and now?')
  })

  it("a prompt during the other's run is queued and answered when its own run ends", async () => {
    s.upstream.enqueue(
      answer('a slow and careful answer for A', { delayMs: 60 }),
      answer('The answer for B.'),
    )
    const first = prompt(a, sessionId, 'take your time')
    await a.waitFor('A’s run streaming', () => a.text(sessionId, 'agent_message_chunk').includes('a slow'))
    const second = prompt(b, sessionId, 'me next')
    const [ra, rb] = await Promise.all([first, second])
    assert.equal(ra.stopReason, 'end_turn')
    assert.equal(rb.stopReason, 'end_turn')
    const text = b.text(sessionId, 'agent_message_chunk')
    assert.ok(
      text.indexOf('a slow and careful answer for A') < text.indexOf('The answer for B.'),
      'the runs ran one after the other',
    )
    assert.equal(s.upstream.requests.length >= 2, true)
  })

  it('closing one editor leaves the session to the other', async () => {
    await a.close()
    s.upstream.enqueue(answer('Still here.'))
    assert.equal((await prompt(b, sessionId, 'anyone left?')).stopReason, 'end_turn')
    assert.ok(b.text(sessionId, 'agent_message_chunk').endsWith('Still here.'))
  })
})
