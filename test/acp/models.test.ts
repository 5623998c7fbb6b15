// Model selection through `hearth acp`: the `model` config option lists each profile as a
// group of its models (value PROFILE/MODEL), set_config_option moves the session to another
// profile and model (the next turn goes there: the fake upstream records the model asked
// for), the effort option sets the session's effort, and a profile that does not exist or
// an unknown option is invalid params.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { methods } from '@agentclientprotocol/sdk'
import { answer } from '../fakes/tool-script.ts'
import { change } from '../settings/helpers.ts'
import { type AgentSetup, startAgent } from '../tools/agent-helpers.ts'
import { type Editor, rpcError, startEditor } from './editor.ts'

async function configurationOf(s: AgentSetup, sid: string): Promise<any> {
  return (await s.d.request({ path: `/sessions/${sid}?view=configuration` })).json().value
}

describe('model selection', () => {
  let s: AgentSetup
  let editor: Editor
  before(async () => {
    s = await startAgent()
    // A second profile on the same fake: the model a request names tells which one served it.
    await change(s.d, 'providers', {
      profiles: { other: { endpoint: `${s.upstream.url}/v1`, protocol: 'responses', model: 'other-model' } },
    })
    editor = await startEditor(s.home)
  })
  after(async () => {
    await editor?.close()
    await s.d.stop()
    await s.upstream.close()
  })

  it('the model option groups models by profile, the session’s current', async () => {
    const res = await editor.agent.request(methods.agent.session.new, { cwd: s.workspace, mcpServers: [] })
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
    const { sessionId } = await editor.agent.request(methods.agent.session.new, {
      cwd: s.workspace,
      mcpServers: [],
    })
    const res = await editor.agent.request(methods.agent.session.setConfigOption, {
      sessionId,
      configId: 'model',
      value: 'other/other-model',
    })
    assert.equal((res.configOptions.find((o) => o.id === 'model') as any).currentValue, 'other/other-model')
    const c = await configurationOf(s, sessionId)
    assert.equal(c.provider_profile, 'other')
    assert.equal(c.model, 'other-model')
    s.upstream.reset().enqueue(answer('From the other one.'))
    const done = await editor.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'who answers?' }],
    })
    assert.equal(done.stopReason, 'end_turn')
    assert.equal(s.upstream.requests[0].body.model, 'other-model')

    await editor.agent.request(methods.agent.session.setConfigOption, {
      sessionId,
      configId: 'effort',
      value: 'high',
    })
    assert.equal((await configurationOf(s, sessionId)).effort, 'high')
    await editor.agent.request(methods.agent.session.setConfigOption, {
      sessionId,
      configId: 'effort',
      value: 'default',
    })
    assert.equal((await configurationOf(s, sessionId)).effort, null)
  })

  it('an unknown profile, a malformed value or an unknown option is invalid params', async () => {
    const { sessionId } = await editor.agent.request(methods.agent.session.new, {
      cwd: s.workspace,
      mcpServers: [],
    })
    for (const [configId, value] of [
      ['model', 'nowhere/some-model'],
      ['model', 'no-slash'],
      ['effort', 'enormous'],
      ['colour', 'blue'],
    ]) {
      const err = await rpcError(
        editor.agent.request(methods.agent.session.setConfigOption, { sessionId, configId, value }),
      )
      assert.equal(err.code, -32602, `${configId}=${value}: ${err.message}`)
    }
    const c = await configurationOf(s, sessionId)
    assert.equal(c.provider_profile, 'fake')
    assert.equal(c.model, 'fake-model')
  })
})
