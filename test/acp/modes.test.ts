// ACP modes are hearth's approval policies, through `hearth acp` over real pipes against the
// real daemon: a new session shows the settings' policy, session/set_mode changes the
// session's configuration (and what the model is offered), an unknown mode is invalid
// params and changes nothing, and a change made by another client reaches the editor as
// current_mode_update.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { methods } from '@agentclientprotocol/sdk'
import { answer } from '../fakes/tool-script.ts'
import type { AgentSetup } from '../tools/agent-helpers.ts'
import { rpcError } from './editor.ts'
import { agentAcpFixture } from './fixture.ts'

async function policyOf(s: AgentSetup, sid: string): Promise<string | null> {
  const r = await s.d.request({ path: `/sessions/${sid}?view=configuration` })
  return r.json().value.approval_policy
}

const offered = (body: any): string[] => (body.tools ?? []).map((t: any) => t.name ?? t.function?.name)

describe('modes', () => {
  const acp = agentAcpFixture({ tools: { approval_policy: 'ask' } })

  it('a new session offers read-only, ask and auto, the settings’ policy current', async () => {
    const res = await acp.editorSession()
    assert.deepEqual(
      res.modes?.availableModes.map((m) => m.id),
      ['read-only', 'ask', 'auto'],
    )
    assert.equal(res.modes?.currentModeId, 'ask')
    const mode = res.configOptions?.find((o) => o.id === 'mode')
    assert.equal(mode?.category, 'mode')
    assert.equal(mode?.type === 'select' && mode.currentValue, 'ask')
  })

  it('set_mode sets the session’s approval policy, which decides what the model is offered', async () => {
    const { sessionId } = await acp.editorSession()
    await acp.editor.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'read-only' })
    assert.equal(await policyOf(acp.s, sessionId), 'read-only')
    acp.s.upstream.reset().enqueue(answer('Only reading.'))
    const done = await acp.prompt(sessionId, 'look around')
    assert.equal(done.stopReason, 'end_turn')
    const tools = offered(acp.s.upstream.requests[0].body)
    assert.ok(tools.includes('read'), 'reads are offered')
    assert.ok(!tools.includes('shell') && !tools.includes('write'), 'writes and commands are not')

    await acp.editor.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'auto' })
    assert.equal(await policyOf(acp.s, sessionId), 'auto')
  })

  it('an unknown mode is invalid params and changes nothing', async () => {
    const { sessionId } = await acp.editorSession()
    const err = await rpcError(
      acp.editor.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'yolo' }),
    )
    assert.equal(err.code, -32602)
    assert.equal(await policyOf(acp.s, sessionId), null)
  })

  it('a policy another client sets reaches the editor as current_mode_update', async () => {
    const { sessionId } = await acp.editorSession()
    const read = await acp.s.d.request({ path: `/sessions/${sessionId}?view=configuration` })
    const r = await acp.s.d.request({
      method: 'PATCH',
      path: `/sessions/${sessionId}?view=configuration`,
      headers: { 'content-type': 'application/merge-patch+json', 'if-match': read.json().etag },
      body: JSON.stringify({ approval_policy: 'auto' }),
    })
    assert.equal(r.status, 200, r.text())
    const update = await acp.editor.waitFor('the mode update', () =>
      acp.editor.of(sessionId, 'current_mode_update').at(-1),
    )
    assert.equal(update.currentModeId, 'auto')
    const options = await acp.editor.waitFor('the options update', () =>
      acp.editor.of(sessionId, 'config_option_update').at(-1),
    )
    assert.equal(options.configOptions.find((o: any) => o.id === 'mode').currentValue, 'auto')
  })
})
