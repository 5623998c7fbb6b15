// Model selection through `hearth acp`: the `model` config option lists each profile as a
// group of its models (value PROFILE/MODEL), set_config_option moves the session to another
// profile and model (the next turn goes there: the fake upstream records the model asked
// for), the effort option sets the session's effort, and a profile that does not exist or
// an unknown option is invalid params.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { methods } from '@agentclientprotocol/sdk'
import { answer } from '../fakes/tool-script.ts'
import { change } from '../settings/helpers.ts'
import type { AgentSetup } from '../tools/agent-helpers.ts'
import { rpcError } from './editor.ts'
import { agentAcpFixture } from './fixture.ts'

async function configurationOf(s: AgentSetup, sid: string): Promise<any> {
  return (await s.d.request({ path: `/sessions/${sid}?view=configuration` })).json().value
}

describe('model selection', () => {
  const acp = agentAcpFixture({
    // A second profile on the same fake: the model a request names tells which one served it.
    prepare: (s) =>
      change(s.d, 'providers', {
        profiles: {
          other: { endpoint: `${s.upstream.url}/v1`, protocol: 'responses', model: 'other-model' },
        },
      }),
  })

  it('the model option groups models by profile, the session’s current', async () => {
    const res = await acp.editorSession()
    const model: any = res.configOptions?.find((o) => o.id === 'model')
    assert.equal(model.category, 'model')
    assert.equal(model.currentValue, 'fake/fake-model')
    const groups = Object.fromEntries(
      model.options.map((g: any) => [g.group, g.options.map((o: any) => o.value)]),
    )
    assert.ok(groups.fake.includes('fake/fake-model'))
    assert.ok(groups.other.includes('other/other-model'))
    const effort: any = res.configOptions?.find((o) => o.id === 'effort')
    assert.equal(effort.currentValue, 'default')
  })

  it('choosing another profile’s model moves the session there: the next turn asks for it', async () => {
    const { sessionId } = await acp.editorSession()
    const res = await acp.editor.agent.request(methods.agent.session.setConfigOption, {
      sessionId,
      configId: 'model',
      value: 'other/other-model',
    })
    assert.equal((res.configOptions.find((o) => o.id === 'model') as any).currentValue, 'other/other-model')
    const c = await configurationOf(acp.s, sessionId)
    assert.equal(c.provider_profile, 'other')
    assert.equal(c.model, 'other-model')
    acp.s.upstream.reset().enqueue(answer('From the other one.'))
    const done = await acp.prompt(sessionId, 'who answers?')
    assert.equal(done.stopReason, 'end_turn')
    assert.equal(acp.s.upstream.requests[0].body.model, 'other-model')

    await acp.editor.agent.request(methods.agent.session.setConfigOption, {
      sessionId,
      configId: 'effort',
      value: 'high',
    })
    assert.equal((await configurationOf(acp.s, sessionId)).effort, 'high')
    await acp.editor.agent.request(methods.agent.session.setConfigOption, {
      sessionId,
      configId: 'effort',
      value: 'default',
    })
    assert.equal((await configurationOf(acp.s, sessionId)).effort, null)
  })

  it('an unknown profile, a malformed value or an unknown option is invalid params', async () => {
    const { sessionId } = await acp.editorSession()
    for (const [configId, value] of [
      ['model', 'nowhere/some-model'],
      ['model', 'no-slash'],
      ['effort', 'enormous'],
      ['colour', 'blue'],
    ]) {
      const err = await rpcError(
        acp.editor.agent.request(methods.agent.session.setConfigOption, { sessionId, configId, value }),
      )
      assert.equal(err.code, -32602, `${configId}=${value}: ${err.message}`)
    }
    const c = await configurationOf(acp.s, sessionId)
    assert.equal(c.provider_profile, 'fake')
    assert.equal(c.model, 'fake-model')
  })
})
