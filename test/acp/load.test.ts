// session/load through `hearth acp` over real pipes, against the real daemon and the fake
// upstream: the history (messages, reasoning, tool calls with their results, a text longer
// than a read shows) comes back as session/update notifications before the reply, then the
// session is followed live (a message another client sends shows up); an unknown session is
// a JSON-RPC error and the process goes on serving.
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { methods } from '@agentclientprotocol/sdk'
import { answer, callTools } from '../fakes/tool-script.ts'
import { message, putInput, waitSession } from '../inputs/helpers.ts'
import { type AgentSetup, newSession, runMessage } from '../tools/agent-helpers.ts'
import { rpcError, startEditor } from './editor.ts'
import { agentAcpFixture } from './fixture.ts'

const LONG = `${'long answer '.repeat(2000)}end.`

describe('session/load', () => {
  let sid: string
  /** A session with a history to replay: reasoning, a read and its result, a long answer. */
  const history = async (s: AgentSetup) => {
    writeFileSync(join(s.workspace, 'notes.txt'), 'the notes\n')
    sid = await newSession(s)
    s.upstream.enqueue(
      {
        reasoning: ['Thinking ', 'it over.'],
        ...callTools({ name: 'read', arguments: { path: 'notes.txt' } }),
      },
      answer('The notes say: the notes.'),
    )
    await runMessage(s, sid, 'what do the notes say?')
    s.upstream.enqueue({ text: [LONG] })
    await runMessage(s, sid, 'say a lot')
  }
  const acp = agentAcpFixture({ prepare: history })

  it('replays the history before the reply, then follows the session live', async () => {
    const res = await acp.editor.agent.request(methods.agent.session.load, {
      sessionId: sid,
      cwd: acp.workspace,
      mcpServers: [],
    })
    const replayed = acp.editor.of(sid)
    const kinds = replayed.map((u) => u.sessionUpdate)
    assert.equal(kinds[0], 'user_message_chunk', 'the first message opens the replay')
    assert.match(acp.editor.text(sid, 'user_message_chunk'), /what do the notes say\?[\s\S]*say a lot/)
    assert.equal(acp.editor.text(sid, 'agent_thought_chunk'), 'Thinking it over.')
    const call = replayed.find((u) => u.sessionUpdate === 'tool_call')
    assert.ok(call, 'the tool call is replayed')
    assert.equal(call.kind, 'read')
    const done = replayed.find(
      (u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === call.toolCallId,
    )
    assert.equal(done?.status, 'completed')
    const answers = acp.editor.text(sid, 'agent_message_chunk')
    assert.ok(answers.startsWith('The notes say: the notes.'), answers.slice(0, 80))
    assert.ok(answers.endsWith(LONG), 'a text past what a read shows is replayed whole')
    // In order: the first exchange wholly before the second message.
    const secondUser = kinds.lastIndexOf('user_message_chunk')
    assert.ok(kinds.indexOf('tool_call') < secondUser)
    assert.equal(res.modes?.currentModeId, 'auto')
    assert.ok(res.configOptions?.some((o) => o.id === 'model'))

    // Live after the replay: a message sent by another client, and its answer.
    const before = acp.editor.updates.length
    acp.s.upstream.enqueue(answer('Live and well.'))
    await runMessage(acp.s, sid, 'are you there?')
    await acp.editor.waitFor('the live answer', () =>
      acp.editor.text(sid, 'agent_message_chunk').endsWith('Live and well.'),
    )
    const live: any[] = acp.editor.updates.slice(before).map((n) => n.update)
    assert.ok(
      live.some((u) => u.sessionUpdate === 'user_message_chunk' && u.content.text === 'are you there?'),
      "another client's message is shown",
    )
    assert.equal(
      acp.editor.of(sid).filter((u) => u.sessionUpdate === 'tool_call').length,
      1,
      'nothing of the replay is sent twice',
    )
  })

  it('a load during a run shows what it streamed so far, then the rest, nothing twice', async () => {
    const running = await acp.newSession()
    const words = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ')
    acp.s.upstream.enqueue(answer(words, { delayMs: 40 }))
    const r = await putInput(acp.s.d, running, message('stream slowly'))
    assert.equal(r.status, 202)
    await waitSession(acp.s.d, running, (x) => x.active_output.some((o: any) => o.utf8_bytes > 10))
    const late = await startEditor(acp.s.home)
    try {
      await late.agent.request(methods.agent.session.load, {
        sessionId: running,
        cwd: acp.workspace,
        mcpServers: [],
      })
      assert.ok(late.text(running, 'agent_message_chunk').startsWith('w0 w1'), 'the text so far is replayed')
      await late.waitFor('the whole answer', () => late.text(running, 'agent_message_chunk').endsWith('w39'))
      assert.equal(late.text(running, 'agent_message_chunk'), words)
    } finally {
      await late.close()
    }
  })

  it('session/resume follows the session without sending the history again', async () => {
    const resumed = await startEditor(acp.s.home)
    try {
      const res = await resumed.agent.request(methods.agent.session.resume, {
        sessionId: sid,
        cwd: acp.workspace,
      })
      assert.ok(res.modes && res.configOptions)
      assert.deepEqual(
        resumed.of(sid).filter((u) => u.sessionUpdate !== 'available_commands_update'),
        [],
        'no history',
      )
      acp.s.upstream.enqueue(answer('Resumed.'))
      await runMessage(acp.s, sid, 'after the resume')
      await resumed.waitFor('the live answer', () => resumed.text(sid, 'agent_message_chunk') === 'Resumed.')
      assert.equal(resumed.text(sid, 'user_message_chunk'), 'after the resume')
    } finally {
      await resumed.close()
    }
  })

  it('an unknown session is a JSON-RPC error, and the process keeps serving', async () => {
    const err = await rpcError(
      acp.editor.agent.request(methods.agent.session.load, {
        sessionId: '01900000-0000-7000-8000-000000000000',
        cwd: acp.workspace,
        mcpServers: [],
      }),
    )
    assert.equal(err.code, -32002, err.message)
    const list = await acp.editor.agent.request(methods.agent.session.list, { cwd: acp.workspace })
    assert.ok(list.sessions.some((x) => x.sessionId === sid))
  })
})
